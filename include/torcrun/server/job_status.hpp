// Torc's job status: the integer stored in the database and the lower-case string used in JSON,
// paths and queries (docs/TORC-COMPATIBILITY.md §1), plus the status sets the server's decisions
// are made of.
//
//   uninitialized -initialize-> blocked | ready      blocked -last blocker done-> ready | canceled
//   ready -claim-> pending -start_job-> running -complete_job-> completed | failed | canceled
//                                                               | terminated | pending_failed
//   running | failed | terminated -retry-> ready     disabled: excluded, never claimed
#pragma once

#include "torcrun/common/error.hpp"

#include <array>
#include <cstdint>
#include <string_view>

namespace torcrun::core {

enum class job_status : int {
    uninitialized = 0,
    blocked = 1,
    ready = 2,
    pending = 3,
    running = 4,
    completed = 5,
    failed = 6,
    canceled = 7,
    terminated = 8,
    disabled = 9,
    pending_failed = 10,
};

inline constexpr std::size_t job_status_count = 11;

// Every status in integer order.
extern std::array<job_status, job_status_count> const all_job_statuses;

constexpr int to_int(job_status s) { return static_cast<int>(s); }

// "uninitialized", ..., "pending_failed".
std::string_view to_string(job_status s);

// Exact lower-case names only, as Torc's serde names. The error quotes the input and lists the
// accepted names.
result<job_status> parse_job_status(std::string_view text);

// The database integer; anything outside 0..10 is an error naming the value.
result<job_status> job_status_from_int(std::int64_t value);

// The statuses complete_job accepts: completed, failed, canceled, terminated, pending_failed.
bool is_terminal_for_complete_job(job_status s);

// What workflow progress and is_complete count as done: completed, failed, canceled, terminated
// and disabled. pending_failed is not complete: it waits for a classification.
bool counts_as_complete(job_status s);

// What releases a dependent (Torc's unblock query): completed, failed, canceled, terminated.
// A disabled or pending_failed blocker keeps its dependents blocked.
bool satisfies_dependency(job_status s);

// A finished blocker that cancels dependents with cancel_on_blocking_job_failure:
// failed, canceled, terminated.
bool is_blocking_failure(job_status s);

}  // namespace torcrun::core
