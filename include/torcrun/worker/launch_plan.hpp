// One job attempt's launch, decided before anything runs: the exact argv (a vector, never a
// shell string), the environment (env_policy.hpp), the working directory and the attempt's
// log files. The io launcher carries it out as it is; command.txt shows the same argv.
//
// direct mode: `bash -c <script>`, as Torc. The script is the command, or Torc's newer
//   "<invocation_script> <command>" (joined by one space, as Torc's srun wrapper does): a script
//   ending in a newline runs as lines before the command ("set -e\nmodule load x\n"), one
//   without is a wrapper the command is appended to ("bash wrap.sh"); an empty one is none.
// slurm mode: one srun step placed by the worker's pool (docs/TORC-COMPATIBILITY.md §7):
//   srun --jobid=<id> --exact [--cpu-bind=none unless srun.cpu_bind] --nodes=<n>
//        (--ntasks=1 | --ntasks=<n*k> [--ntasks-per-node=<k> when n > 1]) --cpus-per-task=<cpus/k>
//        [--mem=<MB>M] (--gpus-per-node=<g> | --gres=none)
//        --nodelist=<hostlist> --job-name=wf<wf>_j<job>_r<run>_a<att> [--time=<minutes>]
//        --kill-on-bad-exit=1 [--signal=<srun.signal>] [srun.extra_args...] bash -c <script>
//   --exact, not --overlap: each step gets exactly what the pool reserved, so steps neither share
//   nor wait. --cpu-bind=none, as Torc without enable_cpu_bind: the step's tasks may use any of
//   its CPUs instead of being pinned by Slurm's default binding. --ntasks=1, as Torc v0.25.1's
//   build_srun_command: the command runs once whatever num_nodes says, and spreads itself over
//   the job's nodes (an MPI launcher, its own `srun --overlap -N<n> -n<ranks>`); Slurm 22.05
//   shrinks such a step to the first node ("can't run 1 processes on 2 nodes, setting nnodes
//   to 1"), the other nodes stay reserved for the job in the worker's pool. With torcrun's
//   tasks_per_node extension (k) the step runs k tasks on each node instead, each given cpus/k
//   CPUs, rounded down. --mem is left out at 0 MB because --mem=0 means
//   the whole node; Slurm then applies its default (DefMemPerCPU or the job's memory), which
//   can hold back other steps on a cluster that schedules memory. A CPU job gets --gres=none:
//   by default a step is given all of the job's GRES and would hold every GPU of its nodes.
//   --time is whole minutes of (seconds_left - headroom), the headroom being
//   termination.drain_buffer_seconds - termination.grace_seconds (Torc's
//   sigkill_headroom_seconds; 30 s by default), so Slurm ends the step that long before the
//   allocation does; under one usable minute the job is not launched (it goes back to ready).
//   srun and bash are found on PATH by the launcher; srun runs in the working directory and
//   passes it to the step. --mpi comes from srun.extra_args, if at all.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/common/command_line.hpp"
#include "torcrun/common/env_map.hpp"
#include "torcrun/worker/env_policy.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/slurm/mode_choice.hpp"
#include "torcrun/worker/resource_pool.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::core {

// Where one attempt's files go. The only place the layout is decided: the worker, `torcrun
// logs` and the tests all call attempt_log_paths().
//   <output_dir>/job_stdio/job_wf<wf>_j<job>_r<run>_a<attempt>.{o,e,log}   (Torc's names)
//   <output_dir>/jobs/wf<wf>_j<job>/r<run>_a<attempt>/{command.txt,environment.txt,
//                                                     result.json,usage.json,stdout,stderr}
// Every attempt writes its streams as flat files in job_stdio/ (two entries per attempt). The
// attempt directory is written only for an attempt that failed, or for every attempt with
// `attempt_directory: always`; its stdout, stderr (or output) are hard links to the flat files.
// The command, environment, result and usage of every attempt are also in the worker's
// append-only record (attempt_record_dir, io/attempt_record.hpp), which `torcrun jobs` and the
// report read where the directory is absent.
// The job's streams by stdio mode: separate: .o and .e; combined: one file .log for both
// (stdout_file == stderr_file); no_stdout: stderr only; no_stderr: stdout only; none: neither.
// A stream not written has an empty path (the launcher gives it /dev/null).
// The run and the workflow are in the names because attempt ids start again at 1 in each run
// and several workflows may share one output directory (Torc's job_stdio names carry both).
struct attempt_paths {
    std::string dir;  // the attempt directory (on failure, or attempt_directory: always)
    std::string stdout_file;
    std::string stderr_file;
    std::string command_file;      // command.txt: render_command_line(argv)
    std::string environment_file;  // environment.txt: render_env_change(changes)
    std::string result_file;       // result.json
    std::string usage_file;        // usage.json: the CPU and memory series (usage_series.hpp)

    bool operator==(attempt_paths const&) const = default;
};

attempt_paths attempt_log_paths(std::string_view output_dir, torc_job_identity const& id,
                                stdio_mode stdio = stdio_mode::separate);

// <output_dir>/job_stdio: where every attempt's stdio files are.
std::string job_stdio_dir(std::string_view output_dir);
// <output_dir>/job_records: the workers' append-only records of their attempts.
std::string attempt_record_dir(std::string_view output_dir);

// The stdio files of an attempt that exist on disk (no empty path, the combined file once).
std::vector<std::string> stdio_files(attempt_paths const& paths);

// Each stdio file of the attempt and the name of its link in the attempt directory: "stdout",
// "stderr", or "output" for the combined file (the names an attempt directory always had).
std::vector<std::pair<std::string, std::string>> stdio_links(attempt_paths const& paths);

// "wf5_j42_r1_a2": the srun --job-name, as Torc names its steps.
std::string step_name(torc_job_identity const& id);

struct launch_request {
    execution_mode mode = execution_mode::direct;
    torc_job_identity identity;
    std::string command;
    std::optional<std::string> invocation_script;
    env_map workflow_env;
    env_map job_env;
    reservation placement;                        // what the pool reserved for this job
    std::optional<std::uint32_t> tasks_per_node;  // torcrun extension; slurm mode; default 1
    std::string working_dir;
    std::string slurm_job_id;            // slurm mode: SLURM_JOB_ID
    std::optional<double> seconds_left;  // slurm mode: until the allocation ends; none = unknown
};

struct launch_plan {
    std::vector<std::string> argv;
    env_map env;
    env_change env_changes;
    std::string working_dir;
    attempt_paths paths;
};

// Errors start `launch: job <id>: ` and say what is wrong: no node, several nodes in direct
// mode, no Slurm job id, tasks_per_node 0 or above the CPUs, too little time left, NUL in the
// command or invocation script, or an environment error of make_job_environment.
// slurm mode: a step started with `seconds_left` would get under one minute of --time (the
// time left less the kill headroom; --time=0 would mean no limit at all). Such a job is not
// launched: it goes back to ready, as Torc v0.25.1 reverts a step it refuses to launch, and the
// worker claims nothing more (the time left only shrinks). Unknown time left: false.
bool too_late_for_a_step(std::optional<double> seconds_left, worker_config const& config);

result<launch_plan> plan_launch(launch_request const& request, worker_config const& config,
                                env_map const& worker_env);

}  // namespace torcrun::core
