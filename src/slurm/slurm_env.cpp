// read_allocation: the scope, the node names, CPUs and memory per node. GPUs are worked out in
// slurm_gpus.cpp. A step (node_task) trusts only its step variables (SLURM_CPUS_ON_NODE, the
// visible-device lists, SLURMD_NODENAME): the job-wide values it inherits can be stale, as a
// step inside a worker step on Slurm 22.05 showed (docs/TORC-COMPATIBILITY.md §7).
#include "torcrun/slurm/slurm_env.hpp"

#include "slurm_env_detail.hpp"
#include "torcrun/slurm/hostlist.hpp"

#include <algorithm>
#include <charconv>

namespace torcrun::core {

namespace detail {

std::optional<env_entry> first_set(env_map const& env,
                                   std::initializer_list<std::string_view> names)
{
    for (auto const name : names) {
        if (auto const v = lookup(env, name); v && !v->empty()) return env_entry{name, *v};
    }
    return std::nullopt;
}

result<std::optional<std::uint64_t>> env_number(env_map const& env, std::string_view name,
                                                std::uint64_t max, std::string_view expected)
{
    auto const e = first_set(env, {name});
    if (!e) return std::optional<std::uint64_t>{};
    auto const message = [&](std::string_view detail) {
        return error{std::string(name) + ": \"" + std::string(e->value) + "\" "
                     + std::string(detail)};
    };
    std::uint64_t v = 0;
    char const* const last = e->value.data() + e->value.size();
    auto const [end, ec] = std::from_chars(e->value.data(), last, v);
    bool const digits_only = end == last && e->value.front() != '-';
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && digits_only && v > max)) {
        return message("is too large");
    }
    if (ec != std::errc() || !digits_only) return message("is not " + std::string(expected));
    return std::optional<std::uint64_t>{v};
}

}  // namespace detail

namespace {

using detail::env_number;
using detail::first_set;

constexpr std::uint64_t bytes_per_mb = 1024 * 1024;  // Slurm's MB are MiB

struct memory_value {
    std::uint64_t bytes = 0;
    std::string source;
};

// SLURM_MEM_PER_NODE, else SLURM_MEM_PER_CPU x the node's CPUs, else the machine's memory:
// an allocation without a memory request is not an error (Torc v0.10 panicked here).
result<memory_value> node_memory(env_map const& env, machine_facts const& machine,
                                 std::uint32_t cpus)
{
    constexpr auto max_mb = UINT64_MAX / bytes_per_mb;
    auto const per_node = env_number(env, "SLURM_MEM_PER_NODE", max_mb, "a whole number of MB");
    if (!per_node) return per_node.error();
    if (*per_node && **per_node == 0) {
        return memory_value{machine.memory_bytes,
                            "SLURM_MEM_PER_NODE=0 (the whole node: machine total memory)"};
    }
    if (*per_node) {
        return memory_value{**per_node * bytes_per_mb,
                            "SLURM_MEM_PER_NODE=" + std::to_string(**per_node) + " (MB)"};
    }
    auto const per_cpu = env_number(env, "SLURM_MEM_PER_CPU", max_mb, "a whole number of MB");
    if (!per_cpu) return per_cpu.error();
    if (*per_cpu) {
        if (cpus != 0 && **per_cpu > max_mb / cpus) {
            return error{"SLURM_MEM_PER_CPU: \"" + std::to_string(**per_cpu) + "\" is too large"};
        }
        return memory_value{**per_cpu * cpus * bytes_per_mb,
                            "SLURM_MEM_PER_CPU=" + std::to_string(**per_cpu) + " (MB) x "
                                + std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs")};
    }
    return memory_value{machine.memory_bytes, "machine total memory (Slurm set none)"};
}

struct cpu_values {
    std::vector<std::uint32_t> per_node;
    std::string source;
};

result<cpu_values> allocation_cpus(env_map const& env, machine_facts const& machine,
                                   std::size_t node_count, std::vector<std::string>& warnings)
{
    if (auto const e = first_set(env, {"SLURM_JOB_CPUS_PER_NODE"})) {
        auto counts = expand_counts(e->value, e->name);
        if (!counts) return counts.error();
        if (counts->size() != node_count) {
            warnings.push_back(e->text() + " gives " + std::to_string(counts->size())
                               + (counts->size() == 1 ? " value" : " values") + " for "
                               + std::to_string(node_count) + " nodes; "
                               + (counts->size() < node_count
                                      ? "the last value is used for the rest"
                                      : "the extra values are ignored"));
            counts->resize(node_count, counts->back());
        }
        return cpu_values{std::move(*counts), e->text()};
    }
    auto const on_node = env_number(env, "SLURM_CPUS_ON_NODE", UINT32_MAX);
    if (!on_node) return on_node.error();
    if (*on_node) {
        return cpu_values{
            std::vector<std::uint32_t>(node_count, static_cast<std::uint32_t>(**on_node)),
            "SLURM_CPUS_ON_NODE=" + std::to_string(**on_node)
                + " (this node's count, assumed for every node)"};
    }
    return cpu_values{std::vector<std::uint32_t>(node_count, machine.cpus),
                      "machine (CPUs usable by this process; Slurm set none)"};
}

// Every node of the job, also seen from inside a step (where SLURM_NNODES is the step's).
result<std::vector<std::string>> job_node_names(env_map const& env, machine_facts const& machine,
                                                std::vector<std::string>& warnings)
{
    auto const list = first_set(env, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"});
    if (!list) {
        auto const local = first_set(env, {"SLURMD_NODENAME"});
        std::string name = local ? std::string(local->value) : machine.host_name;
        warnings.push_back("SLURM_JOB_NODELIST is not set; only this node (" + name + ") is known");
        return std::vector<std::string>{std::move(name)};
    }
    auto names = expand_hostlist(list->value, list->name);
    if (!names) return names.error();
    if (auto const count_var = first_set(env, {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"})) {
        auto const count = env_number(env, count_var->name);
        if (!count) return count.error();
        if (**count != names->size()) {
            warnings.push_back(count_var->text() + " but " + list->text() + " names "
                               + std::to_string(names->size()) + " nodes; using the named nodes");
        }
    }
    return names;
}

// A step's own node: SLURMD_NODENAME, else its entry in SLURM_STEP_NODELIST.
result<std::string> step_node_name(env_map const& env, machine_facts const& machine,
                                   std::vector<std::string>& warnings)
{
    using name = result<std::string>;
    auto const make = [](std::string_view s) { return name(boost::system::in_place_value, s); };
    if (auto const e = first_set(env, {"SLURMD_NODENAME"})) return make(e->value);
    if (auto const list = first_set(env, {"SLURM_STEP_NODELIST"})) {
        auto const names = expand_hostlist(list->value, list->name);
        if (!names) return names.error();
        auto const id = env_number(env, "SLURM_NODEID");
        if (!id) return id.error();
        if (*id && **id < names->size()) return make((*names)[**id]);
        if (!*id && names->size() == 1) return make(names->front());
    }
    warnings.push_back("SLURMD_NODENAME is not set; this node is named by its host name ("
                       + machine.host_name + ")");
    return make(machine.host_name);
}

std::optional<std::size_t> index_of(std::vector<std::string> const& names, std::string const& name,
                                    std::vector<std::string>& warnings)
{
    auto const it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
    warnings.push_back("this node (" + name + ") is not one of the job's nodes ("
                       + compress_hostlist(names) + ")");
    return std::nullopt;
}

// A step that holds only part of the job's CPUs on its node still sees the job's memory value:
// slurmstepd does not export the step's own --mem.
result<void> check_step_memory(env_map const& env, allocation& a, std::uint32_t step_cpus)
{
    auto const mem = first_set(env, {"SLURM_MEM_PER_NODE"});
    auto const job_cpus = first_set(env, {"SLURM_JOB_CPUS_PER_NODE"});
    if (!mem || !job_cpus || mem->value == "0") return {};
    auto const counts = expand_counts(job_cpus->value, job_cpus->name);
    if (!counts) return counts.error();
    auto const& names = a.allocation_nodes;
    auto const it = std::find(names.begin(), names.end(), a.local_node_name);
    auto const index = static_cast<std::size_t>(it - names.begin());
    if (it == names.end() || index >= counts->size() || step_cpus >= (*counts)[index]) return {};
    a.warnings.push_back(mem->text() + " is the job's value, inherited by this step, which holds "
                         + std::to_string(step_cpus) + " of the job's "
                         + std::to_string((*counts)[index]) + " CPUs on " + a.local_node_name
                         + ": the step's own memory limit is not in its environment");
    return {};
}

result<void> fill_step(env_map const& env, machine_facts const& machine, allocation& a)
{
    auto name = step_node_name(env, machine, a.warnings);
    if (!name) return name.error();
    a.local_node_name = std::move(*name);
    index_of(a.allocation_nodes, a.local_node_name, a.warnings);
    auto const on_node = env_number(env, "SLURM_CPUS_ON_NODE", UINT32_MAX);
    if (!on_node) return on_node.error();
    std::uint32_t const cpus = *on_node ? static_cast<std::uint32_t>(**on_node) : machine.cpus;
    std::string cpu_source = *on_node
                                 ? "SLURM_CPUS_ON_NODE=" + std::to_string(cpus) + " (node-local)"
                                 : "machine (CPUs usable by this process; Slurm set none)";
    auto memory = node_memory(env, machine, cpus);
    if (!memory) return memory.error();
    auto gpus = detail::step_gpus(env, a.local_node_name, a.warnings);
    if (!gpus) return gpus.error();
    if (memory->source.starts_with("SLURM_MEM_PER_NODE=")) {
        if (auto checked = check_step_memory(env, a, cpus); !checked) return checked.error();
    }
    node_capacity capacity{a.local_node_name, cpus, memory->bytes, std::move(gpus->ids)};
    a.nodes.push_back({std::move(capacity),
                       {std::move(cpu_source), std::move(memory->source), std::move(gpus->source)},
                       gpus->device_ids});
    a.local_node = 0;
    return {};
}

result<void> fill_allocation(env_map const& env, machine_facts const& machine, allocation& a)
{
    auto const& names = a.allocation_nodes;
    if (auto const local = first_set(env, {"SLURMD_NODENAME"})) {
        a.local_node_name = local->value;
        a.local_node = index_of(names, a.local_node_name, a.warnings);
    }
    auto const cpus = allocation_cpus(env, machine, names.size(), a.warnings);
    if (!cpus) return cpus.error();
    auto gpus = detail::allocation_gpus(env, names, a.local_node, a.warnings);
    if (!gpus) return gpus.error();
    for (std::size_t i = 0; i < names.size(); ++i) {
        auto memory = node_memory(env, machine, cpus->per_node[i]);
        if (!memory) return memory.error();
        auto& g = (*gpus)[i];
        a.nodes.push_back({{names[i], cpus->per_node[i], memory->bytes, std::move(g.ids)},
                           {cpus->source, std::move(memory->source), std::move(g.source)},
                           g.device_ids});
    }
    return {};
}

allocation machine_allocation(env_map const& env, machine_facts const& machine)
{
    allocation a;
    a.local_node_name = machine.host_name;
    auto gpus = detail::machine_gpus(env, machine, a.warnings);
    a.nodes.push_back(
        {{machine.host_name, machine.cpus, machine.memory_bytes, std::move(gpus.ids)},
         {"machine (CPUs usable by this process)", "machine total memory", std::move(gpus.source)},
         gpus.device_ids});
    a.local_node = 0;
    return a;
}

}  // namespace

std::string_view to_string(allocation_scope scope)
{
    switch (scope) {
        case allocation_scope::machine: return "machine";
        case allocation_scope::allocation: return "allocation";
        case allocation_scope::node_task: return "node_task";
    }
    return "unknown";
}

result<allocation> read_allocation(env_map const& env, machine_facts const& machine)
{
    auto const job = first_set(env, {"SLURM_JOB_ID", "SLURM_JOBID"});
    if (!job) return machine_allocation(env, machine);
    allocation a;
    a.in_slurm = true;
    a.job_id = job->value;
    bool const in_step = first_set(env, {"SLURM_STEP_ID", "SLURM_STEPID"}).has_value();
    a.scope = in_step ? allocation_scope::node_task : allocation_scope::allocation;
    auto names = job_node_names(env, machine, a.warnings);
    if (!names) return names.error();
    a.allocation_nodes = std::move(*names);
    auto const end =
        env_number(env, "SLURM_JOB_END_TIME", INT64_MAX, "a number of seconds since the epoch");
    if (!end) return end.error();
    if (*end) a.end_time = static_cast<std::int64_t>(**end);
    auto const filled = in_step ? fill_step(env, machine, a) : fill_allocation(env, machine, a);
    if (!filled) return filled.error();
    return a;
}

}  // namespace torcrun::core
