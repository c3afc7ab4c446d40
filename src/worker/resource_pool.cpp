// The resource pool's state changes and queries: creation, placement, reserve and release.
// The reasons for `never` live in pool_fit.cpp, the invariant checker in pool_invariants.cpp.
#include "torcrun/worker/resource_pool.hpp"

#include <boost/assert.hpp>

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace torcrun::core {

namespace {

std::uint32_t count_free(std::vector<std::optional<reservation_id>> const& gpu_holder)
{
    return static_cast<std::uint32_t>(std::ranges::count(gpu_holder, false, [](auto const& h) {
        return h.has_value();
    }));
}

}  // namespace

result<resource_pool> resource_pool::create(std::vector<node_capacity> nodes)
{
    if (nodes.empty()) return error{"resource pool: the allocation has no nodes"};
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        auto const& node = nodes[i];
        if (node.name.empty())
            return error{"resource pool: node " + std::to_string(i) + " has an empty name"};
        if (!names.insert(node.name).second)
            return error{"resource pool: node name \"" + node.name + "\" appears twice"};
        std::set<std::string_view> gpus;
        for (auto const& gpu : node.gpu_ids) {
            if (gpu.empty())
                return error{"resource pool: node \"" + node.name + "\" lists an empty GPU id"};
            if (!gpus.insert(gpu).second)
                return error{"resource pool: node \"" + node.name + "\" lists GPU \"" + gpu +
                             "\" twice"};
        }
    }
    return resource_pool(std::move(nodes));
}

resource_pool::resource_pool(std::vector<node_capacity> nodes) : capacity_(std::move(nodes))
{
    state_.reserve(capacity_.size());
    for (auto const& node : capacity_) {
        node_state s;
        s.free_cpus = node.cpus;
        s.free_memory_bytes = node.memory_bytes;
        s.gpu_holder.resize(node.gpu_ids.size());
        state_.push_back(std::move(s));
    }
}

std::vector<std::size_t> resource_pool::candidates(node_restriction only) const
{
    std::vector<std::size_t> nodes;
    if (only) {
        if (*only < size()) nodes.push_back(*only);
        return nodes;
    }
    for (std::size_t i = 0; i < size(); ++i) nodes.push_back(i);
    return nodes;
}

// At full capacity, ignoring what is reserved.
bool resource_pool::could_hold(std::size_t node, job_requirement const& req) const
{
    auto const& cap = capacity_[node];
    return req.num_cpus <= cap.cpus && req.memory_bytes <= cap.memory_bytes &&
           req.num_gpus <= cap.gpu_ids.size();
}

bool resource_pool::can_take_now(std::size_t node, job_requirement const& req) const
{
    auto const& s = state_[node];
    return !s.whole_holder && req.num_cpus <= s.free_cpus &&
           req.memory_bytes <= s.free_memory_bytes && req.num_gpus <= count_free(s.gpu_holder);
}

// Best fit: the node left with the fewest free GPUs, then CPUs, then bytes; the first on ties.
// Filling partly used nodes first keeps whole nodes idle for multi-node jobs.
std::optional<std::size_t> resource_pool::best_fit(job_requirement const& req,
                                                   node_restriction only) const
{
    std::optional<std::size_t> best;
    std::tuple<std::uint32_t, std::uint32_t, std::uint64_t> best_left{};
    for (auto i : candidates(only)) {
        if (!can_take_now(i, req)) continue;
        auto const& s = state_[i];
        auto const left = std::tuple(count_free(s.gpu_holder) - req.num_gpus,
                                     s.free_cpus - req.num_cpus,
                                     s.free_memory_bytes - req.memory_bytes);
        if (!best || left < best_left) {
            best = i;
            best_left = left;
        }
    }
    return best;
}

// Multi-node jobs take the first idle nodes in pool order that could hold the job.
std::optional<std::vector<std::size_t>> resource_pool::place(job_requirement const& req,
                                                             node_restriction only) const
{
    if (req.num_nodes == 1) {
        if (auto node = best_fit(req, only)) return std::vector<std::size_t>{*node};
        return std::nullopt;
    }
    std::vector<std::size_t> nodes;
    for (auto i : candidates(only)) {
        if (state_[i].reservation_count != 0 || !could_hold(i, req)) continue;
        nodes.push_back(i);
        if (nodes.size() == req.num_nodes) return nodes;
    }
    return std::nullopt;
}

fit resource_pool::check(job_requirement const& req, node_restriction only) const
{
    if (why_never(req, only)) return fit::never;
    return place(req, only) ? fit::now : fit::not_now;
}

node_share resource_pool::take(std::size_t node, job_requirement const& req, reservation_id id,
                               bool whole)
{
    auto& s = state_[node];
    BOOST_ASSERT(can_take_now(node, req));
    s.free_cpus -= req.num_cpus;
    s.free_memory_bytes -= req.memory_bytes;
    node_share share{node, capacity_[node].name, req.num_cpus, req.memory_bytes, {}};
    // The lowest free ids in capacity order, so the same history gives the same devices.
    for (std::size_t g = 0; g < s.gpu_holder.size() && share.gpu_ids.size() < req.num_gpus; ++g) {
        if (s.gpu_holder[g]) continue;
        s.gpu_holder[g] = id;
        share.gpu_ids.push_back(capacity_[node].gpu_ids[g]);
    }
    ++s.reservation_count;
    if (whole) s.whole_holder = id;
    return share;
}

std::optional<reservation> resource_pool::reserve(job_requirement const& req, reservation_id id,
                                                  node_restriction only)
{
    BOOST_ASSERT_MSG(!holds(id), "resource_pool::reserve: the reservation id is already held");
    if (holds(id) || why_never(req, only)) return std::nullopt;
    auto const nodes = place(req, only);
    if (!nodes) return std::nullopt;
    reservation r{id, req.num_nodes > 1, {}};
    for (auto node : *nodes) r.nodes.push_back(take(node, req, id, r.whole_nodes));
    held_.emplace(id, r);
    return r;
}

void resource_pool::release(reservation_id id)
{
    auto const it = held_.find(id);
    BOOST_ASSERT_MSG(it != held_.end(), "resource_pool::release: the reservation id is not held");
    if (it == held_.end()) return;
    for (auto const& share : it->second.nodes) {
        auto& s = state_[share.node_index];
        s.free_cpus += share.cpus;
        s.free_memory_bytes += share.memory_bytes;
        for (auto& holder : s.gpu_holder)
            if (holder == id) holder.reset();
        --s.reservation_count;
        if (s.whole_holder == id) s.whole_holder.reset();
    }
    held_.erase(it);
}

node_availability resource_pool::available(std::size_t node) const
{
    BOOST_ASSERT(node < size());
    if (node >= size()) return {};
    auto const& s = state_[node];
    if (s.whole_holder) return {};
    node_availability a{s.free_cpus, s.free_memory_bytes, {}};
    for (std::size_t g = 0; g < s.gpu_holder.size(); ++g)
        if (!s.gpu_holder[g]) a.gpu_ids.push_back(capacity_[node].gpu_ids[g]);
    return a;
}

per_node_amounts resource_pool::largest_free_per_node() const
{
    per_node_amounts most;
    for (std::size_t i = 0; i < size(); ++i) {
        auto const a = available(i);
        most.cpus = std::max(most.cpus, a.cpus);
        most.memory_bytes = std::max(most.memory_bytes, a.memory_bytes);
        most.gpus = std::max(most.gpus, static_cast<std::uint32_t>(a.gpu_ids.size()));
    }
    return most;
}

std::size_t resource_pool::idle_node_count() const
{
    return static_cast<std::size_t>(
        std::ranges::count_if(state_, [](auto const& s) { return s.reservation_count == 0; }));
}

}  // namespace torcrun::core
