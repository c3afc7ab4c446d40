// The state behind io::job_runner, shared by its sources: job_runner.cpp (the public calls,
// event delivery, sampling, kills), job_runner_attempt.cpp (one job attempt from plan to exit)
// and job_runner_scripts.cpp (recovery scripts and run_commands). Each piece of work is a
// coroutine holding the impl, so a job_runner destroyed mid-work leaves nothing dangling: its
// children are SIGKILLed, their exits still reaped, and no event is delivered any more.
#pragma once

#include "torcrun/worker/io/job_runner.hpp"

#include "torcrun/worker/launch_plan.hpp"
#include "torcrun/worker/step_exit.hpp"
#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/io/proc_sampler.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <set>

namespace torcrun::io {

struct job_runner::impl : std::enable_shared_from_this<impl> {
    struct job_entry {
        std::shared_ptr<child_process> child;  // null while it is being launched
        std::optional<int> pending_signal;     // sent while launching; delivered once it runs
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

    core::result<core::launch_plan> prepare(core::worker::spawn const& action) const;
    void spawn_failed(std::int64_t job_id, std::string message);
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
    // Launches a helper process (recovery script, action command), waits for its exit.
    static boost::asio::awaitable<core::result<core::exit_status>> run_helper(
        std::shared_ptr<impl> self, spawn_request request);

    boost::asio::any_io_executor executor_;
    job_runner_settings settings_;
    event_sink sink_;
    logger log_;
    launcher launcher_;
    proc_sampler sampler_;
    boost::asio::steady_timer sample_timer_;
    bool sampling_ = false;
    bool closed_ = false;
    std::map<std::int64_t, job_entry> jobs_;            // spawned and not yet exited
    std::set<std::shared_ptr<child_process>> helpers_;  // running recovery scripts, commands
    std::int64_t last_run_id_ = 0;  // run_recovery carries none; the run of the last spawn
};

}  // namespace torcrun::io
