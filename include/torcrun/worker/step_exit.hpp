// How a job run as an `srun` step ended (slurm mode), judged from srun's own exit status and the
// tail of the step's stderr, where srun and slurmstepd print Slurm's view of the step. Without
// slurmdbd there is no sacct state to ask, so these lines are the only evidence of an OOM kill or
// a time limit; only lines Slurm itself prints ("srun: ...", "slurmstepd: ...") count, so a job
// that prints "exceeded memory limit" is not taken for one. Return codes and statuses:
// docs/TORC-COMPATIBILITY.md §3.2.
#pragma once

#include "torcrun/common/exit_status.hpp"
#include "torcrun/worker/worker_model.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace torcrun::core {

// What the caller should read from the end of the step's stderr file.
inline constexpr std::size_t step_stderr_tail_bytes = 16 * 1024;

inline constexpr int oom_return_code = 137;         // 128 + SIGKILL
inline constexpr int time_limit_return_code = 152;  // 128 + SIGXCPU, Slurm's TIMEOUT convention

// canceled: Slurm ended the step from outside (scancel of the step or the allocation, a
// preemption, a node failure), not at its time limit.
enum class step_cause { exited, out_of_memory, time_limit, canceled };

struct step_exit {
    int return_code = 0;
    result_status status = result_status::completed;
    step_cause cause = step_cause::exited;
    // srun printed "step creation temporarily disabled" (or "still disabled"): the step queued
    // for resources, so the worker's model of the allocation was wrong.
    bool waited_for_resources = false;
    std::string evidence;  // the Slurm line that decided the cause; empty for `exited`

    bool operator==(step_exit const&) const = default;
};

// Torc v0.25.1's verdicts (async_cli_command.rs, handle_completion; job_runner.rs,
// terminate_jobs): out of memory -> 137 failed (whatever srun returned, as Torc's sacct
// OUT_OF_MEMORY). Time limit -> 152 terminated, unless srun returned 0 (the job handled the
// signal and finished): completed, as Torc's `"TIMEOUT" if return_code != 0`. Canceled from
// outside -> srun's own code, terminated (completed when 0), as Torc's terminate_jobs gives the
// jobs of a worker that Slurm's scancel stops, whether the step or the worker hears it first.
// Otherwise srun's status as it is: exit code, or 128 + signal; 0 completed, anything else
// failed. An OOM line wins over a time-limit line, a time-limit line over a cancel line.
step_exit classify_step_exit(exit_status const& srun, std::string_view stderr_tail);

}  // namespace torcrun::core
