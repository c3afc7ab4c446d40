// Launch planning: the argv of each mode, the attempt's file layout and the checks that keep
// a wrong placement from reaching srun. The flag choices are explained in launch_plan.hpp.
#include "torcrun/worker/launch_plan.hpp"

#include "torcrun/slurm/hostlist.hpp"
#include "torcrun/common/units.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace torcrun::core {

namespace {

using detail::cat;

std::string number(double value)
{
    char buf[64];
    auto const [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

std::string join_path(std::string_view dir, std::string_view name)
{
    if (dir.empty()) return std::string(name);
    if (dir.ends_with('/')) return cat(dir, name);
    return cat(dir, "/", name);
}

std::string script_of(launch_request const& r)
{
    if (!r.invocation_script || r.invocation_script->empty()) return r.command;
    return cat(*r.invocation_script, " ", r.command);
}

error failure(launch_request const& r, std::string_view detail)
{
    return error{cat("launch: job ", std::to_string(r.identity.job_id), ": ", detail)};
}

std::vector<std::string> node_names(reservation const& placement)
{
    std::vector<std::string> names;
    for (auto const& share : placement.nodes) names.push_back(share.node_name);
    return names;
}

result<void> check_request(launch_request const& r)
{
    if (r.command.find('\0') != std::string::npos) return failure(r, "the command contains NUL");
    if (r.invocation_script && r.invocation_script->find('\0') != std::string::npos)
        return failure(r, "the invocation script contains NUL");
    auto const nodes = r.placement.nodes.size();
    if (nodes == 0) return failure(r, "no node was reserved");
    if (r.mode == execution_mode::direct && nodes > 1)
        return failure(r, cat("direct mode runs a job on one node, the reservation has ",
                              std::to_string(nodes), " (",
                              compress_hostlist(node_names(r.placement)), ")"));
    return {};
}

// Torc's sigkill_headroom_seconds: the drain buffer is the headroom plus the grace.
double kill_headroom_seconds(worker_config::termination_settings const& t)
{
    return std::max(0.0, t.drain_buffer_seconds - t.grace_seconds);
}

result<std::int64_t> step_minutes_of(launch_request const& r, double headroom_seconds)
{
    auto const left = *r.seconds_left;
    auto const minutes = std::floor((left - headroom_seconds) / 60);
    if (!(minutes >= 1))
        return failure(r, cat(number(left), " s left in the allocation, less than the ",
                              number(headroom_seconds), " s headroom plus one minute"));
    return static_cast<std::int64_t>(minutes);
}

// The srun flags before the command, in the order launch_plan.hpp lists them.
result<std::vector<std::string>> srun_flags(launch_request const& r, worker_config const& config)
{
    if (r.slurm_job_id.empty()) return failure(r, "slurm mode needs the Slurm job id");
    auto const per_node = r.tasks_per_node.value_or(1);
    auto const& share = r.placement.nodes.front();
    if (r.tasks_per_node && per_node == 0) return failure(r, "tasks_per_node must be at least 1");
    if (share.cpus < per_node)
        return failure(r, cat(std::to_string(per_node), " tasks per node need at least ",
                              std::to_string(per_node), " CPUs per node, the job has ",
                              std::to_string(share.cpus)));
    auto const nodes = static_cast<std::uint32_t>(r.placement.nodes.size());

    std::vector<std::string> argv{"srun", "--jobid=" + r.slurm_job_id, "--exact"};
    if (!config.srun.cpu_bind) argv.emplace_back("--cpu-bind=none");
    argv.push_back("--nodes=" + std::to_string(nodes));
    if (r.tasks_per_node) {
        argv.push_back("--ntasks=" + std::to_string(nodes * per_node));
        if (nodes > 1) argv.push_back("--ntasks-per-node=" + std::to_string(per_node));
    } else {
        argv.emplace_back("--ntasks=1");  // Torc: the command runs once, whatever the nodes
    }
    argv.push_back("--cpus-per-task=" + std::to_string(share.cpus / per_node));
    if (auto const mb = memory_megabytes(share.memory_bytes); mb > 0)
        argv.push_back(cat("--mem=", std::to_string(mb), "M"));
    if (share.gpu_ids.empty())
        argv.emplace_back("--gres=none");
    else
        argv.push_back("--gpus-per-node=" + std::to_string(share.gpu_ids.size()));
    argv.push_back("--nodelist=" + compress_hostlist(node_names(r.placement)));
    argv.push_back("--job-name=" + step_name(r.identity));
    if (r.seconds_left) {
        auto minutes = step_minutes_of(r, kill_headroom_seconds(config.termination));
        if (!minutes) return minutes.error();
        argv.push_back("--time=" + std::to_string(*minutes));
    }
    argv.emplace_back("--kill-on-bad-exit=1");
    if (config.srun.signal) argv.push_back("--signal=" + *config.srun.signal);
    argv.insert(argv.end(), config.srun.extra_args.begin(), config.srun.extra_args.end());
    return argv;
}

}  // namespace

std::string step_name(torc_job_identity const& id)
{
    return cat("wf", std::to_string(id.workflow_id), "_j", std::to_string(id.job_id), "_r",
               std::to_string(id.run_id), "_a", std::to_string(id.attempt_id));
}

attempt_paths attempt_log_paths(std::string_view output_dir, torc_job_identity const& id,
                                stdio_mode stdio)
{
    auto const w = std::to_string(id.workflow_id);
    auto const j = std::to_string(id.job_id);
    auto const job_dir = join_path(join_path(output_dir, "jobs"), cat("wf", w, "_j", j));
    auto const dir = join_path(job_dir, cat("r", std::to_string(id.run_id), "_a",
                                      std::to_string(id.attempt_id)));
    auto const stem = join_path(job_stdio_dir(output_dir),
                                cat("job_wf", w, "_j", j, "_r", std::to_string(id.run_id), "_a",
                                    std::to_string(id.attempt_id)));
    attempt_paths paths{dir,
                        stem + ".o",
                        stem + ".e",
                        join_path(dir, "command.txt"),
                        join_path(dir, "environment.txt"),
                        join_path(dir, "result.json"),
                        join_path(dir, "usage.json")};
    switch (stdio) {
        case stdio_mode::separate: break;
        case stdio_mode::combined: paths.stdout_file = paths.stderr_file = stem + ".log"; break;
        case stdio_mode::no_stdout: paths.stdout_file.clear(); break;
        case stdio_mode::no_stderr: paths.stderr_file.clear(); break;
        case stdio_mode::none: paths.stdout_file.clear(), paths.stderr_file.clear(); break;
    }
    return paths;
}

std::string job_stdio_dir(std::string_view output_dir) { return join_path(output_dir, "job_stdio"); }

std::string attempt_record_dir(std::string_view output_dir)
{
    return join_path(output_dir, "job_records");
}

std::vector<std::string> stdio_files(attempt_paths const& paths)
{
    std::vector<std::string> files;
    if (!paths.stdout_file.empty()) files.push_back(paths.stdout_file);
    if (!paths.stderr_file.empty() && paths.stderr_file != paths.stdout_file)
        files.push_back(paths.stderr_file);
    return files;
}

std::vector<std::pair<std::string, std::string>> stdio_links(attempt_paths const& paths)
{
    std::vector<std::pair<std::string, std::string>> links;
    if (!paths.stdout_file.empty() && paths.stdout_file == paths.stderr_file)
        return {{paths.stdout_file, join_path(paths.dir, "output")}};
    if (!paths.stdout_file.empty()) links.emplace_back(paths.stdout_file, join_path(paths.dir, "stdout"));
    if (!paths.stderr_file.empty()) links.emplace_back(paths.stderr_file, join_path(paths.dir, "stderr"));
    return links;
}

result<launch_plan> plan_launch(launch_request const& request, worker_config const& config,
                                env_map const& worker_env)
{
    if (auto ok = check_request(request); !ok) return ok.error();

    std::vector<std::string> argv;
    if (request.mode == execution_mode::slurm) {
        auto flags = srun_flags(request, config);
        if (!flags) return flags.error();
        argv = std::move(*flags);
    }
    argv.insert(argv.end(), {"bash", "-c", script_of(request)});

    job_env_request env_request{request.mode, request.identity, request.workflow_env,
                                request.job_env, {}};
    if (request.mode == execution_mode::direct)
        env_request.gpu_ids = request.placement.nodes.front().gpu_ids;
    auto env = make_job_environment(worker_env, config, env_request);
    if (!env) return failure(request, env.error().message);

    return launch_plan{std::move(argv), std::move(env->env), std::move(env->changes),
                       request.working_dir,
                       attempt_log_paths(config.output_dir, request.identity,
                                         stdio_of(config, request.identity.job_name).mode)};
}

bool too_late_for_a_step(std::optional<double> seconds_left, worker_config const& config)
{
    return seconds_left &&
           !(std::floor((*seconds_left - kill_headroom_seconds(config.termination)) / 60) >= 1);
}

}  // namespace torcrun::core
