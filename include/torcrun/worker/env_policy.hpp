// What a job's environment keeps, drops and gains, and the record of it written to the
// attempt's environment.txt. The worker's environment comes in as a map (core never reads its
// own); the result is a new map plus the difference from the worker's.
//
// Precedence, each stage over the one before:
//   1. the worker's environment;
//   2. torcrun's own names (torc_owned_variables) are dropped, so a worker running inside a job
//      never passes on its parent's TORC_WORKFLOW_SUBMISSION_DIR or TORC_RETURN_CODE, and so are
//      the client credentials (client_secret_variables: TORC_PASSWORD, ...), so no job holds
//      the password of the shell that started the worker;
//   3. scrub (environment.scrub): names matching a scrub pattern and no keep pattern go;
//   4. config environment.set, then the workflow's env, then the job's env (literal values, no
//      shell expansion): environment.set is the site's default that a workflow may refine, and
//      a job refines its workflow (Torc: job keys win);
//   5. the TORC_* variables (docs/TORC-COMPATIBILITY.md §2.5);
//   6. GPU visibility and CUDA_DEVICE_ORDER (see below);
//   7. slurm mode: the srun input variables (srun_input_patterns) go, whoever set them.
// Stages 5-7 are torcrun's decisions and come last, so a job's env cannot break GPU isolation
// or change the step torcrun placed; what an srun step should get goes in srun.extra_args.
//
// GPU visibility, for every configured visibility variable:
//   direct, GPU job:  the job's device ids joined with ',' ("2", "0,1");
//   direct, CPU job:  "" when gpu.hide_from_cpu_jobs (CUDA reads an empty list as no device);
//                     otherwise left as stage 4 left it (the worker's value: the job sees what
//                     the worker sees, never more);
//   slurm, any job:   removed; slurmstepd sets or unsets them for every step from its own GPU
//                     binding, and the worker's values name devices of the worker's node.
// CUDA_DEVICE_ORDER is set to gpu.device_order in both modes when one is configured.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/slurm/mode_choice.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::core {

// The values behind the TORC_* variables. TORC_API_URL and TORC_OUTPUT_DIR come from the
// config (server.url, output_dir; the worker makes output_dir absolute before planning).
struct torc_job_identity {
    std::int64_t workflow_id = 0;
    std::int64_t job_id = 0;
    std::string job_name;
    std::int64_t run_id = 0;
    std::int64_t attempt_id = 1;
    std::optional<std::string> workflow_submission_dir;  // TORC_WORKFLOW_SUBMISSION_DIR
};

struct job_env_request {
    execution_mode mode = execution_mode::direct;
    torc_job_identity identity;
    env_map workflow_env;              // the workflow's `env`
    env_map job_env;                   // the job's `env`; wins over workflow_env
    std::vector<std::string> gpu_ids;  // direct mode: the ids the pool gave; empty = CPU job
};

// The difference between the worker's environment and the job's, sorted by name.
struct env_change {
    std::vector<std::string> removed;
    std::vector<std::pair<std::string, std::string>> set;  // added or given another value
    // Where each set value came from: "environment.set", "workflow env", "job env", "torcrun"
    // (TORC_*, GPU visibility, CUDA_DEVICE_ORDER). A name not listed has no stated source.
    std::map<std::string, std::string, std::less<>> sources;

    bool operator==(env_change const&) const = default;
};

struct job_environment {
    env_map env;
    env_change changes;
};

// Errors: a name in environment.set, the workflow's or the job's env that is empty or holds
// '=' or NUL, or a value holding NUL (execve could not pass either):
// `job env: "A=B" is not a valid variable name`, `workflow env: the value of "X" contains NUL`.
result<job_environment> make_job_environment(env_map const& worker_env,
                                             worker_config const& config,
                                             job_env_request const& request);

// "NAME" matches only NAME; "PREFIX*" matches every name starting with PREFIX ("*" matches
// all). A '*' anywhere else is literal.
bool matches_pattern(std::string_view name, std::string_view pattern);
bool matches_any(std::string_view name, std::span<std::string const> patterns);

// The variables torcrun sets for jobs and recovery scripts (stage 2).
std::span<std::string const> torc_owned_variables();
// The credentials of Torc's clients that no job inherits (stage 2).
std::span<std::string const> client_secret_variables();

// srun's input variables (srun(1) INPUT ENVIRONMENT VARIABLES) that would change the shape,
// placement, binding, I/O or environment of a step torcrun already placed. The trailing '*'
// also catches the heterogeneous-job forms <NAME>_HET_GROUP_<n>.
std::span<std::string const> srun_input_patterns();

env_change diff_environment(env_map const& before, env_map const& after);

// environment.txt: "- NAME" per removed name, then "+ NAME=value" per set one, one per line:
// those without a source first, then by source in precedence order, each group under a
// "# <source>" line ("# workflow env"). A value holding a control character is written as
// $'...' with C escapes, so every entry stays on one line.
std::string render_env_change(env_change const& change);

}  // namespace torcrun::core
