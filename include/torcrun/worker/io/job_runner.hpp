// The worker's local work, carried out on the worker's io_context: job attempts (launch plan ->
// log directory -> launcher -> /proc sampling -> exit), signals to them, recovery scripts and
// run_commands actions. What happens comes back as core::worker_event values through the sink,
// always from a handler of its own (never from inside a call of these methods), so the shell
// can feed each one straight into the state machine.
//
// Per attempt (launch_plan.hpp decides paths, argv and environment): records the command and
// the environment change in the worker's attempt record (attempt_record.hpp), launches with the
// streams in job_stdio/, then reports job_spawned or spawn_failed, memory_used per sample when
// limits.enforce_memory, and job_exited once with the usage of the whole process tree (its
// series recorded too). The attempt directory (command.txt, environment.txt, usage.json, links
// to the streams) is written for an attempt that failed to start or exited other than with 0,
// and for every attempt with attempt_directory: always.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/common/env_map.hpp"
#include "torcrun/slurm/mode_choice.hpp"
#include "torcrun/worker/worker_actions.hpp"
#include "torcrun/worker/worker_events.hpp"
#include "torcrun/common/io/logger.hpp"
#include "torcrun/worker/io/job_guardian.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace torcrun::io {

class attempt_record_file;

struct job_runner_settings {
    core::worker_config config;  // output_dir already absolute
    core::execution_mode mode = core::execution_mode::direct;
    core::env_map worker_env;      // the worker's own environment, before the job policy
    core::env_map workflow_env;    // the workflow's `env`, under each job's own
    std::int64_t workflow_id = 0;
    std::string slurm_job_id;      // SLURM_JOB_ID; empty outside Slurm
    std::optional<std::string> workflow_submission_dir;
    std::string working_dir;       // where jobs run (Torc: the worker's own); empty = that
    std::chrono::steady_clock::duration sample_interval = std::chrono::seconds(1);
    // Told of every process group (and in slurm mode every step) the runner starts, so that
    // they die with the worker; null: none (tests of the runner alone).
    std::shared_ptr<job_guardian> guardian;
    // The worker's attempt record, shared with the shell; null: none (tests of the runner alone).
    std::shared_ptr<attempt_record_file> record;
};

using event_sink = std::function<void(core::worker_event)>;

class job_runner {
public:
    job_runner(boost::asio::any_io_executor executor, job_runner_settings settings,
               event_sink sink, logger const& log);
    ~job_runner();  // SIGKILLs the groups of jobs still running
    job_runner(job_runner const&) = delete;
    job_runner& operator=(job_runner const&) = delete;

    void spawn(core::worker::spawn const& action);
    void signal(core::worker::signal_job const& action);       // the job's whole group
    void run_recovery(core::worker::run_recovery const& action);  // result only logged
    void run_commands(core::worker::run_commands const& action);  // -> action_finished
    void delete_output(core::worker::delete_output const& action);  // failures only logged

    std::size_t running() const;  // attempts spawned and not yet exited
    void kill_all();              // SIGKILL every running group at once (hard exit)

private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace torcrun::io
