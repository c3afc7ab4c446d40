// Why a job can never run on this pool, as a sentence for the user. A job is `never` when no
// num_nodes of the usable nodes could hold it even with nothing else reserved; the message names
// the first dimension (CPUs, memory, GPUs) that rules it out and the best the pool offers.
#include "torcrun/worker/resource_pool.hpp"

#include "torcrun/common/units.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace torcrun::core {

namespace {

struct dimension {
    std::string (*amount)(std::uint64_t);  // "4 GPUs", "3.9 GiB"
    std::string_view suffix;
    std::uint64_t (*need)(job_requirement const&);
    std::uint64_t (*offer)(node_capacity const&);
};

std::string cpus(std::uint64_t n) { return count_of(n, "CPU"); }
std::string gpus(std::uint64_t n) { return count_of(n, "GPU"); }

constexpr std::array<dimension, 3> dimensions{{
    {cpus, "", [](job_requirement const& r) -> std::uint64_t { return r.num_cpus; },
     [](node_capacity const& n) -> std::uint64_t { return n.cpus; }},
    {format_size, " of memory", [](job_requirement const& r) { return r.memory_bytes; },
     [](node_capacity const& n) { return n.memory_bytes; }},
    {gpus, "", [](job_requirement const& r) -> std::uint64_t { return r.num_gpus; },
     [](node_capacity const& n) -> std::uint64_t { return n.gpu_ids.size(); }},
}};

std::string need_text(dimension const& d, job_requirement const& req)
{
    return d.amount(d.need(req)) + std::string(d.suffix);
}

// "1 node has", "3 nodes have"
std::string nodes_have(std::size_t n)
{
    return count_of(n, "node") + (n == 1 ? " has" : " have");
}

}  // namespace

std::optional<std::string> resource_pool::why_never(job_requirement const& req,
                                                    node_restriction only) const
{
    if (req.num_nodes == 0) return "needs at least 1 node, num_nodes is 0";
    if (req.num_cpus == 0) return "needs at least 1 CPU per node, num_cpus is 0";
    if (only && *only >= size())
        return "node index " + std::to_string(*only) + " is outside the pool of " +
               count_of(size(), "node");
    auto const usable = candidates(only);
    if (req.num_nodes > usable.size()) {
        if (only)
            return "needs " + count_of(req.num_nodes, "node") + ", only node " +
                   capacity_[*only].name + " may be used";
        return "needs " + count_of(req.num_nodes, "node") + ", the pool has " +
               count_of(size(), "node");
    }
    auto const holding = std::ranges::count_if(usable, [&](auto i) { return could_hold(i, req); });
    if (static_cast<std::size_t>(holding) >= req.num_nodes) return std::nullopt;

    auto const on_nodes = req.num_nodes == 1 ? std::string(" per node")
                                             : " per node on " + count_of(req.num_nodes, "node");
    for (auto const& d : dimensions) {
        auto const offering = std::ranges::count_if(
            usable, [&](auto i) { return d.offer(capacity_[i]) >= d.need(req); });
        if (static_cast<std::size_t>(offering) >= req.num_nodes) continue;
        auto const text = "needs " + need_text(d, req) + on_nodes + ", ";
        if (req.num_nodes > 1) return text + nodes_have(offering) + " that many";
        auto const largest = *std::ranges::max_element(usable, {}, [&](auto i) {
            return d.offer(capacity_[i]);
        });  // the first of equals
        auto const most = d.amount(d.offer(capacity_[largest]));
        if (usable.size() == 1) return text + "node " + capacity_[largest].name + " has " + most;
        return text + "the largest node has " + most + " (" + capacity_[largest].name + ")";
    }
    auto const text = "needs " + need_text(dimensions[0], req) + ", " +
                      need_text(dimensions[1], req) + " and " + need_text(dimensions[2], req) +
                      on_nodes + ", ";
    if (req.num_nodes == 1) return text + "no node has all three";
    return text + nodes_have(holding) + " all three";
}

}  // namespace torcrun::core
