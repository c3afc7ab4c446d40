// One job attempt, from the spawn action to job_exited: the launch plan (core decides argv,
// environment and paths), the attempt directory with command.txt and environment.txt, the
// non-blocking launch, /proc tracking, and the exit with the usage of the whole tree.
#include "job_runner_impl.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

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

core::job_usage to_job_usage(core::usage_summary const& s)
{
    return {s.peak_memory_bytes, s.avg_memory_bytes, s.peak_cpu_percent, s.avg_cpu_percent};
}

}  // namespace

core::result<core::launch_plan> job_runner::impl::prepare(core::worker::spawn const& action) const
{
    core::launch_request request;
    request.mode = settings_.mode;
    request.identity = {settings_.workflow_id, action.job.id,  action.job.name,
                        action.run_id,         action.job.attempt_id,
                        settings_.workflow_submission_dir};
    request.command = action.job.command;
    request.invocation_script = action.job.invocation_script;
    request.placement = action.placement;
    request.tasks_per_node = action.resources.tasks_per_node;
    request.working_dir = settings_.working_dir;
    request.slurm_job_id = settings_.slurm_job_id;
    request.seconds_left = action.seconds_left;
    auto plan = core::plan_launch(request, settings_.config, settings_.worker_env);
    if (!plan) return plan;

    std::error_code ec;
    std::filesystem::create_directories(plan->paths.dir, ec);
    if (ec)
        return core::error{
            detail::cat("spawn: attempt directory \"", plan->paths.dir, "\": ", ec.message())};
    if (auto ok = write_text(plan->paths.command_file,
                             core::render_command_line(plan->argv) + "\n");
        !ok)
        return ok.error();
    if (auto ok = write_text(plan->paths.environment_file,
                             core::render_env_change(plan->env_changes));
        !ok)
        return ok.error();
    return plan;
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

void job_runner::impl::spawn_failed(std::int64_t job_id, std::string message)
{
    log_.write(log_level::warning, "runner", "job spawn failed",
               {{"job", std::to_string(job_id)}, {"error", message}});
    deliver(core::worker::spawn_failed{job_id, std::move(message)});
}

net::awaitable<void> job_runner::impl::run_attempt(std::shared_ptr<impl> self,
                                                   core::worker::spawn action)
{
    auto const id = action.job.id;
    auto plan = self->prepare(action);
    if (!plan) {
        self->jobs_.erase(id);
        self->spawn_failed(id, plan.error().message);
        co_return;
    }
    // The argv and environment move into the request and the environment change is on disk:
    // what stays in this frame for the job's whole run is the paths (500 sleeping jobs held a
    // copy of the environment each).
    spawn_request request{std::move(plan->argv), std::move(plan->env), plan->working_dir,
                          plan->paths.stdout_file, plan->paths.stderr_file};
    plan->env_changes = {};
    auto launched = co_await self->launcher_.launch(std::move(request));
    if (!launched) {
        self->jobs_.erase(id);
        self->spawn_failed(id, launched.error().message);
        co_return;
    }
    auto const child = *launched;
    auto& job = self->jobs_.at(id);
    job.child = child;
    self->sampler_.track(child->pid(), child->started());
    self->start_sampling();
    auto const gpus = gpu_list(action.placement);
    self->log_.write(log_level::info, "runner", "job started",
                     {{"job", std::to_string(id)},
                      {"pid", std::to_string(child->pid())},
                      {"gpus", gpus.empty() ? "none" : gpus},
                      {"dir", plan->paths.dir}});
    self->deliver(core::worker::job_spawned{id});
    if (self->closed_) job.pending_signal = SIGKILL;
    if (job.pending_signal) self->signal_job(id, *job.pending_signal);

    auto const report = co_await child->wait();
    auto const usage = self->sampler_.finish(child->pid(), report);
    self->jobs_.erase(id);
    auto const seconds = std::chrono::duration<double>(report.ended - report.started).count();
    self->log_.write(log_level::info, "runner", "job exited",
                     {{"job", std::to_string(id)},
                      {"rc", std::to_string(report.status.return_code())},
                      {"status", report.status.describe()},
                      {"seconds", fixed3(seconds)},
                      {"peak_memory_bytes", std::to_string(usage.peak_memory_bytes)},
                      {"avg_cpu_percent", fixed3(usage.avg_cpu_percent)}});
    core::worker::job_exited exited{id, report.status, to_job_usage(usage), std::nullopt};
    if (self->settings_.mode == core::execution_mode::slurm)
        exited.step = self->judge_step(id, report.status, plan->paths.stderr_file);
    self->deliver(std::move(exited));
}

}  // namespace torcrun::io
