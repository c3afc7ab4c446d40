// Worker and server configuration as plain structs whose member initialisers are the defaults.
// Values get in through the schema tables (config_schema.hpp): from a file, flags, or both.
#pragma once

#include "torcrun/common/error.hpp"

#include <boost/json/value.hpp>

#include <csignal>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

enum class run_mode { automatic, direct, slurm };  // "auto", "direct", "slurm"
enum class log_severity { error, warning, info, debug };
enum class lost_job_policy { ready, failed };  // what the server does with a lost worker's jobs
// What a worker does with its jobs once its lease is gone: stop (kill) them, or let them finish
// and report them under a fresh registration where the server still takes them.
enum class lost_lease_policy { stop, finish };
// Whether a worker uses torcrun's API extensions: where the server says it has them (auto), always
// (on; an extension endpoint the server lacks still turns off on its 404), never (off).
enum class extension_use { automatic, on, off };  // "auto", "true", "false"
// Where a job's stdout and stderr go (Torc's execution_config.stdio modes): separate files, one
// file for both, only one of them, or neither (/dev/null).
enum class stdio_mode { separate, combined, no_stdout, no_stderr, none };
// When a job attempt gets its own directory (command.txt, environment.txt, result.json,
// usage.json and links to its stdout and stderr) beside the flat stdio files: only when it
// failed (the default), or for every attempt.
enum class attempt_directory_use { on_failure, always };  // "on_failure", "always"

std::string_view to_string(run_mode mode) noexcept;
std::string_view to_string(log_severity level) noexcept;
std::string_view to_string(lost_job_policy policy) noexcept;
std::string_view to_string(lost_lease_policy policy) noexcept;
std::string_view to_string(extension_use use) noexcept;
std::string_view to_string(stdio_mode mode) noexcept;  // "separate", "no_stdout", ...
std::string_view to_string(attempt_directory_use use) noexcept;
// List defaults are functions: a braced list in a member initialiser crashes GCC 12 (ICE in
// check_noexcept_r) on `worker_config{}` in a template. CUDA_, ROCR_, HIP_VISIBLE_DEVICES and
// ZE_AFFINITY_MASK:
std::vector<std::string> default_visibility_variables();
// The launcher variables a job must not inherit (srun step, PMI, MPI), and the allocation-wide
// ones kept even when a scrub pattern matches: names, or prefixes ending in '*'.
std::vector<std::string> default_scrub_patterns();
std::vector<std::string> default_keep_patterns();

struct worker_config {
    struct server_settings {
        std::string url = "http://127.0.0.1:8080/torc-service/v1";
        double request_timeout_seconds = 120;
        // Keep retrying this long, then journal offline. The default is the server's default
        // worker_lease_seconds: a window longer than the lease is refused (check_retry_window).
        double retry_window_seconds = 120;
        bool allow_retry_beyond_lease = false;
        extension_use use_extensions = extension_use::automatic;
        // Not a configuration key: whether this worker speaks the extensions, resolved from
        // use_extensions and the server's GET /version before the worker starts.
        bool extensions = true;
        // Not a configuration key: whether retry_window_seconds was set (a file, a flag); when
        // not, the first lease the server names brings it below that lease.
        bool retry_window_set = false;
        lost_lease_policy lost_lease = lost_lease_policy::stop;
        std::optional<std::string> username;
        std::optional<std::string> password_file;
        std::optional<std::string> tls_ca_cert;  // CAs for an https url; nullopt = system store
        bool operator==(server_settings const&) const = default;
    };
    struct poll_settings {
        double interval_seconds = 5;
        double min_interval_seconds = 0.5;
        double long_poll_seconds = 30;  // 0 = off
        double startup_delay_seconds = 0;  // wait a random 0..this before registering
        bool operator==(poll_settings const&) const = default;
    };
    struct termination_settings {
        int signal = SIGTERM;
        double grace_seconds = 30;         // signal -> SIGKILL
        std::optional<double> end_time;    // Unix seconds (UTC); nullopt = none configured
        double drain_buffer_seconds = 60;  // stop starting jobs this long before end_time
        int timeout_exit_code = 152;       // rc of a job killed at the deadline or for overrunning
        bool operator==(termination_settings const&) const = default;
    };
    struct limits_settings {
        double idle_timeout_seconds = 90;     // 0 = never exit for idleness
        std::optional<double> runtime_factor;  // kill at factor x requested runtime; nullopt = off
        bool enforce_memory = false;
        int oom_exit_code = 137;  // rc of a job killed for its memory use
        std::optional<std::int64_t> max_parallel_jobs;  // jobs held at once; nullopt = no cap
        // Not a configuration key: torcrun run sets it for its one worker. When no other worker
        // can make a job ready, ready jobs that can never fit here end the run at once; any other
        // worker names them when it would stop for idleness, since another worker's jobs may
        // still release dependents that fit.
        bool sole_worker = false;
        bool operator==(limits_settings const&) const = default;
    };
    struct gpu_settings {
        std::vector<std::string> visibility_variables = default_visibility_variables();
        std::optional<std::string> device_order = "PCI_BUS_ID";  // CUDA_DEVICE_ORDER
        bool hide_from_cpu_jobs = true;
        // direct mode: bind each GPU job to its CPUs, taken near its GPUs (core::choose_cpus)
        bool cpu_bind = false;
        bool operator==(gpu_settings const&) const = default;
    };
    struct environment_settings {
        bool scrub = true;
        std::vector<std::string> scrub_patterns = default_scrub_patterns();
        std::vector<std::string> keep_patterns = default_keep_patterns();  // win over scrub
        std::map<std::string, std::string> set;
        bool operator==(environment_settings const&) const = default;
    };
    struct resources_settings {  // overrides of what the allocation says; nullopt = detect
        std::optional<std::uint32_t> cpus;
        std::optional<std::uint64_t> memory_bytes;
        std::optional<std::vector<std::string>> gpus;
        bool operator==(resources_settings const&) const = default;
    };
    struct srun_settings {
        std::optional<std::string> signal;  // srun --signal, e.g. "TERM@120"
        std::vector<std::string> extra_args;
        bool cpu_bind = false;  // false: each step gets --cpu-bind=none
        bool operator==(srun_settings const&) const = default;
    };
    struct stdio_settings {
        stdio_mode mode = stdio_mode::separate;
        bool delete_on_success = false;  // remove the files once the server took rc 0
        bool operator==(stdio_settings const&) const = default;
    };
    server_settings server;
    std::optional<std::int64_t> workflow_id;
    run_mode mode = run_mode::automatic;
    std::string output_dir = "torc_output";
    // Claim only jobs with this label (torcrun's server); nullopt = only jobs without a label.
    std::optional<std::string> label;
    poll_settings poll;
    termination_settings termination;
    limits_settings limits;
    gpu_settings gpu;
    environment_settings environment;
    resources_settings resources;
    srun_settings srun;
    stdio_settings stdio;
    // Not a configuration key: the workflow's per-job stdio (execution_config.
    // job_stdio_overrides, job name -> settings), each replacing `stdio` whole for that job.
    std::map<std::string, stdio_settings> job_stdio;
    attempt_directory_use attempt_directory = attempt_directory_use::on_failure;
    log_severity log_level = log_severity::info;
    bool operator==(worker_config const&) const = default;
};

struct server_config {
    struct tls_settings {  // HTTPS when both are set
        std::optional<std::string> certificate;  // PEM chain, the server's certificate first
        std::optional<std::string> key;          // PEM private key, not encrypted
        double handshake_timeout_seconds = 10;   // accept to the end of the TLS handshake
        bool operator==(tls_settings const&) const = default;
    };
    struct auth_settings {
        std::optional<std::string> htpasswd_file;  // nullopt = no authentication
        // Torc's access control: a workflow is seen and changed only by its owner, members of
        // the access groups it is shared with, and admins. Needs htpasswd_file.
        bool enforce_access_control = false;
        std::vector<std::string> admin_users;  // the members of the built-in `admin` group
        bool operator==(auth_settings const&) const = default;
    };
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;  // 0 = any free port
    std::string database = "torcrun.db";
    tls_settings tls;
    auth_settings auth;
    std::uint64_t max_body_bytes = 16 << 20;
    // nullopt = the soft descriptor limit less a quarter (at least 64 kept for other files)
    std::optional<std::uint32_t> max_connections;
    double long_poll_max_seconds = 30;
    double worker_lease_seconds = 120;
    lost_job_policy lost_worker_jobs = lost_job_policy::ready;
    log_severity log_level = log_severity::info;
    bool operator==(server_config const&) const = default;
};

struct config_override {  // one command-line setting, applied over the file
    std::string key_path;  // "poll.interval_seconds"
    std::string text;      // "10"
    std::string origin;    // "--poll-interval": starts the messages about it
};

// Reads a file's text, applies `overrides` in order, then checks the rules between keys; absent
// keys keep their defaults. Every problem is reported, one per line, file first and in order:
// `worker.json:4:23: poll.interval_seconds: -1 is out of range (0.01 to 3600)`.
result<worker_config> parse_worker_config(std::string_view text, std::string_view origin,
                                          std::span<config_override const> overrides = {});
result<server_config> parse_server_config(std::string_view text, std::string_view origin,
                                          std::span<config_override const> overrides = {});

// Sets one key from command-line text parsed by the key's type ("5", "null", "a,b", JSON). Errors
// start with `origin`: `--poll-interval: "fast" is not a number`. No rules between keys here.
result<void> apply_override(worker_config& config, std::string_view key_path,
                            std::string_view text, std::string_view origin);
result<void> apply_override(server_config& config, std::string_view key_path,
                            std::string_view text, std::string_view origin);

// The stdio settings of the job named `job_name`: its entry in job_stdio, else `stdio`.
worker_config::stdio_settings const& stdio_of(worker_config const& config,
                                              std::string const& job_name);

// The rules between keys (poll.min_interval_seconds <= poll.interval_seconds, ...).
result<void> check_config(worker_config const& config);

// The rule between the worker's retry window and the server's lease, known from the first
// heartbeat's answer: a worker that retries longer than its lease goes on after its jobs were
// handed to others, so server.retry_window_seconds above `lease_seconds` is refused unless
// server.allow_retry_beyond_lease is true. `server.retry_window_seconds: 600 s is longer than the
// server's lease (120 s): ...`.
result<void> check_retry_window(worker_config const& config, double lease_seconds);
result<void> check_config(server_config const& config);

// The configuration as a file would say it (memory as "16m", signals by name, modes by name).
boost::json::value to_json(worker_config const& config);
boost::json::value to_json(server_config const& config);

}  // namespace torcrun::core
