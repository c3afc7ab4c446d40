// Which ready jobs a claim hands out, as Torc 0.10's prepare_ready_jobs decides it
// (docs/TORC-COMPATIBILITY.md §2.3): filter each job against the worker's per-node request, order
// by the workflow's jobs_sort_method, keep the first `limit` rows, fall back to jobs of other
// schedulers when none matched, then accumulate greedily. The store supplies the ready jobs and
// marks the chosen ones pending in the same transaction.
//
// Two additions, both invisible to a Torc client: ties are broken by job id ascending (SQLite's
// unordered rows are not a contract), and a job's `priority` (newer Torc; 0 by default) orders
// before the sort method, higher first.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/resources.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace torcrun::core {

enum class jobs_sort_method { gpus_runtime_memory, gpus_memory_runtime, none };

// What the server stores when a workflow names none (docs/TORC-COMPATIBILITY.md §4.10 item 3).
inline constexpr jobs_sort_method default_jobs_sort_method = jobs_sort_method::gpus_runtime_memory;

std::string_view to_string(jobs_sort_method m);
result<jobs_sort_method> parse_jobs_sort_method(std::string_view text);

// One ready job with its resource requirements (per node, as in Torc).
struct claim_candidate {
    std::int64_t job_id = 0;
    job_requirement need;
    std::int64_t runtime_seconds = 0;
    std::optional<std::int64_t> scheduler_id;  // the job's scheduler, or any
    std::int64_t priority = 0;

    bool operator==(claim_candidate const&) const = default;
};

// The body of claim_jobs_based_on_resources: per-node capacity and the number of nodes.
struct claim_request {
    std::uint32_t num_cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::uint32_t num_gpus = 0;
    std::uint32_t num_nodes = 0;
    std::optional<std::int64_t> time_limit_seconds;  // nullopt: no end time (unlimited)
    std::optional<std::int64_t> scheduler_config_id;

    bool operator==(claim_request const&) const = default;
};

struct claim_options {
    jobs_sort_method sort_method = default_jobs_sort_method;
    std::int64_t limit = 0;               // <= 0 claims nothing
    bool strict_scheduler_match = false;  // true: never fall back to other schedulers' jobs
};

// The chosen job ids in claim order. Per job: cpus, memory, gpus and num_nodes at most the
// request's, runtime at most the time limit, scheduler unset or equal to scheduler_config_id
// (an absent scheduler_config_id matches only jobs without a scheduler, as SQL's `= NULL`).
// When that leaves no job and the match is not strict, the scheduler condition is dropped.
// After ordering, only the first `limit` jobs are considered (Torc's SQL LIMIT), and each is
// taken if it still fits: single-node jobs add their cpus, memory and gpus to the running
// totals; a multi-node job adds its per-node values once and its num_nodes to the node total.
// Never more than the request in any of the four totals; the first job considered is always
// taken.
std::vector<std::int64_t> select_claim(std::span<claim_candidate const> ready,
                                       claim_request const& request, claim_options const& options);

// claim_next_jobs: the first `limit` ready jobs, no resource filter; priority first, then id.
struct next_candidate {
    std::int64_t job_id = 0;
    std::int64_t priority = 0;
};
inline constexpr std::int64_t default_claim_next_jobs_limit = 10;  // Torc's server default
std::vector<std::int64_t> select_next_jobs(std::span<next_candidate const> ready,
                                           std::int64_t limit);

// The request's memory_gb in bytes as Torc computes it: gb * 2^30 truncated toward zero;
// NaN and negative values give 0, values past the range saturate.
std::uint64_t claim_memory_bytes(double memory_gb);

}  // namespace torcrun::core
