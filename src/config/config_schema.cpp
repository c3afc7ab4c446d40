// The configuration schema: the worker's and the server's keys, each with its member, type,
// range or choices and a one-line description, plus the rules between keys, the list defaults
// and the entry points that run the shared table steps over each configuration.
#include "torcrun/config/config.hpp"

#include "config_table.hpp"
#include "config_values.hpp"

#include "torcrun/common/json_writer.hpp"

#include <array>

namespace torcrun::core {

namespace {

using detail::choice;
using detail::key;
using detail::nullable;
using detail::rule;
using k = value_kind;

// -- the worker configuration

using w = worker_config;

constexpr group_rule worker_groups[] = {
    {"server", "How the worker reaches the workflow server."},
    {"poll", "How often the worker asks for jobs."},
    {"termination", "How running jobs are stopped, and when the allocation ends."},
    {"limits", "When the worker gives up on idleness, and on jobs that overrun."},
    {"gpu", "How jobs see the GPUs assigned to them."},
    {"environment", "What jobs inherit from the worker's environment."},
    {"resources", "Overrides of the resources detected from the allocation."},
    {"srun", "Job steps in slurm mode."},
    {"stdio", "Where jobs' stdout and stderr go."},
};

constexpr double max_id = 9007199254740991;  // 2^53 - 1: exact in every JSON reader

constexpr auto worker_keys = std::to_array<detail::key_spec<w>>({
    key<w, &w::server, &w::server_settings::url>(
        "server.url", rule(k::url), "Base URL of the server's REST API."),
    key<w, &w::server, &w::server_settings::request_timeout_seconds>(
        "server.request_timeout_seconds", rule(k::number, 1, 3600),
        "Seconds one HTTP request may take; more than poll.long_poll_seconds."),
    key<w, &w::server, &w::server_settings::retry_window_seconds>(
        "server.retry_window_seconds", rule(k::number, 0, 604800),
        "Seconds to keep retrying an unreachable server before journaling results offline."),
    key<w, &w::server, &w::server_settings::allow_retry_beyond_lease>(
        "server.allow_retry_beyond_lease", rule(k::boolean),
        "Accept a retry window longer than the server's lease (worker_lease_seconds); "
        "otherwise the worker stops at its first heartbeat."),
    key<w, &w::server, &w::server_settings::use_extensions>(
        "server.use_extensions", choice(detail::extension_use_names),
        "torcrun's API extensions (heartbeats and leases, long-poll and fenced claims, batch "
        "completion): auto = where the server's GET /version says it is torcrun's; true = "
        "always; false = plain Torc calls only."),
    key<w, &w::server, &w::server_settings::lost_lease>(
        "server.lost_lease_policy", choice(detail::lost_lease_policy_names),
        "When the server says this worker's lease is gone, or no heartbeat was answered for "
        "the lease minus a margin: stop = kill its jobs, report none, register afresh; "
        "finish = let them finish and report them under a fresh registration where the "
        "server still takes them."),
    key<w, &w::server, &w::server_settings::username>(
        "server.username", nullable(rule(k::string)),
        "User name for HTTP basic authentication; null = none."),
    key<w, &w::server, &w::server_settings::password_file>(
        "server.password_file", nullable(rule(k::string)),
        "File whose first line is the basic-authentication password; null = $TORC_PASSWORD "
        "when set (with server.username), else none."),
    key<w, &w::server, &w::server_settings::tls_ca_cert>(
        "server.tls_ca_cert", nullable(rule(k::string)),
        "PEM file of the CAs that an https server.url's certificate must come from; null = "
        "the system's CA store."),
    key<w, &w::workflow_id>("workflow_id", nullable(rule(k::integer, 1, max_id)),
                            "The workflow to run jobs of; null = give it on the command line."),
    key<w, &w::mode>("mode", choice(detail::run_mode_names),
                     "auto = slurm in a multi-node allocation, else direct; direct = child "
                     "processes on this node; slurm = srun steps placed across the allocation."),
    key<w, &w::output_dir>("output_dir", rule(k::string),
                           "Directory for the worker's logs and each job's output."),
    key<w, &w::label>("label", nullable(rule(k::string)),
                      "Claim only jobs whose spec gives this label (torcrun's server, with "
                      "server.use_extensions); null = only jobs without a label."),
    key<w, &w::poll, &w::poll_settings::interval_seconds>(
        "poll.interval_seconds", rule(k::number, 0.01, 3600),
        "Seconds between requests for jobs while none are ready."),
    key<w, &w::poll, &w::poll_settings::min_interval_seconds>(
        "poll.min_interval_seconds", rule(k::number, 0.01, 3600),
        "Seconds between requests for jobs while jobs keep coming; at most "
        "poll.interval_seconds."),
    key<w, &w::poll, &w::poll_settings::long_poll_seconds>(
        "poll.long_poll_seconds", rule(k::number, 0, 60),
        "Seconds the server may hold a request open until jobs are ready (extension); 0 = off."),
    key<w, &w::poll, &w::poll_settings::startup_delay_seconds>(
        "poll.startup_delay_seconds", rule(k::number, 0, 3600),
        "At most this many seconds (a random draw) the worker waits before it registers, so the "
        "workers of an allocation do not all start at once; 0 = none."),
    key<w, &w::termination, &w::termination_settings::signal>(
        "termination.signal", rule(k::signal), "Signal that asks a job to stop."),
    key<w, &w::termination, &w::termination_settings::grace_seconds>(
        "termination.grace_seconds", rule(k::number, 0, 3600),
        "Seconds between termination.signal and SIGKILL."),
    key<w, &w::termination, &w::termination_settings::end_time>(
        "termination.end_time", nullable(rule(k::date_time)),
        "When the allocation ends: RFC 3339 with a time zone, or Unix seconds; null = ask Slurm."),
    key<w, &w::termination, &w::termination_settings::drain_buffer_seconds>(
        "termination.drain_buffer_seconds", rule(k::number, 0, 86400),
        "Seconds before the end time at which no new jobs start and running ones are stopped."),
    key<w, &w::termination, &w::termination_settings::timeout_exit_code>(
        "termination.timeout_exit_code", rule(k::integer, 0, 255),
        "Return code recorded for a job killed at the end time or for overrunning its runtime."),
    key<w, &w::limits, &w::limits_settings::idle_timeout_seconds>(
        "limits.idle_timeout_seconds", rule(k::number, 0, 604800),
        "Exit after this many seconds with no job running and none to claim; 0 = never."),
    key<w, &w::limits, &w::limits_settings::runtime_factor>(
        "limits.runtime_factor", nullable(rule(k::number, 1, 1000)),
        "Stop a job that runs this many times its requested runtime; null = never."),
    key<w, &w::limits, &w::limits_settings::max_parallel_jobs>(
        "limits.max_parallel_jobs", nullable(rule(k::integer, 1, 1000000)),
        "Hold at most this many jobs at once (a schedule_nodes action's max_parallel_jobs); "
        "null = as many as fit."),
    key<w, &w::limits, &w::limits_settings::enforce_memory>(
        "limits.enforce_memory", rule(k::boolean),
        "Stop a job whose memory use exceeds its request (direct mode)."),
    key<w, &w::limits, &w::limits_settings::oom_exit_code>(
        "limits.oom_exit_code", rule(k::integer, 0, 255),
        "Return code recorded for a job killed for its memory use."),
    key<w, &w::gpu, &w::gpu_settings::visibility_variables>(
        "gpu.visibility_variables", rule(k::variable_names),
        "Variables set to a job's comma-separated GPU ids."),
    key<w, &w::gpu, &w::gpu_settings::device_order>(
        "gpu.device_order", nullable(rule(k::string)),
        "CUDA_DEVICE_ORDER for jobs, so GPU ids match nvidia-smi; null = leave it unset."),
    key<w, &w::gpu, &w::gpu_settings::hide_from_cpu_jobs>(
        "gpu.hide_from_cpu_jobs", rule(k::boolean),
        "Give jobs that asked for no GPU an empty GPU list."),
    key<w, &w::gpu, &w::gpu_settings::cpu_bind>(
        "gpu.cpu_bind", rule(k::boolean),
        "Direct mode: bind each GPU job to as many CPUs as it holds, taken from its GPUs' NUMA "
        "nodes where free (else anywhere, logged)."),
    key<w, &w::environment, &w::environment_settings::scrub>(
        "environment.scrub", rule(k::boolean),
        "Remove the launcher's per-step variables (srun, PMI, MPI) before starting a job."),
    key<w, &w::environment, &w::environment_settings::scrub_patterns>(
        "environment.scrub_patterns", rule(k::env_patterns),
        "What environment.scrub removes: names, or prefixes ending in '*'."),
    key<w, &w::environment, &w::environment_settings::keep_patterns>(
        "environment.keep_patterns", rule(k::env_patterns),
        "Variables kept even when a scrub pattern matches them."),
    key<w, &w::environment, &w::environment_settings::set>(
        "environment.set", rule(k::variable_map), "Variables added to every job's environment."),
    key<w, &w::resources, &w::resources_settings::cpus>(
        "resources.cpus", nullable(rule(k::integer, 1, 1000000)),
        "CPUs per node to use instead of the detected count; null = detect."),
    key<w, &w::resources, &w::resources_settings::memory_bytes>(
        "resources.memory", nullable(rule(k::memory, 1 << 20)),
        "Memory per node to use instead of the detected amount; null = detect."),
    key<w, &w::resources, &w::resources_settings::gpus>(
        "resources.gpus", nullable(rule(k::gpu_ids, 0, 1024)),
        "GPU ids per node (or a count n, meaning ids 0 to n-1) instead of the detected ones; "
        "null = detect."),
    key<w, &w::srun, &w::srun_settings::signal>(
        "srun.signal", nullable(rule(k::srun_signal)),
        "srun --signal for each job step, like TERM@120; null = none."),
    key<w, &w::srun, &w::srun_settings::extra_args>(
        "srun.extra_args", rule(k::string_list), "Extra arguments for every srun job step."),
    key<w, &w::srun, &w::srun_settings::cpu_bind>(
        "srun.cpu_bind", rule(k::boolean),
        "Let Slurm bind each step's tasks to CPUs; false = --cpu-bind=none."),
    key<w, &w::stdio, &w::stdio_settings::mode>(
        "stdio.mode", choice(detail::stdio_mode_names),
        "separate = stdout and stderr files; combined = one file for both; no_stdout, "
        "no_stderr = only the other one; none = neither (/dev/null)."),
    key<w, &w::stdio, &w::stdio_settings::delete_on_success>(
        "stdio.delete_on_success", rule(k::boolean),
        "Delete a job's stdout and stderr files once the server accepted its return code 0."),
    key<w, &w::attempt_directory>(
        "attempt_directory", choice(detail::attempt_directory_use_names),
        "When a job attempt gets a directory of its own, jobs/wf<W>_j<J>/r<R>_a<A>/, with "
        "command.txt, environment.txt, result.json, usage.json and links to its stdout and "
        "stderr: on_failure = only an attempt that failed; always = every attempt. Every "
        "attempt's command, environment and result are also in the worker's record, "
        "job_records/, which torcrun jobs and report read."),
    key<w, &w::log_level>("log_level", choice(detail::log_severity_names),
                          "The least severe messages that are logged."),
});

constexpr std::span<detail::key_spec<w> const> worker_table{worker_keys};

std::vector<detail::cross_problem> worker_cross_check(worker_config const& c)
{
    std::vector<detail::cross_problem> problems;
    if (c.poll.min_interval_seconds > c.poll.interval_seconds) {
        problems.push_back({"poll.min_interval_seconds",
                            format_number(c.poll.min_interval_seconds)
                                + " is greater than poll.interval_seconds ("
                                + format_number(c.poll.interval_seconds) + ")",
                            "poll.interval_seconds"});
    }
    if (c.server.use_extensions != extension_use::off && c.poll.long_poll_seconds > 0
        && c.server.request_timeout_seconds <= c.poll.long_poll_seconds) {
        problems.push_back({"server.request_timeout_seconds",
                            format_number(c.server.request_timeout_seconds)
                                + " must be greater than poll.long_poll_seconds ("
                                + format_number(c.poll.long_poll_seconds) + ")",
                            "poll.long_poll_seconds"});
    }
    if (c.label && c.label->empty()) {
        problems.push_back({"label", "is empty: leave it out (null) to claim unlabelled jobs",
                            "label"});
    }
    if (c.server.password_file && !c.server.username) {
        problems.push_back(
            {"server.password_file", "is set but server.username is not", "server.username"});
    }
    return problems;
}

}  // namespace

result<void> check_retry_window(worker_config const& config, double lease_seconds)
{
    auto const window = config.server.retry_window_seconds;
    if (config.server.allow_retry_beyond_lease || window <= lease_seconds) return {};
    return error{"server.retry_window_seconds: " + format_number(window) +
                 " s is longer than the server's lease (" + format_number(lease_seconds) +
                 " s): the worker would go on retrying after its jobs went to other workers; "
                 "lower it, or set server.allow_retry_beyond_lease=true"};
}

namespace {

// -- the server configuration

using s = server_config;

constexpr group_rule server_groups[] = {
    {"tls", "HTTPS: the server's certificate and key, both or neither; neither = plain HTTP."},
    {"auth", "Who may use the REST API."},
};

constexpr auto server_keys = std::to_array<detail::key_spec<s>>({
    key<s, &s::host>("host", rule(k::string),
                     "Address to listen on; 127.0.0.1 keeps the server to this machine."),
    key<s, &s::port>("port", rule(k::integer, 0, 65535), "TCP port; 0 = any free port."),
    key<s, &s::database>("database", rule(k::string),
                         "SQLite database file; created when missing."),
    key<s, &s::tls, &s::tls_settings::certificate>(
        "tls.certificate", nullable(rule(k::string)),
        "PEM file of the server's certificate, then any intermediate ones; null = plain HTTP."),
    key<s, &s::tls, &s::tls_settings::key>(
        "tls.key", nullable(rule(k::string)),
        "PEM file of the certificate's private key (not encrypted); null = plain HTTP."),
    key<s, &s::tls, &s::tls_settings::handshake_timeout_seconds>(
        "tls.handshake_timeout_seconds", rule(k::number, 0.1, 600),
        "Seconds a new connection may take to finish its TLS handshake; it holds one of "
        "max_connections meanwhile."),
    key<s, &s::auth, &s::auth_settings::htpasswd_file>(
        "auth.htpasswd_file", nullable(rule(k::string)),
        "htpasswd file for HTTP basic authentication; null = no authentication."),
    key<s, &s::auth, &s::auth_settings::enforce_access_control>(
        "auth.enforce_access_control", rule(k::boolean),
        "Each workflow only for its owner (the user who created it), members of the access "
        "groups it is shared with, and admin_users; needs htpasswd_file."),
    key<s, &s::auth, &s::auth_settings::admin_users>(
        "auth.admin_users", rule(k::string_list),
        "Users of the built-in admin group: they manage access groups and see every workflow."),
    key<s, &s::max_body_bytes>("max_body_bytes", rule(k::memory, 1 << 10, 1 << 30),
                               "Largest request body accepted."),
    key<s, &s::max_connections>(
        "max_connections", nullable(rule(k::integer, 1, 1000000)),
        "Most HTTP connections open at once, event streams included; one more is answered 503 "
        "and closed. null = the soft descriptor limit (ulimit -n) less a quarter of it, at "
        "least 64 kept for the database, logs and jobs."),
    key<s, &s::long_poll_max_seconds>("long_poll_max_seconds", rule(k::number, 0, 60),
                                      "Longest time a request for jobs may be held open."),
    key<s, &s::worker_lease_seconds>(
        "worker_lease_seconds", rule(k::number, 5, 86400),
        "A worker not heard from for this long is lost, and lost_worker_jobs applies."),
    key<s, &s::lost_worker_jobs>("lost_worker_jobs", choice(detail::lost_job_policy_names),
                                 "A lost worker's running jobs: ready = run them again, "
                                 "failed = mark them failed."),
    key<s, &s::log_level>("log_level", choice(detail::log_severity_names),
                          "The least severe messages that are logged."),
});

constexpr std::span<detail::key_spec<s> const> server_table{server_keys};

std::vector<detail::cross_problem> server_cross_check(server_config const& c)
{
    std::vector<detail::cross_problem> problems;
    if (c.tls.certificate && !c.tls.key)
        problems.push_back({"tls.certificate", "is set but tls.key is not", "tls.key"});
    if (c.tls.key && !c.tls.certificate)
        problems.push_back({"tls.key", "is set but tls.certificate is not", "tls.certificate"});
    if (c.auth.enforce_access_control && !c.auth.htpasswd_file) {
        problems.push_back({"auth.enforce_access_control",
                            "is true but auth.htpasswd_file is null: access control needs "
                            "authenticated users",
                            "auth.htpasswd_file"});
    }
    return problems;
}

}  // namespace

std::vector<std::string> default_visibility_variables()
{
    return {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
            "ZE_AFFINITY_MASK"};
}

std::vector<std::string> default_scrub_patterns()
{
    return {"PMI_*",         "PMIX_*",          "SLURM_STEP_*",          "SLURM_PROCID",
            "SLURM_LOCALID", "SLURM_NODEID",    "SLURM_TASK_PID",        "SLURM_CPU_BIND*",
            "SLURM_DISTRIBUTION", "SLURM_NTASKS", "SLURM_NPROCS",     "SLURM_TASKS_PER_NODE",
            "SLURM_SRUN_COMM_*", "SLURM_STEPID", "SLURM_GTIDS",       "SLURM_LAUNCH_NODE_IPADDR",
            "SLURM_MPI_TYPE", "SLURM_PMIX*",    "SLURM_MEM_PER_*",       "SLURM_GPUS_*",
            "SLURM_TRES_PER_TASK", "SRUN_*",    "OMPI_*",                "I_MPI_PMI*",
            "PALS_*",        "FLUX_*"};
}

std::vector<std::string> default_keep_patterns()
{
    return {"SLURM_JOB_*",       "SLURM_JOBID",      "SLURM_ARRAY_*",    "SLURM_CONF",
            "SLURM_CLUSTER_NAME", "SLURM_SUBMIT_DIR", "SLURM_SUBMIT_HOST"};
}

std::string_view to_string(run_mode mode) noexcept
{
    return detail::run_mode_names[static_cast<std::size_t>(mode)];
}

std::string_view to_string(stdio_mode mode) noexcept
{
    return detail::stdio_mode_names[static_cast<std::size_t>(mode)];
}

std::string_view to_string(attempt_directory_use use) noexcept
{
    return detail::attempt_directory_use_names[static_cast<std::size_t>(use)];
}

worker_config::stdio_settings const& stdio_of(worker_config const& config,
                                              std::string const& job_name)
{
    auto const it = config.job_stdio.find(job_name);
    return it == config.job_stdio.end() ? config.stdio : it->second;
}

std::string_view to_string(log_severity level) noexcept
{
    return detail::log_severity_names[static_cast<std::size_t>(level)];
}

std::string_view to_string(lost_job_policy policy) noexcept
{
    return detail::lost_job_policy_names[static_cast<std::size_t>(policy)];
}

std::string_view to_string(lost_lease_policy policy) noexcept
{
    return detail::lost_lease_policy_names[static_cast<std::size_t>(policy)];
}

std::string_view to_string(extension_use use) noexcept
{
    return detail::extension_use_names[static_cast<std::size_t>(use)];
}

result<worker_config> parse_worker_config(std::string_view text, std::string_view origin,
                                          std::span<config_override const> overrides)
{
    return detail::parse_config(worker_table, &worker_cross_check, text, origin, overrides);
}

result<void> apply_override(worker_config& config, std::string_view key_path,
                            std::string_view text, std::string_view origin)
{
    return detail::apply_override(worker_table, config, key_path, text, origin);
}

result<void> check_config(worker_config const& config)
{
    return detail::check_with(&worker_cross_check, config);
}

boost::json::value to_json(worker_config const& config)
{
    return detail::config_to_json(worker_table, config);
}

schema_view worker_schema()
{
    return detail::make_view<worker_config>("worker", worker_groups, worker_table);
}

result<server_config> parse_server_config(std::string_view text, std::string_view origin,
                                          std::span<config_override const> overrides)
{
    return detail::parse_config(server_table, &server_cross_check, text, origin, overrides);
}

result<void> apply_override(server_config& config, std::string_view key_path,
                            std::string_view text, std::string_view origin)
{
    return detail::apply_override(server_table, config, key_path, text, origin);
}

result<void> check_config(server_config const& config)
{
    return detail::check_with(&server_cross_check, config);
}

boost::json::value to_json(server_config const& config)
{
    return detail::config_to_json(server_table, config);
}

schema_view server_schema()
{
    return detail::make_view<server_config>("server", server_groups, server_table);
}

namespace detail {

result<worker_config> parse_worker_config_recording(
    std::string_view text, std::string_view origin, std::span<config_override const> overrides,
    std::map<std::string, std::string, std::less<>>& sources)
{
    return parse_config(worker_table, &worker_cross_check, text, origin, overrides, &sources);
}

void assign(std::vector<std::string>& m, boost::json::value const& v)
{
    m.clear();
    for (auto const& e : v.as_array()) m.emplace_back(e.as_string());
}

void assign(std::map<std::string, std::string>& m, boost::json::value const& v)
{
    m.clear();
    for (auto const& member : v.as_object()) {
        m.emplace(member.key(), member.value().as_string());
    }
}

boost::json::value normalize(std::vector<std::string> const& m)
{
    boost::json::array out;
    for (auto const& s : m) out.emplace_back(s);
    return out;
}

boost::json::value normalize(std::map<std::string, std::string> const& m)
{
    boost::json::object out;
    for (auto const& [k, v] : m) out[k] = v;
    return out;
}

}  // namespace detail
}  // namespace torcrun::core
