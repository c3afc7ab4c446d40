// The worker's other local work: failure-rule recovery scripts (docs/TORC-COMPATIBILITY.md §3.3;
// the result is only logged, as in Torc a failing script does not undo the retry) and run_commands
// actions (each command in order with `bash -c` in the output directory, the first failure stops
// them). Both run as helper processes: launched like jobs, killed with them by kill_all().
#include "job_runner_impl.hpp"

#include "torcrun/common/concat.hpp"

#include "torcrun/worker/env_policy.hpp"

#include <filesystem>

namespace torcrun::io {

namespace net = boost::asio;

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

// The environment of a job of this attempt (TORC_* of docs/TORC-COMPATIBILITY.md §2.5, scrubbed, no
// GPU), plus TORC_RETURN_CODE and where the failed attempt's output is, so the script can look at
// it.
net::awaitable<void> job_runner::impl::run_recovery(std::shared_ptr<impl> self,
                                                    core::worker::run_recovery action)
{
    auto const& settings = self->settings_;
    core::torc_job_identity const identity{settings.workflow_id,     action.job_id,
                                           action.job_name,          self->last_run_id_,
                                           action.attempt_id,        settings.workflow_submission_dir};
    auto const paths = core::attempt_log_paths(settings.config.output_dir, identity);
    auto const job = std::to_string(action.job_id);
    core::job_env_request const env_request{core::execution_mode::direct, identity, {}, {}, {}};
    auto env = core::make_job_environment(settings.worker_env, settings.config, env_request);
    if (!env) {
        self->log_.write(log_level::warning, "runner", "recovery script not run",
                         {{"job", job}, {"error", env.error().message}});
        co_return;
    }
    env->env["TORC_RETURN_CODE"] = std::to_string(action.return_code);
    env->env["TORC_JOB_STDOUT"] = paths.stdout_file;
    env->env["TORC_JOB_STDERR"] = paths.stderr_file;
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

namespace {

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
        self->deliver(core::worker::commands_finished{action.action_id, ok, std::move(detail)});
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

}  // namespace torcrun::io
