// The resource pool: what the worker's nodes offer, what is free on each node right now and
// which reservation holds what. It places jobs (best fit for single-node jobs, whole idle nodes
// for multi-node jobs) and never oversubscribes: free amounts never go below zero and each GPU
// id is held by at most one reservation (Torc's #246 panic and round-robin fallback,
// docs/TORC-COMPATIBILITY.md §2.6). All amounts are per node, as in Torc; nothing here is
// allocation-wide.
//
// Zero requirements: num_nodes == 0 and num_cpus == 0 can never run (Torc requires both >= 1);
// num_gpus == 0 and memory_bytes == 0 take nothing of that kind.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/resources.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

// The caller's key for one reservation (the worker uses the job id). A distinct type, so a node
// index or a count cannot be passed where an id is meant: `reservation_id{42}`.
enum class reservation_id : std::int64_t {};

enum class fit {
    now,      // reserve() succeeds now
    not_now,  // would fit the empty pool, not the current free state
    never,    // no num_nodes nodes of the pool could ever hold it
};

// One node's part of a reservation: the job's per-node requirement and the GPU ids given.
struct node_share {
    std::size_t node_index = 0;
    std::string node_name;
    std::uint32_t cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::vector<std::string> gpu_ids;  // in the node's capacity order

    bool operator==(node_share const&) const = default;
};

struct reservation {
    reservation_id id{};
    bool whole_nodes = false;       // multi-node: each listed node is held exclusively
    std::vector<node_share> nodes;  // in pool order, each node once

    bool operator==(reservation const&) const = default;
};

// What a new job could use on one node now. A node held whole offers nothing.
struct node_availability {
    std::uint32_t cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::vector<std::string> gpu_ids;  // free ids, in the node's capacity order

    bool operator==(node_availability const&) const = default;
};

// Per-dimension amounts; as a maximum, each dimension may come from a different node.
struct per_node_amounts {
    std::uint32_t cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::uint32_t gpus = 0;

    bool operator==(per_node_amounts const&) const = default;
};

// Which nodes a job may use: all of them (nullopt), or one node index (direct mode: the
// worker's own node). An index outside the pool makes every job `never`.
using node_restriction = std::optional<std::size_t>;

class resource_pool {
public:
    // Rejects an empty node list, empty or repeated node names and empty or repeated GPU ids
    // within a node (the same id on two nodes is fine: ids are node-local).
    static result<resource_pool> create(std::vector<node_capacity> nodes);

    fit check(job_requirement const& req, node_restriction only = {}) const;

    // Why check() says `never`, for the user ("needs 8 GPUs per node, the largest node has 4
    // (n1)"); nullopt when it does not.
    std::optional<std::string> why_never(job_requirement const& req,
                                         node_restriction only = {}) const;

    // Takes the resources when check() says `now`, else returns nullopt and changes nothing.
    // Reserving an id that is already held is a programming error.
    [[nodiscard]] std::optional<reservation> reserve(job_requirement const& req,
                                                     reservation_id id,
                                                     node_restriction only = {});

    // Gives back exactly what reserve() took. Releasing an id not held is a programming error.
    void release(reservation_id id);

    bool holds(reservation_id id) const { return held_.contains(id); }
    std::map<reservation_id, reservation> const& reservations() const { return held_; }

    std::size_t size() const { return capacity_.size(); }
    std::vector<node_capacity> const& capacity() const { return capacity_; }
    node_availability available(std::size_t node) const;
    per_node_amounts largest_free_per_node() const;
    std::size_t idle_node_count() const;  // nodes with no reservation at all
    bool idle() const { return held_.empty(); }

    // A description of the first violated invariant, or nullopt when the state is consistent.
    std::optional<std::string> check_invariants() const;

private:
    friend struct resource_pool_tamper;  // the unit tests corrupt state to test the checker

    struct node_state {
        std::uint32_t free_cpus = 0;
        std::uint64_t free_memory_bytes = 0;
        std::vector<std::optional<reservation_id>> gpu_holder;  // parallel to gpu_ids
        std::uint32_t reservation_count = 0;
        std::optional<reservation_id> whole_holder;
    };

    explicit resource_pool(std::vector<node_capacity> nodes);

    std::vector<std::size_t> candidates(node_restriction only) const;
    bool could_hold(std::size_t node, job_requirement const& req) const;
    bool can_take_now(std::size_t node, job_requirement const& req) const;
    std::optional<std::vector<std::size_t>> place(job_requirement const& req,
                                                  node_restriction only) const;
    std::optional<std::size_t> best_fit(job_requirement const& req, node_restriction only) const;
    node_share take(std::size_t node, job_requirement const& req, reservation_id id, bool whole);
    std::optional<std::string> check_reservation(reservation const& r) const;
    std::optional<std::string> check_node(std::size_t node) const;

    std::vector<node_capacity> capacity_;
    std::vector<node_state> state_;
    std::map<reservation_id, reservation> held_;
};

}  // namespace torcrun::core
