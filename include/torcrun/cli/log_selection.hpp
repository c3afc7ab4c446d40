// Which log `torcrun logs WF JOB [--attempt N]` shows: the job named by id or name (an unknown
// name gets the closest one as a hint), and the attempt, by default the latest one, among those
// the server has results for and the one the job is running now. Pure: the jobs and attempts
// come in as the server listed them.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct named_job {
    std::int64_t id = 0;
    std::string name;
};

// `text` all digits: the job of that id, else the job of that name (the first by id when several
// share it). Errors: `job 7: workflow 3 has no such job`, `job "traning": workflow 3 has no job
// of that name (did you mean "training"?)`.
result<named_job> find_job(std::span<named_job const> jobs, std::string_view text,
                           std::int64_t workflow_id);

struct attempt_key {
    std::int64_t run_id = 0;
    std::int64_t attempt_id = 1;

    auto operator<=>(attempt_key const&) const = default;
};

// The attempt to show out of `attempts` (the job's results and its attempt in flight, in any
// order, duplicates allowed): with `wanted`, the latest run's attempt of that number, else the
// latest attempt. `job` names the job in messages (`"train" (job 4)`), `status` is its status.
// Errors: `"train" (job 4) has not run (status blocked): no logs yet`, `"train" (job 4) has no
// attempt 3 (its attempts: 1, 2)`. With `run`, only that run's attempts count (a rerun starts
// a new run, its attempts numbered from the job's attempt_id again): `"train" (job 4) has no
// attempt in run 5 (its runs: 0, 1)`.
result<attempt_key> pick_attempt(std::vector<attempt_key> attempts,
                                 std::optional<std::int64_t> wanted, std::string_view job,
                                 std::string_view status,
                                 std::optional<std::int64_t> run = std::nullopt);

}  // namespace torcrun::core
