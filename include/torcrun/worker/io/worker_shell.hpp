// The worker's io shell: one io_context, one thread. It feeds core::worker_fsm with events and
// carries out the actions it returns - server requests through http_client and worker_wire.hpp
// (each request action answered exactly once), local work through job_runner, one steady_timer
// for arm_timer, the results journal in the output directory, heartbeats, SIGTERM / SIGINT /
// SIGUSR1, the allocation's end from squeue when the environment does not say it, and the
// Slurm allocations of the schedule_nodes actions it claims and of its own allocation's record
// (allocation_work.hpp).
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/config/execution_config_merge.hpp"
#include "torcrun/common/env_map.hpp"
#include "torcrun/slurm/mode_choice.hpp"
#include "torcrun/worker/resource_pool.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/common/io/logger.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace torcrun::io {

struct worker_setup {
    core::worker_config config;  // workflow_id set; output_dir may be relative
    core::execution_mode mode = core::execution_mode::direct;
    core::resource_pool pool;    // what this worker places jobs on
    core::env_map worker_env;    // the process environment
    core::env_map workflow_env;  // the workflow record's `env` (newer Torc), under each job's
    std::string hostname;
    std::string slurm_job_id;    // empty outside Slurm
    // The --config file, passed on to the workers of the allocations this worker schedules.
    std::optional<std::string> config_path;
    // Ask `squeue -h -j <id> -o %e` for the end when neither the environment nor the config
    // gave one (the shell does it without blocking the reactor).
    bool look_up_end_time = false;
    // /proc sampling of jobs: the workflow's resource_monitor_config interval; nullopt = 1 s.
    std::optional<double> sample_interval_seconds = std::nullopt;
    // Sampling of the whole node (resource_monitor.compute_node); nullopt: off, Torc's default.
    std::optional<core::node_monitor_settings> node_monitor = std::nullopt;
    bool handle_signals = true;  // SIGTERM, SIGINT (twice: skip the grace), SIGUSR1
};

// How the worker reaches its server: server.url, request_timeout_seconds, username, the first
// line of password_file (else, with a username, $TORC_PASSWORD), and for an https url the CAs
// of tls_ca_cert (else the system's).
// Errors: `server.url: ...`, `server.password_file: cannot read "..."`,
// `server.tls_ca_cert: "...": cannot read: ...`.
core::result<client_settings> client_for(core::worker_config const& config);

// Runs the worker until the state machine exits; the result is the worker's exit code. Every
// job it spawned has been reaped by then.
boost::asio::awaitable<int> run_worker(worker_setup setup, logger log);

}  // namespace torcrun::io
