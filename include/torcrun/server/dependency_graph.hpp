// Dependency edges as Torc stores them (job_depends_on: job_id waits for depends_on_job_id), the
// edges initialize_jobs adds from files and user data, and the graph checks the workflow-spec
// side needs: Kahn levels and one cycle to name in an error (docs/TORC-COMPATIBILITY.md §4.7).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace torcrun::core {

struct dependency_edge {
    std::int64_t job_id = 0;             // the job that waits
    std::int64_t depends_on_job_id = 0;  // the job it waits for

    auto operator<=>(dependency_edge const&) const = default;
};

// A job's link to a file or a user-data record (job_input_file, job_output_file, ...).
struct data_link {
    std::int64_t job_id = 0;
    std::int64_t data_id = 0;
};

// `INSERT OR IGNORE job_depends_on(C, P)` for every consumer C of a record and every producer P
// of the same record: the edges not already in `existing` and not repeated, sorted. A job that
// reads and writes one record gets a self-edge (it then stays blocked, as in Torc); records
// nobody produces add nothing. Files and user data are separate id spaces: call once per kind,
// passing the first call's edges in `existing` for the second.
std::vector<dependency_edge> implied_edges(std::span<data_link const> inputs,
                                           std::span<data_link const> outputs,
                                           std::span<dependency_edge const> existing);

// Graphs over node indices 0..n-1 for the spec side, which works with names, not ids.
struct index_edge {
    std::size_t node = 0;        // waits for
    std::size_t depends_on = 0;  // this one
};

struct topological_order {
    std::vector<std::vector<std::size_t>> levels;  // level 0 waits for nothing; each sorted
    std::vector<std::size_t> unplaced;  // on a cycle or waiting for one (a self-edge counts)

    bool operator==(topological_order const&) const = default;
};

// Kahn's algorithm level by level. Repeated edges are fine. Every index must be below
// node_count (asserted).
topological_order topological_levels(std::size_t node_count, std::span<index_edge const> edges);

// One cycle, or empty when there is none: v0 waits for v1, ..., vk waits for v0, starting at
// the cycle's smallest index. A self-edge is the cycle {v0}.
std::vector<std::size_t> find_cycle(std::size_t node_count, std::span<index_edge const> edges);

}  // namespace torcrun::core
