// The sbatch script of an allocation for `torcrun slurm-script`, `torcrun submit` and workers:
// #SBATCH lines, the early-warning signal, and one slurm-mode worker, one direct-mode worker, or
// one direct-mode worker per node. Options arrive as
// the text the user typed, so that every message can quote it: `--nodes: "0" must be at least 1`.
// Rendering is pure; the caller supplies absolute paths and writes or submits the text.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/common/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::core {

struct sbatch_request {
    std::int64_t workflow_id = 0;
    std::optional<std::string> job_name;  // default "torcrun_wf<id>"; names the script file too
    // serialize_allocations: the chain's name, on the #SBATCH --job-name line instead of
    // job_name, with `#SBATCH --dependency=singleton` (unless extra or more_options set a
    // dependency), so Slurm runs the chain's allocations one at a time.
    std::optional<std::string> singleton_chain;
    std::optional<std::string> account;
    std::optional<std::string> partition;
    std::optional<std::string> qos;
    std::string nodes = "1";
    std::string time;  // required: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
    std::optional<std::string> gpus_per_node;
    std::optional<std::string> cpus_per_task;  // excludes `exclusive`
    bool exclusive = false;  // also the default when cpus_per_task is not given
    std::optional<std::string> mem;          // Slurm's --mem: a number with an optional K/M/G/T
    std::optional<std::string> gres;         // #SBATCH --gres, e.g. gpu:4
    std::optional<std::string> tmp;          // #SBATCH --tmp
    // More `#SBATCH --NAME=VALUE` lines (a workflow's slurm_defaults), after the others.
    std::vector<std::pair<std::string, std::string>> more_options;
    std::optional<std::string> extra;        // one raw `#SBATCH EXTRA` line (Torc's `extra`)
    std::string output_dir;                  // for --output/--error and the workers
    std::optional<std::string> signal_lead;  // seconds; default: default_signal_lead(config)
    bool per_node_workers = false;
    bool direct_single_worker = false;  // the one worker (no per-node workers) in direct mode
    std::optional<std::string> srun_mpi;  // per-node workers' srun --mpi (default none)
    std::int64_t startup_delay_seconds = 0;  // the workers' --startup-delay-seconds when > 0
    std::optional<std::int64_t> max_parallel_jobs;  // the workers' --max-parallel-jobs
    std::string torcrun_path;  // absolute
    std::optional<std::string> config_path;
    std::optional<std::string> url;
    std::optional<std::string> tls_ca_cert = {};  // the CAs the workers trust for an https url
};

// Seconds between the USR1 warning and the end of the allocation: the worker's drain buffer plus
// its termination grace, rounded up, so jobs stopped at the warning have their grace in full.
std::int64_t default_signal_lead(worker_config const& config);

// "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS" in seconds, or nullopt.
std::optional<std::int64_t> parse_slurm_time(std::string_view text);

// The script text, or the first problem: `--time: "1h" is not a Slurm time (...)`.
result<std::string> render_sbatch_script(sbatch_request const& request,
                                         worker_config const& config);

// The job id from sbatch's answer "Submitted batch job 42"; else `sbatch: no job id in "..."`.
result<std::int64_t> parse_sbatch_job_id(std::string_view output);

}  // namespace torcrun::core
