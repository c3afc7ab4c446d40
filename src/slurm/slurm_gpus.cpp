// GPUs from the environment: the list and count notations Slurm and the GPU runtimes write,
// and which node each GPU variable describes. A visible-device list (CUDA_VISIBLE_DEVICES,
// SLURM_STEP_GPUS, SLURM_JOB_GPUS, ROCR_VISIBLE_DEVICES) describes this node only; a per-node count
// (SLURM_GPUS_PER_NODE, SLURM_GPUS_ON_NODE, SLURM_GPUS / nodes) is what the other nodes get.
// Mixing the two up is Torc #249: 4 local ids read as the whole allocation, or multiplied.
#include "torcrun/slurm/slurm_gpus.hpp"

#include "slurm_env_detail.hpp"

#include <algorithm>
#include <cstdint>
#include <span>

namespace torcrun::core {

namespace {

std::string_view trim(std::string_view s)
{
    auto const first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool all_digits(std::string_view s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

struct device_variable {
    std::string_view name;
    bool strip_gres_prefix;
};

constexpr device_variable slurm_order[] = {{"CUDA_VISIBLE_DEVICES", false},
                                           {"SLURM_STEP_GPUS", true},
                                           {"SLURM_JOB_GPUS", true},
                                           {"ROCR_VISIBLE_DEVICES", false}};
// SLURM_JOB_GPUS is set in the batch script only and names the batch host's GPUs; a step
// inherits it on every node, so inside a step it describes no node but that one.
constexpr device_variable step_order[] = {
    {"CUDA_VISIBLE_DEVICES", false}, {"SLURM_STEP_GPUS", true}, {"ROCR_VISIBLE_DEVICES", false}};
constexpr device_variable machine_order[] = {{"CUDA_VISIBLE_DEVICES", false},
                                             {"ROCR_VISIBLE_DEVICES", false}};

// The variable that decided this node's GPUs, with its ids (duplicates removed).
struct visible_list {
    detail::env_entry entry;
    std::vector<std::string> ids;
};

std::string gpus_text(std::size_t n)
{
    return std::to_string(n) + (n == 1 ? " GPU" : " GPUs");
}

// A GPU listed twice would be handed to two jobs at once; it is counted once.
std::vector<std::string> without_duplicates(detail::env_entry const& entry,
                                            std::vector<std::string> ids,
                                            std::vector<std::string>& warnings)
{
    std::vector<std::string> unique;
    std::vector<std::string> reported;
    for (auto& id : ids) {
        if (std::find(unique.begin(), unique.end(), id) == unique.end()) {
            unique.push_back(std::move(id));
        } else if (std::find(reported.begin(), reported.end(), id) == reported.end()) {
            warnings.push_back(entry.text() + " lists \"" + id
                               + "\" more than once; it is counted once");
            reported.push_back(id);
        }
    }
    return unique;
}

// An empty CUDA_VISIBLE_DEVICES hides every GPU from CUDA, so it decides (zero GPUs); the
// other variables count as unset when empty. NoDevFiles names no device: look further.
std::optional<visible_list> find_visible(env_map const& env, std::span<device_variable const> order,
                                         std::vector<std::string>& warnings)
{
    for (auto const& var : order) {
        auto const value = lookup(env, var.name);
        if (!value) continue;
        detail::env_entry const entry{var.name, *value};
        auto ids = parse_device_list(*value, var.strip_gres_prefix);
        if (value->find_first_not_of(" \t") == std::string_view::npos) {
            if (var.name == "CUDA_VISIBLE_DEVICES") return visible_list{entry, {}};
            continue;
        }
        if (ids.size() == 1 && ids.front() == "NoDevFiles") {
            warnings.push_back(entry.text()
                               + ": Slurm allocated GPUs without device files; ids unknown");
            continue;
        }
        return visible_list{entry, without_duplicates(entry, std::move(ids), warnings)};
    }
    return std::nullopt;
}

detail::node_gpus from_list(visible_list const& v)
{
    return {v.ids, true, v.entry.text() + (v.ids.empty() ? " (no GPU visible)" : " (node-local)")};
}

// The list actually used against Slurm's own view of the same node.
void check_list(env_map const& env, visible_list const& used, std::string_view slurm_list,
                std::optional<std::uint64_t> on_node, std::vector<std::string>& warnings)
{
    auto const other = detail::first_set(env, {slurm_list});
    if (other && other->name != used.entry.name) {
        auto const n = parse_device_list(other->value, true).size();
        if (n != used.ids.size()) {
            warnings.push_back(used.entry.text() + " lists " + gpus_text(used.ids.size()) + " but "
                               + other->text() + " lists " + std::to_string(n) + "; using "
                               + std::string(used.entry.name));
        }
    }
    if (on_node && *on_node != used.ids.size()) {
        warnings.push_back("SLURM_GPUS_ON_NODE=" + std::to_string(*on_node) + " but "
                           + used.entry.text() + " lists " + gpus_text(used.ids.size())
                           + "; using the listed ids");
    }
}

struct per_node_count {
    std::uint32_t count = 0;
    std::string source;
};

// More GPUs per node than any machine has is a wrong variable, not a node: refused before a
// list of that many ids is made for every node.
constexpr std::uint32_t max_gpus_per_node = 1024;

// SLURM_GPUS_PER_NODE is the request for every node; SLURM_GPUS_ON_NODE is this node's count,
// assumed for the others; SLURM_GPUS is the allocation total, spread evenly.
result<std::optional<per_node_count>> slurm_per_node_count(env_map const& env,
                                                           std::size_t node_count,
                                                           std::vector<std::string>& warnings)
{
    if (auto const e = detail::first_set(env, {"SLURM_GPUS_PER_NODE"})) {
        auto const n = parse_gpu_count(e->value, e->name);
        if (!n) return n.error();
        return per_node_count{*n, e->text() + " (per node; ids assigned by Slurm)"};
    }
    auto const on_node = detail::env_number(env, "SLURM_GPUS_ON_NODE", UINT32_MAX);
    if (!on_node) return on_node.error();
    if (*on_node) {
        return per_node_count{static_cast<std::uint32_t>(**on_node),
                              "SLURM_GPUS_ON_NODE=" + std::to_string(**on_node)
                                  + " (this node's count, assumed for every node; "
                                    "ids assigned by Slurm)"};
    }
    if (auto const e = detail::first_set(env, {"SLURM_GPUS"})) {
        auto const total = parse_gpu_count(e->value, e->name);
        if (!total) return total.error();
        auto const each = static_cast<std::uint32_t>(*total / node_count);
        std::string const nodes =
            std::to_string(node_count) + (node_count == 1 ? " node" : " nodes");
        if (*total % node_count != 0) {
            warnings.push_back(e->text() + " does not divide evenly over " + nodes + "; "
                               + std::to_string(each) + " per node is assumed");
        }
        return per_node_count{each, e->text() + " over " + nodes + " (ids assigned by Slurm)"};
    }
    return std::optional<per_node_count>{};
}

// This node's GPUs known by count only: Slurm binds the devices when it starts a step.
detail::node_gpus counted_here(std::uint64_t on_node)
{
    return {detail::ordinals(static_cast<std::uint32_t>(on_node)), false,
            "SLURM_GPUS_ON_NODE=" + std::to_string(on_node)
                + " (node-local count; ids assigned by Slurm)"};
}

}  // namespace

std::vector<std::string> parse_device_list(std::string_view value, bool strip_gres_prefix)
{
    std::vector<std::string> ids;
    while (true) {
        auto const comma = value.find(',');
        std::string_view id = trim(value.substr(0, comma));
        if (strip_gres_prefix && (id.starts_with("gpu:") || id.starts_with("GPU:"))) {
            id = trim(id.substr(4));
        }
        if (id == "-1") break;
        if (!id.empty()) ids.emplace_back(id);
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return ids;
}

result<std::uint32_t> parse_gpu_count(std::string_view value, std::string_view what)
{
    auto const bad = [&](std::string_view detail) {
        return error{std::string(what) + ": \"" + std::string(value) + "\" " + std::string(detail)};
    };
    std::uint64_t total = 0;
    std::string_view rest = value;
    while (true) {
        auto const comma = rest.find(',');
        std::string_view const item = rest.substr(0, comma);
        auto const colon = item.rfind(':');
        std::string_view const count =
            colon == std::string_view::npos ? item : item.substr(colon + 1);
        std::string_view const names =
            colon == std::string_view::npos ? "x" : item.substr(0, colon);
        bool const names_ok = !names.empty() && names.front() != ':' && names.back() != ':'
                              && names.find("::") == std::string_view::npos;
        if (!all_digits(count) || !names_ok) {
            return bad("is not a GPU count (N or [gpu:][type:]N, comma-separated)");
        }
        if (count.size() > 10 || (total += std::stoull(std::string(count))) > UINT32_MAX) {
            return bad("is too large");
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return static_cast<std::uint32_t>(total);
}

namespace detail {

std::vector<std::string> ordinals(std::uint32_t count)
{
    std::vector<std::string> ids;
    for (std::uint32_t i = 0; i < count; ++i) ids.push_back(std::to_string(i));
    return ids;
}

node_gpus machine_gpus(env_map const& env, machine_facts const& machine,
                       std::vector<std::string>& warnings)
{
    if (auto const visible = find_visible(env, machine_order, warnings)) return from_list(*visible);
    if (!machine.gpu_ids.empty()) return {machine.gpu_ids, true, "machine (devices found here)"};
    return {{}, true, "machine (no GPU found)"};
}

result<node_gpus> step_gpus(env_map const& env, std::string_view node_name,
                            std::vector<std::string>& warnings)
{
    auto const on_node = env_number(env, "SLURM_GPUS_ON_NODE", UINT32_MAX);
    if (!on_node) return on_node.error();
    node_gpus gpus{{}, false, "none (this step has no GPU variable)"};
    if (auto const visible = find_visible(env, step_order, warnings)) {
        check_list(env, *visible, "SLURM_STEP_GPUS", *on_node, warnings);
        gpus = from_list(*visible);
    } else if (*on_node) {
        gpus = counted_here(**on_node);
    }
    if (auto const job = first_set(env, {"SLURM_GPUS_PER_NODE"})) {
        auto const n = parse_gpu_count(job->value, job->name);
        if (!n) return n.error();
        if (*n != gpus.ids.size()) {
            warnings.push_back(
                job->text() + " is the job's value, inherited by this step, which has "
                + gpus_text(gpus.ids.size()) + " on " + std::string(node_name)
                + ": a nested srun reads it as --gpus-per-node=" + std::string(job->value));
        }
    }
    return gpus;
}

result<std::vector<node_gpus>> allocation_gpus(env_map const& env,
                                               std::vector<std::string> const& names,
                                               std::optional<std::size_t> local,
                                               std::vector<std::string>& warnings)
{
    auto const on_node = env_number(env, "SLURM_GPUS_ON_NODE", UINT32_MAX);
    if (!on_node) return on_node.error();
    auto per_node = slurm_per_node_count(env, names.size(), warnings);
    if (!per_node) return per_node.error();
    if (*per_node && (*per_node)->count > max_gpus_per_node) {
        return error{(*per_node)->source + ": " + std::to_string((*per_node)->count)
                     + " GPUs per node is more than torcrun accepts ("
                     + std::to_string(max_gpus_per_node) + ")"};
    }

    std::optional<node_gpus> local_gpus;
    if (local) {
        if (auto const visible = find_visible(env, slurm_order, warnings)) {
            check_list(env, *visible, "SLURM_JOB_GPUS", *on_node, warnings);
            local_gpus = from_list(*visible);
        } else if (*on_node) {
            local_gpus = counted_here(**on_node);
        }
    }
    auto const requested = first_set(env, {"SLURM_GPUS_PER_NODE"});
    if (local_gpus && requested && (*per_node)->count != local_gpus->ids.size()) {
        warnings.push_back(requested->text() + " but this node (" + names[*local] + ") has "
                           + gpus_text(local_gpus->ids.size())
                           + "; the other nodes are assumed to have "
                           + std::to_string((*per_node)->count));
    }
    if (!*per_node && local_gpus && local_gpus->device_ids) {
        // Nothing says what the other nodes hold: assume they match this one, never that this
        // node's list is the whole allocation's.
        *per_node = per_node_count{static_cast<std::uint32_t>(local_gpus->ids.size()),
                                   names[*local] + "'s " + gpus_text(local_gpus->ids.size())
                                       + ", assumed for every node (ids assigned by Slurm)"};
    }
    std::vector<node_gpus> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (local_gpus && local == i) out.push_back(*local_gpus);
        else if (*per_node)
            out.push_back({ordinals((*per_node)->count), false, (*per_node)->source});
        else out.push_back({{}, false, "none (no GPU variable set)"});
    }
    return out;
}

}  // namespace detail

}  // namespace torcrun::core
