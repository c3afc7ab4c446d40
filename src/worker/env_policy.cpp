// The job environment pipeline of env_policy.hpp, one function per stage, in the order the
// header states. The lists here are the facts behind the stages: which names torcrun owns and
// which srun input variables would change a step.
#include "torcrun/worker/env_policy.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace torcrun::core {

namespace {

using detail::cat;

// Each srun input variable (srun(1) INPUT ENVIRONMENT VARIABLES; env_vars[] of srun's opt.c in
// 21.08, plus the newer SRUN_CPUS_PER_TASK and SLURM_TRES_PER_TASK) that changes what a step gets
// or how it runs: on Slurm 22.05 an inherited SLURM_GPUS_PER_NODE=4 turned a `--gpus=1` step into a
// 4-GPU one (docs/TORC-COMPATIBILITY.md §7). Left alone, because torcrun passes them explicitly or
// they do not change the step: SLURM_JOB_ID, SLURM_JOB_NAME, SLURM_JOB_NUM_NODES (overridden by
// --jobid, --job-name, --nodes), SLURM_JOB_NODELIST (the allocation), SLURM_CONF, and the
// accounting names (account, partition, QOS, reservation).
std::vector<std::string> const srun_inputs{
    // what each task gets
    "SLURM_CPUS_PER_TASK*", "SRUN_CPUS_PER_TASK*", "SLURM_CPUS_PER_GPU*", "SLURM_GPUS*",
    "SLURM_GRES*", "SLURM_STEP_GRES*", "SLURM_TRES_PER_TASK*", "SLURM_MEM_PER_*",
    "SLURM_NTASKS*", "SLURM_NPROCS*", "SLURM_NSOCKETS_PER_NODE*", "SLURM_NCORES_PER_SOCKET*",
    "SLURM_THREADS_PER_CORE*", "SLURM_CORE_SPEC*", "SLURM_THREAD_SPEC*", "SLURM_OVERCOMMIT*",
    // where and how it is placed and bound
    "SLURM_EXACT*", "SLURM_EXCLUSIVE*", "SLURM_OVERLAP*", "SLURM_DISTRIBUTION*",
    "SLURM_DIST_PLANESIZE*", "SLURM_SPREAD_JOB*", "SLURM_USE_MIN_NODES*", "SLURM_HOSTFILE*",
    "SLURM_CONSTRAINT*", "SLURM_CPU_BIND*", "SLURM_CPU_FREQ_REQ*", "SLURM_MEM_BIND*",
    "SLURM_GPU_BIND*", "SLURM_GPU_FREQ*", "SLURM_HINT*", "SLURM_MPI_TYPE*",
    // its life: limits, signals, what ends it
    "SLURM_TIMELIMIT*", "SLURM_SIGNAL*", "SLURM_KILL_BAD_EXIT*", "SLURM_NO_KILL*", "SLURM_WAIT*",
    // its environment, directory and I/O
    "SLURM_EXPORT_ENV*", "SRUN_EXPORT_ENV*", "SLURM_REMOTE_CWD*", "SLURM_WORKING_DIR*",
    "SLURM_STDOUTMODE*", "SLURM_STDERRMODE*", "SLURM_STDINMODE*", "SLURM_LABELIO*",
    "SLURM_UNBUFFEREDIO*", "SLURM_OPEN_MODE*", "SLURM_SRUN_MULTI*"};

std::vector<std::string> const torc_owned{
    "TORC_API_URL",    "TORC_ATTEMPT_ID",  "TORC_JOB_ID", "TORC_JOB_NAME",
    "TORC_OUTPUT_DIR", "TORC_RETURN_CODE", "TORC_RUN_ID", "TORC_WORKFLOW_ID",
    "TORC_WORKFLOW_SUBMISSION_DIR"};

// The client credentials of Torc's commands (and so of the shell that started the worker): a
// job never inherits them, whatever environment.scrub says.
std::vector<std::string> const client_secrets{"TORC_PASSWORD", "TORC_COOKIE_HEADER"};

// A name as a message shows it: a NUL would end the line in most logs.
std::string printable(std::string_view name)
{
    std::string out;
    for (char c : name) {
        if (c == '\0')
            out += "\\0";
        else
            out += c;
    }
    return out;
}

result<void> check_names(env_map const& env, std::string_view what)
{
    for (auto const& [name, value] : env) {
        if (name.empty() || name.find_first_of(std::string_view("=\0", 2)) != std::string::npos)
            return error{cat(what, ": \"", printable(name), "\" is not a valid variable name")};
        if (value.find('\0') != std::string::npos)
            return error{cat(what, ": the value of \"", name, "\" contains NUL")};
    }
    return {};
}

void erase_matching(env_map& env, std::span<std::string const> patterns,
                    std::span<std::string const> keep = {})
{
    // Exact names only and nothing kept (torcrun's own lists): one lookup per name, not a
    // comparison of every variable with every pattern.
    if (keep.empty() &&
        std::ranges::none_of(patterns, [](auto const& p) { return p.ends_with('*'); })) {
        for (auto const& name : patterns)
            if (auto const it = env.find(name); it != env.end()) env.erase(it);
        return;
    }
    std::erase_if(env, [&](auto const& entry) {
        return matches_any(entry.first, patterns) && !matches_any(entry.first, keep);
    });
}

void overlay(env_map& env, env_map const& values)
{
    for (auto const& [name, value] : values) env.insert_or_assign(name, value);
}

void set_torc_variables(env_map& env, worker_config const& config, torc_job_identity const& id)
{
    env.insert_or_assign("TORC_WORKFLOW_ID", std::to_string(id.workflow_id));
    env.insert_or_assign("TORC_JOB_ID", std::to_string(id.job_id));
    env.insert_or_assign("TORC_JOB_NAME", id.job_name);
    env.insert_or_assign("TORC_OUTPUT_DIR", config.output_dir);
    env.insert_or_assign("TORC_ATTEMPT_ID", std::to_string(id.attempt_id));
    env.insert_or_assign("TORC_API_URL", config.server.url);
    env.insert_or_assign("TORC_RUN_ID", std::to_string(id.run_id));
    if (id.workflow_submission_dir)
        env.insert_or_assign("TORC_WORKFLOW_SUBMISSION_DIR", *id.workflow_submission_dir);
}

void set_gpu_visibility(env_map& env, worker_config::gpu_settings const& gpu,
                        job_env_request const& request)
{
    for (auto const& name : gpu.visibility_variables) {
        if (request.mode == execution_mode::slurm)
            env.erase(name);
        else if (!request.gpu_ids.empty())
            env.insert_or_assign(name, join(request.gpu_ids, ","));
        else if (gpu.hide_from_cpu_jobs)
            env.insert_or_assign(name, "");
    }
    if (gpu.device_order) env.insert_or_assign("CUDA_DEVICE_ORDER", *gpu.device_order);
}

}  // namespace

bool matches_pattern(std::string_view name, std::string_view pattern)
{
    if (pattern.ends_with('*')) return name.starts_with(pattern.substr(0, pattern.size() - 1));
    return name == pattern;
}

bool matches_any(std::string_view name, std::span<std::string const> patterns)
{
    return std::ranges::any_of(patterns, [&](auto const& p) { return matches_pattern(name, p); });
}

std::span<std::string const> torc_owned_variables()
{
    return torc_owned;
}

std::span<std::string const> client_secret_variables()
{
    return client_secrets;
}

std::span<std::string const> srun_input_patterns()
{
    return srun_inputs;
}

result<job_environment> make_job_environment(env_map const& worker_env,
                                             worker_config const& config,
                                             job_env_request const& request)
{
    auto const& settings = config.environment;
    env_map const config_set(settings.set.begin(), settings.set.end());
    if (auto ok = check_names(config_set, "environment.set"); !ok) return ok.error();
    if (auto ok = check_names(request.workflow_env, "workflow env"); !ok) return ok.error();
    if (auto ok = check_names(request.job_env, "job env"); !ok) return ok.error();

    env_map env = worker_env;
    erase_matching(env, torc_owned);
    erase_matching(env, client_secrets);
    if (settings.scrub) erase_matching(env, settings.scrub_patterns, settings.keep_patterns);
    std::map<std::string, std::string, std::less<>> sources;
    auto const from = [&](env_map const& values, std::string_view source) {
        overlay(env, values);
        for (auto const& entry : values) sources.insert_or_assign(entry.first, std::string(source));
    };
    from(config_set, "environment.set");
    from(request.workflow_env, "workflow env");
    from(request.job_env, "job env");
    // Only the names the next two stages write can change: their values before, not a copy of
    // the whole environment per job.
    std::vector<std::pair<std::string_view, std::optional<std::string>>> before_torcrun;
    auto const remember = [&](std::string_view name) {
        auto const old = lookup(env, name);
        before_torcrun.emplace_back(name, old ? std::optional<std::string>(*old) : std::nullopt);
    };
    for (auto const& name : torc_owned) remember(name);
    for (auto const& name : config.gpu.visibility_variables) remember(name);
    remember("CUDA_DEVICE_ORDER");
    set_torc_variables(env, config, request.identity);
    set_gpu_visibility(env, config.gpu, request);
    for (auto const& [name, old] : before_torcrun)
        if (auto const now = lookup(env, name); now && (!old || *old != *now))
            sources.insert_or_assign(std::string(name), "torcrun");
    if (request.mode == execution_mode::slurm) erase_matching(env, srun_inputs);

    auto changes = diff_environment(worker_env, env);
    for (auto const& entry : changes.set)
        if (auto const it = sources.find(entry.first); it != sources.end())
            changes.sources.emplace(entry.first, it->second);
    return job_environment{std::move(env), std::move(changes)};
}

}  // namespace torcrun::core
