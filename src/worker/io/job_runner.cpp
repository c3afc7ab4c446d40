// io::job_runner: the worker's local work on its io_context. Each piece of work is a coroutine
// holding the impl (job_runner_impl.hpp), so a job_runner destroyed mid-work leaves nothing
// dangling: its children are SIGKILLed, their exits still reaped, and no event is delivered any
// more. This file holds the events, the sampling, the signals, the helper processes and the
// public calls; one job attempt is job_attempt.cpp.
//
// - Event delivery is always posted, never from inside a call.
// - One sampling loop, alive only while jobs run; memory reports when limits.enforce_memory.
//   Direct mode samples /proc (proc_sampler); slurm mode, where the job's process here is only
//   srun, reads each step from Slurm (step_sampler: squeue, sstat), no more often than every
//   step_sample_interval. Direct mode also reads the GPUs a job holds through NVML on the
//   same tick (gpu_sampler: on a thread of its own, as NVML may block); their figures go into
//   the attempt record as a "gpu" line. Slurm mode does not: the steps' GPUs are on other nodes.
// - Failure-rule recovery scripts (docs/TORC-COMPATIBILITY.md §3.3; the result is only logged:
//   as in Torc, a failing script does not undo the retry) and run_commands actions (each
//   command in order with `bash -c` in the output directory, the first failure stops them).
//   Both run as helper processes: launched like jobs, killed with them by kill_all().
#include "job_runner_impl.hpp"


#include "attempt_record_file.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/worker/attempt_record.hpp"
#include "torcrun/worker/env_policy.hpp"
#include "torcrun/worker/launch_plan.hpp"
#include "torcrun/worker/step_exit.hpp"
#include "torcrun/worker/usage_series.hpp"
#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/io/gpu_sampler.hpp"
#include "torcrun/worker/io/gpu_topology.hpp"
#include "torcrun/worker/cpu_choice.hpp"
#include "torcrun/slurm/gpu_devices.hpp"
#include "torcrun/worker/io/proc_sampler.hpp"
#include "torcrun/worker/io/slurm_commands.hpp"
#include "torcrun/worker/io/step_sampler.hpp"
#include "torcrun/slurm/hostlist.hpp"
#include "torcrun/common/signal_names.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>


namespace torcrun::io {

namespace net = boost::asio;

namespace {

// slurm mode: sstat at most this often. jobacct_gather refreshes a step's figures every few
// seconds (the lab: 2 s), and each sstat asks slurmctld and every node of the steps.
constexpr auto step_sample_interval = std::chrono::seconds(2);

// The worker's environment without torcrun's own variables of a parent job, plus the three
// that name the workflow, the server and the output directory.
core::env_map command_environment(job_runner_settings const& settings)
{
    auto env = settings.worker_env;
    for (auto const& name : core::torc_owned_variables()) env.erase(name);
    env["TORC_WORKFLOW_ID"] = std::to_string(settings.workflow_id);
    env["TORC_API_URL"] = settings.config.server.url;
    env["TORC_OUTPUT_DIR"] = settings.config.output_dir;
    return env;
}

}  // namespace

core::torc_job_identity attempt_identity(core::worker::spawn const& action,
                                    job_runner_settings const& settings)
{
    return {settings.workflow_id, action.job.id,         action.job.name,
            action.run_id,        action.job.attempt_id, settings.workflow_submission_dir};
}

job_runner::impl::impl(net::any_io_executor executor, job_runner_settings settings,
                       event_sink sink, logger log)
    : executor_(executor),
      settings_(std::move(settings)),
      sink_(std::move(sink)),
      log_(std::move(log)),
      launcher_(executor, exit_watch::automatic, settings_.guardian),
      commands_(executor, exit_watch::automatic, nullptr),
      sample_timer_(executor)
{
    if (settings_.mode == core::execution_mode::slurm)
        steps_.emplace(commands_, settings_.slurm_job_id, settings_.worker_env, log_);
}

void job_runner::impl::deliver(core::worker_event event)
{
    net::post(executor_, [weak = weak_from_this(), event = std::move(event)]() mutable {
        auto self = weak.lock();
        if (self && !self->closed_ && self->sink_) self->sink_(std::move(event));
    });
}

void job_runner::impl::spawn_task(net::awaitable<void> co, std::string what)
{
    net::co_spawn(executor_, std::move(co),
                  [log = log_, what = std::move(what)](std::exception_ptr e) {
                      if (!e) return;
                      try {
                          std::rethrow_exception(e);
                      } catch (std::exception const& ex) {
                          log.write(log_level::err, "runner", "task failed",
                                    {{"task", what}, {"error", ex.what()}});
                      }
                  });
}

void job_runner::impl::start_sampling()
{
    if (sampling_ || closed_) return;
    sampling_ = true;
    spawn_task(sample_loop(shared_from_this()), "sampler");
}

net::awaitable<void> job_runner::impl::sample_loop(std::shared_ptr<impl> self)
{
    auto const& steps = self->steps_;
    auto const interval =
        steps ? std::max<std::chrono::steady_clock::duration>(self->settings_.sample_interval,
                                                              step_sample_interval)
              : self->settings_.sample_interval;
    while (!self->closed_ && self->sampler_.tracked() + (steps ? steps->tracked() : 0) > 0) {
        self->sample_timer_.expires_after(interval);
        auto const [ec] =
            co_await self->sample_timer_.async_wait(net::as_tuple(net::use_awaitable));
        if (ec || self->closed_) break;
        if (steps)
            co_await self->steps_->sample();
        else
            self->sampler_.sample(proc_sampler::clock::now());
        if (self->gpus_ && self->gpus_->tracked() > 0 && !self->closed_)
            co_await self->gpus_->sample(proc_sampler::clock::now());
        if (self->closed_) break;
        if (!self->settings_.config.limits.enforce_memory) continue;
        for (auto const& [id, job] : self->jobs_) {
            if (!job.child || !job.child->running()) continue;
            if (auto const latest =
                    steps ? steps->latest(id) : self->sampler_.latest(job.child->pid()))
                self->deliver(core::worker::memory_used{id, latest->memory_bytes});
        }
    }
    self->sampling_ = false;
}

void job_runner::impl::signal_job(std::int64_t job_id, int signal)
{
    auto const it = jobs_.find(job_id);
    if (it == jobs_.end()) {
        log_.write(log_level::warning, "runner", "signal for a job that is not running",
                   {{"job", std::to_string(job_id)}, {"signal", std::to_string(signal)}});
        return;
    }
    auto& job = it->second;
    job.signaled = true;
    if (!job.child) {
        // Still launching: SIGKILL wins over any other signal waiting with it.
        if (!job.pending_signal || signal == SIGKILL) job.pending_signal = signal;
        return;
    }
    if (!job.step_name.empty() && job.child->running()) {
        spawn_task(signal_step(shared_from_this(), job_id, signal),
                   detail::cat("signal to the step of job ", std::to_string(job_id)));
        return;
    }
    if (auto sent = job.child->signal_group(signal); !sent)
        log_.write(log_level::warning, "runner", "signal failed",
                   {{"job", std::to_string(job_id)}, {"error", sent.error().message}});
}

net::awaitable<void> job_runner::impl::signal_step(std::shared_ptr<impl> self,
                                                   std::int64_t job_id, int signal)
{
    auto const it = self->jobs_.find(job_id);
    if (it == self->jobs_.end() || !it->second.child) co_return;
    auto const child = it->second.child;
    auto const name = it->second.step_name;
    auto const job = std::to_string(job_id);
    auto const& env = self->settings_.worker_env;
    auto const step =
        co_await find_slurm_step(self->commands_, self->settings_.slurm_job_id, name, env);
    bool signalled = false;
    if (!step) {
        self->log_.write(log_level::warning, "runner", "the job's step was not found",
                         {{"job", job}, {"step", name}, {"error", step.error().message}});
    } else if (*step) {
        auto const sent = co_await cancel_slurm_step(self->commands_, **step, signal, env);
        if (sent) {
            signalled = true;
            // Logged now: the tasks may be gone, srun with them, before the next scancel ends.
            self->log_.write(log_level::info, "runner",
                             signal == SIGKILL ? "step cancelled" : "step signalled",
                             {{"job", job}, {"step", **step},
                              {"signal", core::signal_name(signal)}});
        } else {
            self->log_.write(log_level::warning, "runner", "scancel failed",
                             {{"job", job}, {"step", **step}, {"error", sent.error().message}});
        }
        if (sent && signal == SIGKILL) {
            // The step's end, should a task outlive SIGKILL (uninterruptible sleep).
            auto const ended =
                co_await cancel_slurm_step(self->commands_, **step, std::nullopt, env);
            if (!ended)
                self->log_.write(log_level::warning, "runner", "scancel failed",
                                 {{"job", job}, {"step", **step},
                                  {"error", ended.error().message}});
        }
    }
    if (signalled && signal != SIGKILL) co_return;
    if (auto sent = child->signal_group(signal); !sent)
        self->log_.write(log_level::warning, "runner", "signal failed",
                         {{"job", job}, {"error", sent.error().message}});
}

void job_runner::impl::kill_all()
{
    for (auto const& [id, job] : jobs_) signal_job(id, SIGKILL);
    for (auto const& helper : helpers_) (void)helper->signal_group(SIGKILL);
}

void job_runner::impl::close()
{
    kill_all();
    closed_ = true;
    sample_timer_.cancel();
    if (gpus_) gpus_->stop();
}

net::awaitable<core::result<core::exit_status>> job_runner::impl::run_helper(
    std::shared_ptr<impl> self, spawn_request request)
{
    auto launched = co_await self->launcher_.launch(std::move(request));
    if (!launched) co_return launched.error();
    auto const child = *launched;
    self->helpers_.insert(child);
    if (self->closed_) (void)child->signal_group(SIGKILL);
    auto const report = co_await child->wait();
    self->helpers_.erase(child);
    co_return report.status;
}

// The environment of a job of this attempt (TORC_* of docs/TORC-COMPATIBILITY.md §2.5,
// scrubbed, the workflow's env, no GPU), plus TORC_RETURN_CODE and where the failed attempt's output is, so the script can look at it.
net::awaitable<void> job_runner::impl::run_recovery(std::shared_ptr<impl> self,
                                                    core::worker::run_recovery action)
{
    auto const& settings = self->settings_;
    core::torc_job_identity const identity{settings.workflow_id,     action.job_id,
                                           action.job_name,          self->last_run_id_,
                                           action.attempt_id,        settings.workflow_submission_dir};
    auto const paths = core::attempt_log_paths(settings.config.output_dir, identity,
                                               core::stdio_of(settings.config, action.job_name).mode);
    auto const job = std::to_string(action.job_id);
    core::job_env_request const env_request{core::execution_mode::direct, identity,
                                            settings.workflow_env, {}, {}};
    auto env = core::make_job_environment(settings.worker_env, settings.config, env_request);
    if (!env) {
        self->log_.write(log_level::warning, "runner", "recovery script not run",
                         {{"job", job}, {"error", env.error().message}});
        co_return;
    }
    env->env["TORC_RETURN_CODE"] = std::to_string(action.return_code);
    // A stream the job's stdio mode did not keep reads as empty.
    env->env["TORC_JOB_STDOUT"] = paths.stdout_file.empty() ? "/dev/null" : paths.stdout_file;
    env->env["TORC_JOB_STDERR"] = paths.stderr_file.empty() ? "/dev/null" : paths.stderr_file;
    std::error_code ec;
    std::filesystem::create_directories(paths.dir, ec);
    spawn_request request{{"bash", "-c", action.script},
                          std::move(env->env),
                          settings.working_dir,
                          paths.dir + "/recovery.stdout",
                          paths.dir + "/recovery.stderr", {}};
    auto const status = co_await run_helper(self, std::move(request));
    if (!status) {
        self->log_.write(log_level::warning, "runner", "recovery script failed",
                         {{"job", job}, {"error", status.error().message}});
    } else {
        bool const ok = status->how == core::exit_status::kind::exited && status->code == 0;
        self->log_.write(ok ? log_level::info : log_level::warning, "runner",
                         ok ? "recovery script succeeded" : "recovery script failed",
                         {{"job", job},
                          {"rc", std::to_string(status->return_code())},
                          {"status", status->describe()},
                          {"dir", paths.dir}});
    }
}

net::awaitable<void> job_runner::impl::run_commands(std::shared_ptr<impl> self,
                                                    core::worker::run_commands action)
{
    auto const& settings = self->settings_;
    auto const id = std::to_string(action.action_id);
    auto const dir = settings.config.output_dir + "/actions/action_" + id;
    auto finish = [&](bool ok, std::string detail) {
        self->log_.write(ok ? log_level::info : log_level::warning, "runner",
                         ok ? "action commands succeeded" : "action commands failed",
                         {{"action", id}, {"detail", detail}, {"dir", dir}});
        self->deliver(core::worker::action_finished{action.action_id, ok, std::move(detail)});
    };
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        finish(false, detail::cat("run_commands: directory \"", dir, "\": ", ec.message()));
        co_return;
    }
    auto const env = command_environment(settings);
    for (std::size_t i = 0; i < action.commands.size(); ++i) {
        auto const& command = action.commands[i];
        auto const n = std::to_string(i + 1);
        spawn_request request{{"bash", "-c", command}, env, settings.config.output_dir,
                              detail::cat(dir, "/command_", n, ".stdout"),
                              detail::cat(dir, "/command_", n, ".stderr"), {}};
        auto const status = co_await run_helper(self, std::move(request));
        auto const which = detail::cat("command ", n, " \"", command, "\": ");
        if (!status) {
            finish(false, which + status.error().message);
            co_return;
        }
        if (status->how != core::exit_status::kind::exited || status->code != 0) {
            finish(false, which + status->describe());
            co_return;
        }
    }
    finish(true, detail::cat(std::to_string(action.commands.size()), " commands exited with 0"));
}

job_runner::job_runner(net::any_io_executor executor, job_runner_settings settings,
                       event_sink sink, logger const& log)
    : impl_(std::make_shared<impl>(executor, std::move(settings), std::move(sink), log))
{
}

job_runner::~job_runner() { impl_->close(); }

void job_runner::spawn(core::worker::spawn const& action)
{
    auto const id = action.job.id;
    if (impl_->jobs_.contains(id)) {
        impl_->spawn_failed(id, detail::cat("spawn: job ", std::to_string(id), " is already running"));
        return;
    }
    impl_->jobs_.emplace(id, impl::job_entry{});
    impl_->last_run_id_ = action.run_id;
    impl_->spawn_task(impl::run_attempt(impl_, action), detail::cat("job ", std::to_string(id)));
}

void job_runner::signal(core::worker::signal_job const& action)
{
    impl_->signal_job(action.job_id, action.signal);
}

void job_runner::run_recovery(core::worker::run_recovery const& action)
{
    impl_->spawn_task(impl::run_recovery(impl_, action),
                      detail::cat("recovery of job ", std::to_string(action.job_id)));
}

void job_runner::delete_output(core::worker::delete_output const& action)
{
    auto const& settings = impl_->settings_;
    core::torc_job_identity const identity{settings.workflow_id, action.job_id, action.job_name,
                                           action.run_id, action.attempt_id, std::nullopt};
    auto const paths =
        core::attempt_log_paths(settings.config.output_dir, identity,
                                core::stdio_of(settings.config, action.job_name).mode);
    for (auto const& file : core::stdio_files(paths)) {
        std::error_code ec;
        std::filesystem::remove(file, ec);
        if (ec)
            impl_->log_.write(log_level::warning, "runner", "job output not deleted",
                              {{"job", std::to_string(action.job_id)}, {"file", file},
                               {"error", ec.message()}});
    }
}

void job_runner::run_commands(core::worker::run_commands const& action)
{
    impl_->spawn_task(impl::run_commands(impl_, action),
                      detail::cat("action ", std::to_string(action.action_id)));
}

std::size_t job_runner::running() const { return impl_->jobs_.size(); }

void job_runner::kill_all() { impl_->kill_all(); }

}  // namespace torcrun::io
