// io::job_runner: the worker's local work on its io_context. Each piece of work is a coroutine
// holding the impl, so a job_runner destroyed mid-work leaves nothing dangling: its children are
// SIGKILLed, their exits still reaped, and no event is delivered any more.
//
// - Event delivery is always posted, never from inside a call.
// - One sampling loop, alive only while jobs run; memory reports when limits.enforce_memory.
//   Direct mode samples /proc (proc_sampler); slurm mode, where the job's process here is only
//   srun, reads each step from Slurm (step_sampler: squeue, sstat), no more often than every
//   step_sample_interval.
// - One job attempt, from the spawn action to job_exited: the launch plan (core decides argv,
//   environment and paths), its command and environment change in the worker's attempt record,
//   the non-blocking launch with the streams in job_stdio/ (created once per worker), /proc
//   tracking, and the exit with the usage of the whole tree (its bounded series of samples
//   recorded once). The attempt directory (command.txt, environment.txt, usage.json, hard links
//   to the streams) only for an attempt that failed, or for each with attempt_directory: always:
//   two files per attempt instead of two directories and five files. Direct mode inside an
//   allocation: a non-zero exit the worker did not cause asks Slurm whether the allocation is
//   ending (allocation_ending) before it is delivered.
// - Failure-rule recovery scripts (docs/TORC-COMPATIBILITY.md §3.3; the result is only logged:
//   as in Torc, a failing script does not undo the retry) and run_commands actions (each command in order with `bash -c` in the
//   output directory, the first failure stops them). Both run as helper processes: launched
//   like jobs, killed with them by kill_all().
#include "torcrun/worker/io/job_runner.hpp"

#include "attempt_record_file.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/worker/attempt_record.hpp"
#include "torcrun/worker/env_policy.hpp"
#include "torcrun/worker/launch_plan.hpp"
#include "torcrun/worker/step_exit.hpp"
#include "torcrun/worker/usage_series.hpp"
#include "torcrun/worker/io/launcher.hpp"
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

#include <algorithm>
#include <cerrno>
#include <charconv>
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

struct job_runner::impl : std::enable_shared_from_this<impl> {
    struct job_entry {
        std::shared_ptr<child_process> child;  // null while it is being launched
        std::optional<int> pending_signal;     // sent while launching; delivered once it runs
        std::string step_name;                 // slurm mode: srun's --job-name; else empty
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
                                       std::string const& environment);
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
    boost::asio::steady_timer sample_timer_;
    bool sampling_ = false;
    bool closed_ = false;
    std::map<std::int64_t, job_entry> jobs_;            // spawned and not yet exited
    std::set<std::shared_ptr<child_process>> helpers_;  // running recovery scripts, commands
    std::int64_t last_run_id_ = 0;  // run_recovery carries none; the run of the last spawn
    bool stdio_dir_made_ = false;   // job_stdio/ exists (made at the first spawn)
};

namespace {

// slurm mode: sstat at most this often. jobacct_gather refreshes a step's figures every few
// seconds (the lab: 2 s), and each sstat asks slurmctld and every node of the steps.
constexpr auto step_sample_interval = std::chrono::seconds(2);

core::result<void> write_text(std::string const& path, std::string const& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out << text;
    if (out) out.close();
    if (!out)
        return core::error{detail::cat("spawn: write \"", path, "\": ", std::strerror(errno))};
    return {};
}

std::string gpu_list(core::reservation const& placement)
{
    std::string out;
    for (auto const& node : placement.nodes)
        for (auto const& id : node.gpu_ids) {
            if (!out.empty()) out += ',';
            out += id;
        }
    return out;
}

std::string fixed3(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", value);
    return text;
}

// The last step_stderr_tail_bytes of the step's stderr file, where srun and slurmstepd print
// their view of the step; empty when it cannot be read (the verdict is then srun's exit alone).
std::string stderr_tail(std::string const& path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return {};
    auto const size = static_cast<std::uint64_t>(in.tellg());
    auto const take = std::min<std::uint64_t>(size, core::step_stderr_tail_bytes);
    in.seekg(static_cast<std::streamoff>(size - take));
    std::string text(take, '\0');
    in.read(text.data(), static_cast<std::streamsize>(take));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

core::job_usage to_job_usage(core::usage_summary const& s)
{
    return {s.peak_memory_bytes, s.avg_memory_bytes, s.peak_cpu_percent, s.avg_cpu_percent};
}

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

// The TORC_* identity of the attempt a spawn action starts.
core::torc_job_identity identity_of(core::worker::spawn const& action,
                                    job_runner_settings const& settings)
{
    return {settings.workflow_id, action.job.id,         action.job.name,
            action.run_id,        action.job.attempt_id, settings.workflow_submission_dir};
}

}  // namespace

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
}

core::result<core::launch_plan> job_runner::impl::plan(core::worker::spawn const& action) const
{
    core::launch_request request;
    request.mode = settings_.mode;
    request.identity = identity_of(action, settings_);
    request.command = action.job.command;
    request.workflow_env = settings_.workflow_env;
    request.job_env = action.job.env;
    request.invocation_script = action.job.invocation_script;
    request.placement = action.placement;
    request.tasks_per_node = action.resources.tasks_per_node;
    request.working_dir = settings_.working_dir;
    request.slurm_job_id = settings_.slurm_job_id;
    request.seconds_left = action.seconds_left;
    return core::plan_launch(request, settings_.config, settings_.worker_env);
}

// What fails here is the worker's own output directory (full, read-only, gone), never the job.
core::result<void> job_runner::impl::prepare_attempt(core::worker::spawn const& action,
                                                     core::launch_plan const& plan,
                                                     std::string const& command,
                                                     std::string const& environment)
{
    if (!stdio_dir_made_) {
        auto const dir = core::job_stdio_dir(settings_.config.output_dir);
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec)
            return core::error{
                detail::cat("spawn: stdio directory \"", dir, "\": ", ec.message())};
        stdio_dir_made_ = true;
    }
    if (settings_.record)
        if (auto ok = settings_.record->append(
                core::attempt_line(identity_of(action, settings_), command, environment));
            !ok)
            return core::error{"spawn: " + ok.error().message};
    if (!always_directory()) return {};
    std::error_code ec;
    std::filesystem::create_directories(plan.paths.dir, ec);
    if (ec)
        return core::error{
            detail::cat("spawn: attempt directory \"", plan.paths.dir, "\": ", ec.message())};
    if (auto ok = write_text(plan.paths.command_file, command); !ok) return ok.error();
    return write_text(plan.paths.environment_file, environment);
}

void job_runner::impl::write_attempt_directory(std::int64_t job_id,
                                               core::attempt_paths const& paths,
                                               std::string const& command,
                                               std::string const& environment,
                                               std::vector<core::usage_point> const* series) const
{
    auto const warn = [&](std::string const& what) {
        log_.write(log_level::warning, "runner", "attempt directory incomplete",
                   {{"job", std::to_string(job_id)}, {"dir", paths.dir}, {"error", what}});
    };
    std::error_code ec;
    std::filesystem::create_directories(paths.dir, ec);
    if (ec) return warn(ec.message());
    for (auto const& [file, text] : {std::pair{&paths.command_file, &command},
                                     std::pair{&paths.environment_file, &environment}})
        if (auto ok = write_text(*file, *text); !ok) warn(ok.error().message);
    if (series && !series->empty())
        if (auto ok = write_text(paths.usage_file, core::usage_series_json(*series) + "\n"); !ok)
            warn(ok.error().message);
    // Hard links: the directory shows the streams under the names it always had, at no copy.
    for (auto const& [target, link] : core::stdio_links(paths))
        if (::link(target.c_str(), link.c_str()) != 0 && errno != EEXIST && errno != ENOENT)
            warn(detail::cat("link \"", link, "\": ", std::strerror(errno)));
}

void job_runner::impl::record(std::int64_t job_id, std::string line) const
{
    if (!settings_.record) return;
    if (auto ok = settings_.record->append(std::move(line)); !ok)
        log_.write(log_level::warning, "runner", "job record not written",
                   {{"job", std::to_string(job_id)}, {"error", ok.error().message}});
}

core::step_exit job_runner::impl::judge_step(std::int64_t job_id, core::exit_status const& srun,
                                            std::string const& stderr_file) const
{
    auto step = core::classify_step_exit(srun, stderr_tail(stderr_file));
    if (step.waited_for_resources)
        log_.write(log_level::err, "runner",
                   "the step waited for resources: the worker's model of the allocation is wrong",
                   {{"job", std::to_string(job_id)}, {"stderr", stderr_file}});
    if (step.cause != core::step_cause::exited)
        log_.write(log_level::warning, "runner", "Slurm ended the step",
                   {{"job", std::to_string(job_id)}, {"evidence", step.evidence}});
    return step;
}

void job_runner::impl::spawn_failed(std::int64_t job_id, std::string message, bool worker_fault)
{
    log_.write(log_level::warning, "runner", "job spawn failed",
               {{"job", std::to_string(job_id)},
                {"error", message},
                {"cause", worker_fault ? "the worker's own" : "the job's"}});
    deliver(core::worker::spawn_failed{job_id, std::move(message), worker_fault});
}

net::awaitable<void> job_runner::impl::run_attempt(std::shared_ptr<impl> self,
                                                   core::worker::spawn action)
{
    auto const id = action.job.id;
    if (self->settings_.mode == core::execution_mode::slurm &&
        core::too_late_for_a_step(action.seconds_left, self->settings_.config)) {
        self->jobs_.erase(id);
        auto const why = detail::cat(fixed3(action.seconds_left.value_or(0)),
                                     " s left in the allocation: under one minute of srun "
                                     "--time after the kill headroom");
        self->log_.write(log_level::info, "runner", "job not launched",
                         {{"job", std::to_string(id)}, {"why", why}});
        self->deliver(core::worker::spawn_failed{id, why, false, true});
        co_return;
    }
    auto plan = self->plan(action);
    if (!plan) {
        self->jobs_.erase(id);
        self->spawn_failed(id, plan.error().message);
        co_return;
    }
    // Kept for the attempt directory, should the attempt fail: the command line and the
    // environment change, a few hundred bytes (the full environment goes to the launcher).
    auto const command = core::render_command_line(plan->argv) + "\n";
    auto const environment = core::render_env_change(plan->env_changes);
    if (auto prepared = self->prepare_attempt(action, *plan, command, environment); !prepared) {
        self->jobs_.erase(id);
        self->spawn_failed(id, prepared.error().message, true);
        co_return;
    }
    spawn_request request{std::move(plan->argv), std::move(plan->env), plan->working_dir,
                          plan->paths.stdout_file, plan->paths.stderr_file};
    plan->env_changes = {};
    // slurm mode: the step is the guardian's from before srun starts until srun has ended.
    auto const& guardian = self->settings_.guardian;
    bool const slurm = self->settings_.mode == core::execution_mode::slurm;
    std::string const step = slurm ? core::step_name(identity_of(action, self->settings_)) : "";
    if (guardian && !step.empty()) guardian->watch_step(self->settings_.slurm_job_id, step);
    auto launched = co_await self->launcher_.launch(std::move(request));
    if (!launched) {
        if (guardian && !step.empty()) guardian->forget_step(self->settings_.slurm_job_id, step);
        self->jobs_.erase(id);
        // Its stderr says why nothing ran (torcrun logs shows it), in its attempt directory.
        if (!plan->paths.stderr_file.empty()) {
            std::ofstream err(plan->paths.stderr_file, std::ios::app);
            err << "torcrun: the job's process could not start: " << launched.error().message
                << "\n";
        }
        self->write_attempt_directory(id, plan->paths, command, environment, nullptr);
        self->spawn_failed(id, launched.error().message,
                           launcher::is_worker_fault(launched.error()));
        co_return;
    }
    auto const child = *launched;
    auto& job = self->jobs_.at(id);
    job.child = child;
    job.step_name = step;
    if (self->steps_)
        self->steps_->track(id, step, child->started());
    else
        self->sampler_.track(child->pid(), child->started());
    self->start_sampling();
    if (self->always_directory())  // the streams exist now (the launch opened them)
        for (auto const& [target, link] : core::stdio_links(plan->paths))
            (void)::link(target.c_str(), link.c_str());
    auto const gpus = gpu_list(action.placement);
    self->log_.write(log_level::info, "runner", "job started",
                     {{"job", std::to_string(id)},
                      {"name", action.job.name},
                      {"pid", std::to_string(child->pid())},
                      {"gpus", gpus.empty() ? "none" : gpus},
                      {"stdout", plan->paths.stdout_file}});
    self->deliver(core::worker::job_spawned{id});
    if (self->closed_) job.pending_signal = SIGKILL;
    if (job.pending_signal) self->signal_job(id, *job.pending_signal);

    auto const report = co_await child->wait();
    if (guardian && !step.empty()) guardian->forget_step(self->settings_.slurm_job_id, step);
    // slurm mode: Slurm's figures of the step, and the nodes it ran on (Slurm's NodeList, else
    // the --nodelist it was started with); direct mode: the /proc samples and the exit's rusage.
    proc_sampler::finished_usage finished;
    std::optional<core::usage_summary> measured;
    std::string nodes;
    if (self->steps_) {
        auto step_done = co_await self->steps_->finish(id);
        measured = step_done.summary;
        finished.series = std::move(step_done.series);
        nodes = step_done.nodes;
        if (nodes.empty()) {
            std::vector<std::string> names;
            for (auto const& share : action.placement.nodes) names.push_back(share.node_name);
            nodes = core::compress_hostlist(names);
        }
    } else {
        finished = self->sampler_.finish(child->pid(), report);
        measured = finished.summary;
    }
    auto const usage = measured.value_or(core::usage_summary{});
    bool const signaled = self->jobs_.at(id).signaled;
    self->jobs_.erase(id);
    // Once per attempt, a few kilobytes at most (the series is bounded); none for a job that
    // ended before its first sample, which keeps short jobs to their attempt line.
    if (!finished.series.empty())
        self->record(id, core::usage_line(identity_of(action, self->settings_), finished.series));
    bool const failed = report.status.how != core::exit_status::kind::exited || report.status.code != 0;
    if (failed || self->always_directory())
        self->write_attempt_directory(id, plan->paths, command, environment, &finished.series);
    auto const seconds = std::chrono::duration<double>(report.ended - report.started).count();
    self->log_.write(log_level::info, "runner", "job exited",
                     {{"job", std::to_string(id)},
                      {"name", action.job.name},
                      {"rc", std::to_string(report.status.return_code())},
                      {"status", report.status.describe()},
                      {"seconds", fixed3(seconds)},
                      {"peak_memory_bytes",
                       measured ? std::to_string(usage.peak_memory_bytes) : "unknown"},
                      {"avg_cpu_percent", measured ? fixed3(usage.avg_cpu_percent) : "unknown"},
                      {"nodes", nodes.empty() ? "this" : nodes}});
    core::worker::job_exited exited{id, report.status, std::nullopt, std::nullopt, nodes, {}};
    if (measured) exited.usage = to_job_usage(*measured);
    if (self->settings_.mode == core::execution_mode::slurm)
        exited.step = self->judge_step(id, report.status, plan->paths.stderr_file);
    else if (report.status.return_code() != 0 && !signaled && !self->settings_.slurm_job_id.empty())
        exited.allocation_ending = co_await allocation_ending(self, id);
    self->deliver(std::move(exited));
}

// Direct mode inside an allocation, after a job's non-zero exit: whether Slurm is ending the
// allocation (`squeue -h -j JOB -o %T` says anything but RUNNING, or no longer lists it). Slurm
// sets the allocation's state (CANCELLED, TIMEOUT, PREEMPTED ... shown COMPLETING while its
// processes end) before it sends them SIGTERM, so the answer does not depend on whether the
// job's death or the worker's own SIGTERM reaches the worker first. Asked only after a non-zero
// exit of a job the worker did not signal itself (Torc asks sacct after every step in slurm
// mode); a failed squeue says nothing.
net::awaitable<std::string> job_runner::impl::allocation_ending(std::shared_ptr<impl> self,
                                                                std::int64_t job_id)
{
    auto const& text = self->settings_.slurm_job_id;
    std::int64_t allocation = 0;
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), allocation);
    if (ec != std::errc{} || end != text.data() + text.size()) co_return std::string{};
    auto state = co_await slurm_job_state(self->commands_, allocation, self->settings_.worker_env);
    if (!state) {
        self->log_.write(log_level::warning, "runner", "allocation state unknown",
                         {{"job", std::to_string(job_id)}, {"error", state.error().message}});
        co_return std::string{};
    }
    if (*state == "RUNNING") co_return std::string{};
    co_return detail::cat("Slurm job ", text, " is ", state->empty() ? "gone" : *state,
                          " (squeue)");
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
                          paths.dir + "/recovery.stderr"};
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
                              detail::cat(dir, "/command_", n, ".stderr")};
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
