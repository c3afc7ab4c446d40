// The never-fit comparison: nodes first (more than the allocation has), then each dimension
// (CPUs, memory, GPUs) on its own against the nodes that offer it, then the combination, then
// the runtime against the time left. The job's amounts are written as the user wrote them where
// the server keeps the text (memory, runtime).
#include "torcrun/worker/never_fits.hpp"

#include "torcrun/common/units.hpp"
#include "torcrun/worker/resource_pool.hpp"

#include <algorithm>
#include <cmath>

namespace torcrun::core {

namespace {

struct dimension {
    std::uint64_t need;
    std::string need_text;                     // "4 CPUs", "1000g of memory"
    std::string (*offer_text)(std::uint64_t);  // "1 CPU", "3.9 GiB of memory"
    std::uint64_t (*offer)(node_capacity const&);
};

std::string cpus_text(std::uint64_t n) { return count_of(n, "CPU"); }
std::string gpus_text(std::uint64_t n) { return count_of(n, "GPU"); }
std::string memory_text(std::uint64_t n) { return format_size(n) + " of memory"; }

// "; this allocation has 1 CPU per node", "; the largest node has 2 GPUs", "; only 1 node has
// that many"
std::string offered(dimension const& d, std::vector<node_capacity> const& nodes,
                    std::uint32_t num_nodes, std::size_t offering)
{
    auto const [lo, hi] = std::ranges::minmax(nodes, {}, d.offer);
    if (d.offer(lo) == d.offer(hi))
        return "this allocation has " + d.offer_text(d.offer(hi)) + " per node";
    if (num_nodes == 1) return "the largest node has " + d.offer_text(d.offer(hi)) + " (" + hi.name + ")";
    if (offering == 0) return "no node has that many";
    return "only " + count_of(offering, "node") + (offering == 1 ? " has" : " have") +
           " that many";
}

std::string seconds_text(double s)
{
    return std::to_string(static_cast<std::int64_t>(std::floor(std::max(0.0, s)))) + " s";
}

}  // namespace

bool serves_label(ready_job const& job, std::optional<std::string> const& worker_label)
{
    return job.label == worker_label;
}

std::string label_not_served(ready_job const& job, std::optional<std::string> const& worker_label)
{
    auto const quote = [](std::string const& s) { return "\"" + s + "\""; };
    auto const who = "job " + std::to_string(job.id) + " " + quote(job.name) + " ";
    auto const mine = worker_label ? "this worker claims only jobs labelled " + quote(*worker_label)
                                   : std::string("this worker claims only unlabelled jobs");
    auto const theirs = job.label ? "a worker started with --label " + *job.label + " claims it"
                                  : std::string("a worker started without --label claims it");
    return who + (job.label ? "has label " + quote(*job.label) : std::string("has no label")) +
           "; " + mine + " (" + theirs + ")";
}

std::optional<std::string> never_fits(ready_job const& job, std::vector<node_capacity> const& nodes,
                                      std::optional<double> seconds_left, double grace_seconds)
{
    auto const& need = job.resources.need;
    auto const who = "job " + std::to_string(job.id) + " \"" + job.name + "\" ";
    auto const head = who + "needs ";
    auto pool = resource_pool::create(nodes);
    if (!pool) return head + "a pool: " + pool.error().message;  // not reached: the worker's pool
    if (pool->check(need) == fit::never) {
        if (need.num_nodes == 0 || need.num_cpus == 0) return who + pool->why_never(need).value_or("");
        if (need.num_nodes > nodes.size())
            return head + count_of(need.num_nodes, "node") + "; this allocation has " +
                   count_of(nodes.size(), "node");
        auto const on = need.num_nodes > 1 ? " on each of " + count_of(need.num_nodes, "node") : "";
        std::string const memory = job.memory.empty() ? format_size(need.memory_bytes) : job.memory;
        dimension const dims[] = {
            {need.num_cpus, cpus_text(need.num_cpus), cpus_text,
             [](node_capacity const& n) -> std::uint64_t { return n.cpus; }},
            {need.memory_bytes, memory + " of memory", memory_text,
             [](node_capacity const& n) -> std::uint64_t { return n.memory_bytes; }},
            {need.num_gpus, gpus_text(need.num_gpus), gpus_text,
             [](node_capacity const& n) -> std::uint64_t { return n.gpu_ids.size(); }},
        };
        for (auto const& d : dims) {
            auto const offering = static_cast<std::size_t>(
                std::ranges::count_if(nodes, [&](auto const& n) { return d.offer(n) >= d.need; }));
            if (offering >= need.num_nodes) continue;
            return head + d.need_text + on + "; " + offered(d, nodes, need.num_nodes, offering);
        }
        return head + dims[0].need_text + ", " + dims[1].need_text + " and " + dims[2].need_text +
               (need.num_nodes > 1 ? on : " on one node") + "; no " +
               (need.num_nodes > 1 ? std::string("such set of nodes") : std::string("node")) +
               " of this allocation has all three";
    }
    auto const runtime = job.resources.runtime_seconds;
    if (seconds_left && runtime && *runtime > *seconds_left + grace_seconds) {
        auto const text = job.runtime.empty() ? seconds_text(*runtime) : job.runtime;
        auto const grace =
            grace_seconds > 0 ? " (and a " + seconds_text(grace_seconds) + " grace)" : "";
        return head + "a runtime of " + text + "; this allocation has " +
               seconds_text(*seconds_left) + " left" + grace;
    }
    return std::nullopt;
}

}  // namespace torcrun::core
