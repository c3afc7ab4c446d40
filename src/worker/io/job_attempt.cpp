// One job attempt of io::job_runner (its state in job_runner_impl.hpp), from the spawn action to
// job_exited: the launch plan (core decides argv, environment and paths), its command and
// environment change in the worker's attempt record, the CPUs a GPU job is bound to, the
// non-blocking launch with the streams in job_stdio/, /proc tracking, and the exit with the
// usage of the whole tree and, in slurm mode, Slurm's verdict on the step. The attempt
// directory only for an attempt that failed, or for each with attempt_directory: always.
// Direct mode inside an allocation: a non-zero exit the worker did not cause asks Slurm whether
// the allocation is ending (allocation_ending) before it is delivered.
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

namespace {

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

// The worker's own CPUs (its affinity mask), read once: the CPUs bound jobs are given from.
std::vector<unsigned> const& worker_cpus()
{
    static std::vector<unsigned> const cpus = [] {
        std::vector<unsigned> out;
        constexpr int most = 65536;
        cpu_set_t* set = CPU_ALLOC(most);
        std::size_t const size = CPU_ALLOC_SIZE(most);
        CPU_ZERO_S(size, set);
        if (::sched_getaffinity(0, size, set) == 0)
            for (int c = 0; c < most; ++c)
                if (CPU_ISSET_S(c, size, set)) out.push_back(static_cast<unsigned>(c));
        CPU_FREE(set);
        return out;
    }();
    return cpus;
}

core::job_usage to_job_usage(core::usage_summary const& s)
{
    return {s.peak_memory_bytes, s.avg_memory_bytes, s.peak_cpu_percent, s.avg_cpu_percent};
}

}  // namespace

core::result<core::launch_plan> job_runner::impl::plan(core::worker::spawn const& action) const
{
    core::launch_request request;
    request.mode = settings_.mode;
    request.identity = attempt_identity(action, settings_);
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
                                                     std::string const& environment,
                                                     std::string const& bound_cpus)
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
                core::attempt_line(attempt_identity(action, settings_), command, environment,
                                   bound_cpus));
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

gpu_sampler& job_runner::impl::gpus()
{
    if (!gpus_) gpus_ = std::make_unique<gpu_sampler>(log_, nvml_library_path(), sysfs_root());
    return *gpus_;
}

net::awaitable<void> job_runner::impl::probe_gpus(std::shared_ptr<impl> self)
{
    (void)co_await self->gpus().inventory();
}

net::awaitable<std::vector<unsigned>> job_runner::impl::bind_cpus(std::shared_ptr<impl> self,
                                                                  core::worker::spawn action)
{
    auto const id = action.job.id;
    if (self->steps_ || !self->settings_.config.gpu.cpu_bind || action.placement.nodes.empty()
        || action.placement.nodes.front().gpu_ids.empty())
        co_return std::vector<unsigned>{};
    auto const& share = action.placement.nodes.front();
    auto const inventory = co_await self->gpus().inventory();
    std::set<unsigned> near;
    for (auto const& gpu : share.gpu_ids)
        if (auto const m = core::find_gpu(inventory.devices, gpu))
            near.insert(inventory.devices[m->device].near_cpus.begin(),
                        inventory.devices[m->device].near_cpus.end());
    std::set<unsigned> busy;
    for (auto const& [other, entry] : self->jobs_)
        busy.insert(entry.cpus.begin(), entry.cpus.end());
    std::vector<unsigned> const near_list(near.begin(), near.end());
    auto choice = core::choose_cpus(worker_cpus(), busy, near_list, share.cpus);
    auto const it = self->jobs_.find(id);
    if (it == self->jobs_.end()) co_return std::vector<unsigned>{};
    it->second.cpus = choice.cpus;
    if (!choice.note.empty())
        self->log_.write(log_level::warning, "runner", "GPU job's CPUs not all near its GPUs",
                         {{"job", std::to_string(id)}, {"why", choice.note}});
    co_return choice.cpus;
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
    auto cpus = co_await bind_cpus(self, action);
    if (!self->jobs_.contains(id)) co_return;  // closed while NVML was read
    if (auto prepared = self->prepare_attempt(action, *plan, command, environment,
                                              core::format_cpu_list(cpus));
        !prepared) {
        self->jobs_.erase(id);
        self->spawn_failed(id, prepared.error().message, true);
        co_return;
    }
    spawn_request request{std::move(plan->argv), std::move(plan->env), plan->working_dir,
                          plan->paths.stdout_file, plan->paths.stderr_file, std::move(cpus)};
    plan->env_changes = {};
    // slurm mode: the step is the guardian's from before srun starts until srun has ended.
    auto const& guardian = self->settings_.guardian;
    bool const slurm = self->settings_.mode == core::execution_mode::slurm;
    std::string const step = slurm ? core::step_name(attempt_identity(action, self->settings_)) : "";
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
    if (!self->steps_ && !action.placement.nodes.empty()
        && !action.placement.nodes.front().gpu_ids.empty()) {
        if (!self->gpus_) self->spawn_task(probe_gpus(self), "gpu probe");
        self->gpus().track(id, action.placement.nodes.front().gpu_ids, child->pid(),
                           child->started());
    }
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
    auto const gpu = self->gpus_ ? self->gpus_->finish(id) : std::nullopt;
    self->jobs_.erase(id);
    if (gpu) self->record(id, core::gpu_line(attempt_identity(action, self->settings_), *gpu));
    // Once per attempt, a few kilobytes at most (the series is bounded); none for a job that
    // ended before its first sample, which keeps short jobs to their attempt line.
    if (!finished.series.empty())
        self->record(id, core::usage_line(attempt_identity(action, self->settings_), finished.series));
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
                      {"avg_gpu_percent",
                       gpu && gpu->avg_percent ? fixed3(*gpu->avg_percent) : "unknown"},
                      {"nodes", nodes.empty() ? "this" : nodes}});
    core::worker::job_exited exited{id, report.status, std::nullopt, std::nullopt, nodes, {}};
    if (measured) exited.usage = to_job_usage(*measured);
    if (self->settings_.mode == core::execution_mode::slurm)
        exited.step = self->judge_step(id, report.status, plan->paths.stderr_file);
    else if (report.status.return_code() != 0 && !signaled && !self->settings_.slurm_job_id.empty())
        exited.allocation_ending = co_await allocation_ending(self, id);
    self->deliver(std::move(exited));
}

// Whether Slurm is ending the allocation (`squeue -h -j JOB -o %T` says anything but RUNNING,
// or no longer lists it). Slurm sets the allocation's state (CANCELLED, TIMEOUT, PREEMPTED ...
// shown COMPLETING while its processes end) before it sends them SIGTERM, so the answer does not
// depend on whether the job's death or the worker's own SIGTERM reaches the worker first. Asked
// only after a non-zero exit of a job the worker did not signal itself (Torc asks sacct after
// every step in slurm mode); a failed squeue says nothing.
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

}  // namespace torcrun::io
