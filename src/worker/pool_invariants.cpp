// The pool's invariant checker, for tests and for the worker's per-transition checks. It cross-
// checks the reservations against the per-node state and the per-node sums against capacity,
// so an unsigned underflow (free amounts wrapping to huge values) cannot go unnoticed.
#include "torcrun/worker/resource_pool.hpp"

#include <algorithm>
#include <limits>

namespace torcrun::core {

namespace {

std::string name_of(reservation_id id)
{
    return "reservation " + std::to_string(static_cast<std::int64_t>(id));
}

std::string quoted(std::string const& text)
{
    return '"' + text + '"';
}

// Saturates instead of wrapping: any sum above capacity is a violation anyway.
std::uint64_t add_saturated(std::uint64_t a, std::uint64_t b)
{
    return b > std::numeric_limits<std::uint64_t>::max() - a
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
}

std::optional<std::string> check_sum(std::string const& node, std::string const& unit,
                                     std::uint64_t free, std::uint64_t reserved,
                                     std::uint64_t capacity)
{
    auto const amounts = [&](std::uint64_t n) { return std::to_string(n) + ' ' + unit; };
    if (free > capacity)
        return node + ": " + amounts(free) + " free, above the capacity of " + amounts(capacity);
    if (reserved > capacity)
        return node + ": reservations take " + amounts(reserved) + ", above the capacity of " +
               amounts(capacity);
    if (add_saturated(free, reserved) != capacity)
        return node + ": " + amounts(free) + " free + " + amounts(reserved) +
               " reserved != capacity " + amounts(capacity);
    return std::nullopt;
}

}  // namespace

// Allocates only to describe a violation: the worker may run this on every transition.
std::optional<std::string> resource_pool::check_reservation(reservation const& r) const
{
    auto const who = [&] { return name_of(r.id) + ": "; };
    for (auto share = r.nodes.begin(); share != r.nodes.end(); ++share) {
        auto const node = share->node_index;
        if (node >= size())
            return who() + "node index " + std::to_string(node) + " is outside the pool";
        auto const& cap = capacity_[node];
        auto const& s = state_[node];
        if (share->node_name != cap.name)
            return who() + "node " + std::to_string(node) + " is named " + quoted(cap.name) +
                   ", not " + quoted(share->node_name);
        if (std::any_of(r.nodes.begin(), share, [&](auto& n) { return n.node_index == node; }))
            return who() + "lists " + cap.name + " twice";
        if (r.whole_nodes && s.whole_holder != r.id)
            return who() + "holds " + cap.name + " whole, the node does not say so";
        if (!r.whole_nodes && s.whole_holder == r.id)
            return who() + "does not hold " + cap.name + " whole, the node says so";
        for (auto const& gpu : share->gpu_ids) {
            auto const at = std::ranges::find(cap.gpu_ids, gpu);
            if (at == cap.gpu_ids.end())
                return who() + "GPU " + quoted(gpu) + " is not a GPU of " + cap.name;
            if (std::ranges::count(share->gpu_ids, gpu) != 1)
                return who() + "lists GPU " + quoted(gpu) + " of " + cap.name + " twice";
            auto const& holder = s.gpu_holder[static_cast<std::size_t>(at - cap.gpu_ids.begin())];
            if (holder != r.id)
                return who() + "GPU " + quoted(gpu) + " of " + cap.name + " is " +
                       (holder ? "held by " + name_of(*holder) : std::string("marked free"));
        }
    }
    return std::nullopt;
}

std::optional<std::string> resource_pool::check_node(std::size_t node) const
{
    auto const& cap = capacity_[node];
    auto const& s = state_[node];
    std::uint64_t cpus = 0;
    std::uint64_t bytes = 0;
    std::uint32_t users = 0;
    for (auto const& [id, r] : held_) {
        for (auto const& share : r.nodes) {
            if (share.node_index != node) continue;
            cpus = add_saturated(cpus, share.cpus);
            bytes = add_saturated(bytes, share.memory_bytes);
            ++users;
        }
    }
    if (auto bad = check_sum(cap.name, "CPUs", s.free_cpus, cpus, cap.cpus)) return bad;
    if (auto bad = check_sum(cap.name, "bytes", s.free_memory_bytes, bytes, cap.memory_bytes))
        return bad;
    if (s.reservation_count != users)
        return cap.name + ": reservation count " + std::to_string(s.reservation_count) +
               " != " + std::to_string(users) + " found";
    if (s.whole_holder) {
        auto const it = held_.find(*s.whole_holder);
        auto const who = [&] { return cap.name + ": held whole by " + name_of(*s.whole_holder); };
        if (it == held_.end()) return who() + ", which does not exist";
        if (std::ranges::none_of(it->second.nodes, [&](auto& n) { return n.node_index == node; }))
            return who() + ", which does not use it";
        if (users != 1)
            return who() + ", but " + std::to_string(users) + " reservations use the node";
    }
    for (std::size_t g = 0; g < s.gpu_holder.size(); ++g) {
        if (!s.gpu_holder[g]) continue;
        auto const gpu = [&] { return quoted(cap.gpu_ids[g]); };
        auto const it = held_.find(*s.gpu_holder[g]);
        if (it == held_.end())
            return cap.name + ": GPU " + gpu() + " is held by " + name_of(*s.gpu_holder[g]) +
                   ", which does not exist";
        auto const listed = std::ranges::any_of(it->second.nodes, [&](auto const& share) {
            return share.node_index == node && std::ranges::count(share.gpu_ids, cap.gpu_ids[g]);
        });
        if (!listed)
            return cap.name + ": GPU " + gpu() + " is held by " + name_of(it->first) +
                   ", which does not list it";
    }
    return std::nullopt;
}

// Shapes first, then reservations: the later checks index with what the earlier ones checked.
std::optional<std::string> resource_pool::check_invariants() const
{
    if (state_.size() != capacity_.size())
        return "pool: the node state has " + std::to_string(state_.size()) +
               " entries, the capacity lists " + std::to_string(capacity_.size()) + " nodes";
    for (std::size_t node = 0; node < size(); ++node) {
        auto const tracked = state_[node].gpu_holder.size();
        if (tracked != capacity_[node].gpu_ids.size())
            return capacity_[node].name + ": the GPU state has " + std::to_string(tracked) +
                   " entries, the capacity lists " +
                   std::to_string(capacity_[node].gpu_ids.size()) + " GPU ids";
    }
    for (auto const& [id, r] : held_) {
        if (r.id != id)
            return name_of(id) + ": stored under the id of " + name_of(r.id);
        if (auto bad = check_reservation(r)) return bad;
    }
    for (std::size_t node = 0; node < size(); ++node)
        if (auto bad = check_node(node)) return bad;
    return std::nullopt;
}

}  // namespace torcrun::core
