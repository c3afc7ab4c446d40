// Formatting only: every fact shown here was decided by read_allocation and choose_mode.
#include "torcrun/slurm/allocation_report.hpp"

#include "torcrun/slurm/hostlist.hpp"
#include "torcrun/common/concat.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <string_view>

namespace torcrun::core {

namespace {

namespace json = boost::json;

std::string two_digits(unsigned v)
{
    std::string s = std::to_string(v);
    if (s.size() < 2) s.insert(s.begin(), '0');
    return s;
}

// Epoch seconds as ISO-8601 UTC, by calendar arithmetic (no clock, no time zone database).
std::string utc_text(std::int64_t epoch)
{
    using namespace std::chrono;
    sys_seconds const t{seconds{epoch}};
    auto const day = floor<days>(t);
    year_month_day const ymd{day};
    hh_mm_ss const hms{t - day};
    return std::to_string(static_cast<int>(ymd.year())) + "-"
           + two_digits(static_cast<unsigned>(ymd.month())) + "-"
           + two_digits(static_cast<unsigned>(ymd.day())) + "T"
           + two_digits(static_cast<unsigned>(hms.hours().count())) + ":"
           + two_digits(static_cast<unsigned>(hms.minutes().count())) + ":"
           + two_digits(static_cast<unsigned>(hms.seconds().count())) + "Z";
}

std::string gpu_text(allocation_node const& n)
{
    auto const& ids = n.capacity.gpu_ids;
    if (ids.empty()) return "none";
    if (!n.gpu_ids_are_device_ids) return std::to_string(ids.size()) + " (ids assigned by Slurm)";
    return join(ids, ",");
}

std::string scope_text(allocation const& a)
{
    switch (a.scope) {
        case allocation_scope::machine: return "machine (not in a Slurm allocation)";
        case allocation_scope::allocation:
            return "allocation (Slurm job " + a.job_id + "; this process sees every node)";
        case allocation_scope::node_task:
            return "node_task (Slurm job " + a.job_id + "; one task of a step: its own node only)";
    }
    return "unknown";
}

std::string local_text(allocation const& a)
{
    if (a.local_node) return a.local_node_name;
    if (a.local_node_name.empty()) return "none (this process is not on a node of the allocation)";
    return "none (" + a.local_node_name + " is not a node of the allocation)";
}

std::string end_text(allocation const& a)
{
    if (!a.end_time) return "unknown (SLURM_JOB_END_TIME is not set)";
    return std::to_string(*a.end_time) + " (" + utc_text(*a.end_time) + ")";
}

struct totals {
    std::uint64_t cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::uint64_t gpus = 0;
};

totals sum(allocation const& a)
{
    totals t;
    for (auto const& n : a.nodes) {
        t.cpus += n.capacity.cpus;
        t.memory_bytes += n.capacity.memory_bytes;
        t.gpus += n.capacity.gpu_ids.size();
    }
    return t;
}

std::vector<std::string> pool_names(mode_decision const& d)
{
    std::vector<std::string> names;
    for (auto const& n : d.pool) names.push_back(n.name);
    return names;
}

std::string node_text(allocation const& a, std::size_t i)
{
    auto const& n = a.nodes[i];
    return "  " + n.capacity.name + (a.local_node == i ? " (local)" : "") + ": "
           + count_of(n.capacity.cpus, "CPU") + ", " + format_size(n.capacity.memory_bytes) + " ("
           + std::to_string(n.capacity.memory_bytes) + " bytes), GPUs: " + gpu_text(n)
           + "\n    cpus from " + n.sources.cpus + "\n    memory from " + n.sources.memory
           + "\n    gpus from " + n.sources.gpus + "\n";
}

json::array strings(std::vector<std::string> const& items)
{
    json::array out;
    for (auto const& s : items) out.emplace_back(s);
    return out;
}

json::object node_json(allocation const& a, std::size_t i)
{
    auto const& n = a.nodes[i];
    return {{"name", n.capacity.name},
            {"local", a.local_node == i},
            {"cpus", n.capacity.cpus},
            {"memory_bytes", n.capacity.memory_bytes},
            {"memory", format_size(n.capacity.memory_bytes)},
            {"gpus", n.capacity.gpu_ids.size()},
            {"gpu_ids", strings(n.capacity.gpu_ids)},
            {"gpu_ids_are_device_ids", n.gpu_ids_are_device_ids},
            {"sources",
             {{"cpus", n.sources.cpus}, {"memory", n.sources.memory}, {"gpus", n.sources.gpus}}}};
}

std::vector<std::string> all_warnings(allocation const& a, mode_decision const& d)
{
    auto out = a.warnings;
    out.insert(out.end(), d.warnings.begin(), d.warnings.end());
    return out;
}

}  // namespace

std::string format_allocation_text(allocation const& a, requested_mode requested,
                                   mode_decision const& decision)
{
    auto const t = sum(a);
    std::string out = "scope: " + scope_text(a) + "\n";
    if (a.in_slurm) out += "allocation nodes: " + compress_hostlist(a.allocation_nodes) + "\n";
    out += "local node: " + local_text(a) + "\nend time: " + end_text(a) + "\n";
    out += "nodes: " + std::to_string(a.nodes.size()) + ", " + count_of(t.cpus, "CPU") + ", "
           + format_size(t.memory_bytes) + ", " + count_of(t.gpus, "GPU") + "\n";
    for (std::size_t i = 0; i < a.nodes.size(); ++i) out += node_text(a, i);
    out += "mode: " + std::string(to_string(decision.mode)) + " (requested "
           + std::string(to_string(requested)) + "): " + decision.reason + "\n";
    out += "pool: " + compress_hostlist(pool_names(decision)) + "\n";
    if (requested != requested_mode::auto_) {
        auto const automatic = choose_mode(a, requested_mode::auto_).value();
        out += "auto would pick: " + std::string(to_string(automatic.mode)) + ": "
               + automatic.reason + "\n";
    }
    auto const warnings = all_warnings(a, decision);
    out += warnings.empty() ? "warnings: none\n" : "warnings:\n";
    for (auto const& w : warnings) out += "  - " + w + "\n";
    return out;
}

boost::json::value allocation_to_json(allocation const& a, requested_mode requested,
                                      mode_decision const& decision)
{
    auto const t = sum(a);
    auto const automatic = choose_mode(a, requested_mode::auto_).value();
    json::array nodes;
    for (std::size_t i = 0; i < a.nodes.size(); ++i) nodes.push_back(node_json(a, i));
    json::object out{
        {"in_slurm", a.in_slurm},
        {"job_id", a.in_slurm ? json::value(a.job_id) : json::value(nullptr)},
        {"scope", to_string(a.scope)},
        {"local_node", a.local_node ? json::value(a.local_node_name) : json::value(nullptr)},
        {"end_time", a.end_time ? json::value(*a.end_time) : json::value(nullptr)},
        {"allocation_nodes", strings(a.allocation_nodes)},
        {"nodes", std::move(nodes)},
        {"totals",
         {{"nodes", a.nodes.size()},
          {"cpus", t.cpus},
          {"memory_bytes", t.memory_bytes},
          {"memory", format_size(t.memory_bytes)},
          {"gpus", t.gpus}}},
        {"mode",
         {{"requested", to_string(requested)},
          {"chosen", to_string(decision.mode)},
          {"reason", decision.reason},
          {"pool", strings(pool_names(decision))}}},
        {"auto", {{"mode", to_string(automatic.mode)}, {"reason", automatic.reason}}},
        {"warnings", strings(all_warnings(a, decision))}};
    return out;
}

}  // namespace torcrun::core
