// The state of io::job_runner (see job_runner.hpp), shared by the files that implement it:
// job_runner.cpp (events, sampling, signals, helper processes, the public calls) and
// job_attempt.cpp (one job attempt, from its launch plan to its exit and verdict).
#pragma once

#include "torcrun/worker/io/job_runner.hpp"

#include "torcrun/worker/launch_plan.hpp"
#include "torcrun/worker/step_exit.hpp"
#include "torcrun/worker/io/gpu_sampler.hpp"
#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/io/proc_sampler.hpp"
#include "torcrun/worker/io/step_sampler.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace torcrun::io {

struct job_runner::impl : std::enable_shared_from_this<impl> {
    struct job_entry {
        std::shared_ptr<child_process> child;  // null while it is being launched
        std::optional<int> pending_signal;     // sent while launching; delivered once it runs
        std::string step_name;                 // slurm mode: srun's --job-name; else empty
        std::vector<unsigned> cpus;            // bound to (gpu.cpu_bind); empty: not bound
        bool signaled = false;                 // the worker signaled it (its stop decides)
    };

    impl(boost::asio::any_io_executor executor, job_runner_settings settings, event_sink sink,
         logger log);

    // Hands `event` to the sink from a handler of its own (posted, so order is kept); after
    // close() nothing is delivered.
    void deliver(core::worker_event event);
    // Starts the one sampling loop unless it runs; it ends by itself when no job is tracked.
    void start_sampling();
    void signal_job(std::int64_t job_id, int signal);
    void kill_all();
    void close();  // the job_runner is gone: kill everything, stop sampling, deliver nothing
    // Runs `co` with a completion handler that logs what it threw.
    void spawn_task(boost::asio::awaitable<void> co, std::string what);

    core::result<core::launch_plan> plan(core::worker::spawn const& action) const;
    // The record's attempt line, the stdio directory once, and with attempt_directory: always
    // the attempt directory's command.txt and environment.txt.
    core::result<void> prepare_attempt(core::worker::spawn const& action,
                                       core::launch_plan const& plan, std::string const& command,
                                       std::string const& environment,
                                       std::string const& bound_cpus);
    // gpu.cpu_bind, direct mode: the CPUs a GPU job is bound to, near its GPUs where free
    // (core::choose_cpus), held in its entry; none for other jobs or without the setting.
    static boost::asio::awaitable<std::vector<unsigned>> bind_cpus(std::shared_ptr<impl> self,
                                                                  core::worker::spawn action);
    gpu_sampler& gpus();
    // Opens NVML (on its thread) at the first GPU job, so that its absence is said even when
    // every GPU job ends before the first sample.
    static boost::asio::awaitable<void> probe_gpus(std::shared_ptr<impl> self);
    // The attempt directory of an attempt that failed (or of every one, by configuration):
    // command.txt, environment.txt, usage.json when there is a series, and links to the
    // streams. Problems are logged: the job's outcome does not depend on them.
    void write_attempt_directory(std::int64_t job_id, core::attempt_paths const& paths,
                                 std::string const& command, std::string const& environment,
                                 std::vector<core::usage_point> const* series) const;
    void record(std::int64_t job_id, std::string line) const;  // failures logged
    bool always_directory() const
    {
        return settings_.config.attempt_directory == core::attempt_directory_use::always;
    }
    void spawn_failed(std::int64_t job_id, std::string message, bool worker_fault = false);
    // slurm mode: Slurm's verdict on an ended step from srun's exit and its stderr's tail; a
    // step that queued for resources is logged as an error.
    core::step_exit judge_step(std::int64_t job_id, core::exit_status const& srun,
                               std::string const& stderr_file) const;

    static boost::asio::awaitable<void> run_attempt(std::shared_ptr<impl> self,
                                                    core::worker::spawn action);
    static boost::asio::awaitable<void> run_recovery(std::shared_ptr<impl> self,
                                                     core::worker::run_recovery action);
    static boost::asio::awaitable<void> run_commands(std::shared_ptr<impl> self,
                                                     core::worker::run_commands action);
    static boost::asio::awaitable<void> sample_loop(std::shared_ptr<impl> self);
    // Direct mode inside an allocation, after a non-zero exit of a job the worker did not
    // signal: why Slurm is ending the allocation, or empty (job_attempt.cpp).
    static boost::asio::awaitable<std::string> allocation_ending(std::shared_ptr<impl> self,
                                                                 std::int64_t job_id);
    // slurm mode: `signal` to the job's step through Slurm (find_slurm_step, cancel_slurm_step),
    // so that it reaches the tasks on every node; SIGKILL is `scancel --signal=KILL` and then
    // `scancel` of the step, and srun's group gets SIGKILL after them. Where Slurm lists no
    // such step yet, or a command fails, srun's group gets the signal, which srun passes on.
    static boost::asio::awaitable<void> signal_step(std::shared_ptr<impl> self,
                                                    std::int64_t job_id, int signal);
    // Launches a helper process (recovery script, action command), waits for its exit.
    static boost::asio::awaitable<core::result<core::exit_status>> run_helper(
        std::shared_ptr<impl> self, spawn_request request);

    boost::asio::any_io_executor executor_;
    job_runner_settings settings_;
    event_sink sink_;
    logger log_;
    launcher launcher_;
    // Slurm's commands the runner runs for itself (squeue, sstat, sacct, scancel): no guardian.
    // Their parent-death SIGKILL ends them with the worker, and one still running when the
    // worker ends normally (a scancel after the step's SIGKILL, an sstat between ticks) is no
    // job of a gone worker for the guardian to report.
    launcher commands_;
    proc_sampler sampler_;
    std::optional<step_sampler> steps_;  // slurm mode
    std::unique_ptr<gpu_sampler> gpus_;  // direct mode, from the first job holding a GPU
    boost::asio::steady_timer sample_timer_;
    bool sampling_ = false;
    bool closed_ = false;
    std::map<std::int64_t, job_entry> jobs_;            // spawned and not yet exited
    std::set<std::shared_ptr<child_process>> helpers_;  // running recovery scripts, commands
    std::int64_t last_run_id_ = 0;  // run_recovery carries none; the run of the last spawn
    bool stdio_dir_made_ = false;   // job_stdio/ exists (made at the first spawn)
};

// The TORC_* identity of the attempt a spawn action starts.
core::torc_job_identity attempt_identity(core::worker::spawn const& action,
                                    job_runner_settings const& settings);

}  // namespace torcrun::io
