// `torcrun watch --recover` (Torc's `watch --recover`): which failed jobs run again, and with
// what. A job whose latest attempt ran out of memory (return code 137: the worker records it only
// with Slurm's or the kernel's OOM line, or its own memory limit) gets its memory multiplied; one
// that ran out of time (152) its runtime; each in a new resource requirement. Others run again
// unchanged only with --retry-unknown. A job runs again at most max_retries times. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

struct requirement_values {
    std::int64_t id = 0;
    std::string name;
    std::int64_t num_cpus = 1, num_gpus = 0, num_nodes = 1;
    std::uint64_t memory_bytes = 0;  // 0: none given
    double runtime_seconds = 0;      // 0: none given
};

struct failed_job {
    std::int64_t id = 0;
    std::string name;
    int return_code = 0;
    std::optional<requirement_values> requirement;
};

struct recovery_policy {
    double memory_multiplier = 1.5;  // Torc's defaults
    double runtime_multiplier = 1.5;
    std::optional<int> max_retries;  // nullopt: no limit
    bool retry_unknown = false;
};

enum class failure_kind { out_of_memory, timeout, unknown };

struct job_recovery {
    std::int64_t job_id = 0;
    failure_kind kind = failure_kind::unknown;
    std::optional<requirement_values> new_requirement;  // nullopt: run again unchanged
    std::string line;  // what is done, for the log
};

struct recovery_decisions {
    std::vector<job_recovery> retry;
    std::vector<std::string> left;  // the jobs not run again, and why
};

// `recovered`: how often this watch has run each job again already.
recovery_decisions decide_recovery(std::vector<failed_job> const& failed,
                                   recovery_policy const& policy,
                                   std::map<std::int64_t, int> const& recovered);

}  // namespace torcrun::core
