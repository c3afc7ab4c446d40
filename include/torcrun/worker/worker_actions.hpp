// What worker_fsm asks the io shell to do: small structs in one std::variant. The shell switches
// on the alternative and carries it out; requests to the server carry a request_id that the
// reply event (worker_events.hpp) names again. A request that failed is re-sent under the same id.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/worker/resource_pool.hpp"
#include "torcrun/worker/worker_model.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace torcrun::core {

enum class request_id : std::uint64_t {};

namespace worker {

// ---- requests to the server (Torc REST, docs/TORC-COMPATIBILITY.md §2.1)
struct register_node {  // POST /compute_nodes, is_active: true; the pool's totals
    request_id request{};
    std::uint32_t cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::uint32_t gpus = 0;
    std::uint32_t nodes = 0;
};
struct read_workflow { request_id request{}; };  // GET workflows/{id} and .../status
struct read_pending_actions { request_id request{}; action_trigger trigger{}; };
struct claim_action { request_id request{}; std::int64_t action_id = 0; };
// claim_jobs_based_on_resources: what one node could still take (each dimension the largest
// over the nodes), the number of nodes a multi-node job may take, every node's free resources
// for servers that place per node, and the long-poll wait (0 = answer at once). `start`: the
// server may mark the jobs it hands out running for this node (claim and start, extension).
struct claim_jobs {
    request_id request{};
    std::uint32_t limit = 0;
    per_node_amounts per_node;
    std::uint32_t num_nodes = 0;
    std::optional<double> time_limit_seconds;  // nullopt = no end known
    double wait_seconds = 0;
    std::vector<node_availability> nodes;
    bool start = false;
};
struct read_requirements { request_id request{}; std::int64_t requirements_id = 0; };
// The job transitions carry the attempt they act for (the fence, with the compute node: a server
// refuses them with 409 once the job is not this node's attempt any more).
struct start_job { request_id request{}; std::int64_t job_id = 0; std::uint32_t attempt_id = 1; };
struct hand_back {  // status -> ready
    request_id request{};
    std::int64_t job_id = 0;
    std::uint32_t attempt_id = 1;
};
struct read_failure_handler { request_id request{}; std::int64_t handler_id = 0; };
struct retry_job {
    request_id request{};
    std::int64_t job_id = 0;
    std::uint32_t max_retries = 0;
    std::uint32_t attempt_id = 1;  // the failed attempt
};
struct record_result { request_id request{}; job_result result; };  // POST /results
struct complete_job { request_id request{}; job_result result; };
struct complete_jobs { request_id request{}; std::vector<job_result> results; };  // batch
// POST workflows/{id}/complete_and_claim_jobs/{limit} (extension): complete_jobs' results, then
// `claim` (never waiting), in one request and one server transaction; the request id is the
// claim's key, as for claim_jobs. Answered by completed_and_claimed.
struct complete_and_claim {
    request_id request{};
    std::vector<job_result> results;
    claim_jobs claim;
};
// GET workflows/{id}/is_complete; with_ready_jobs: then, unless complete or canceled, GET
// jobs?status=ready and resource_requirements of the workflow (the never-fit check).
struct check_workflow { request_id request{}; bool with_ready_jobs = false; };
struct deactivate_node { request_id request{}; double duration_seconds = 0; };
// POST /compute_nodes/{id}/heartbeat (with use_extensions): renews the node's lease. An answer
// later than timeout_seconds counts as none (the next beat is due by then).
struct heartbeat { request_id request{}; double timeout_seconds = 15; };
// GET /jobs?workflow_id=..&active_compute_node_id=..: the jobs the server holds for this node
// (reconciliation after an answer that never came).
struct read_held_jobs { request_id request{}; };
// A compute node an earlier worker in this output directory registered (the journal keeps them):
// GET compute_nodes/{id}; if it is an active node of this workflow, GET jobs?active_compute_node_id=
// (what it still holds), then PUT it back with is_active false. The server then puts its jobs
// back as for an expired lease: pending ones on their attempt, running ones on a new attempt (or
// failed, per its lost_worker_jobs). Answered by node_released.
struct release_node {
    request_id request{};
    std::int64_t compute_node_id = 0;
    std::int64_t workflow_id = 0;  // this worker's: a node of any other is left alone
};

// ---- local work
struct run_commands { std::int64_t action_id = 0; std::vector<std::string> commands; };
// A claimed schedule_nodes action: read its slurm_scheduler and the workflow's slurm_defaults,
// sbatch num_allocations scripts, record each as a pending scheduled compute node.
struct schedule_allocations { std::int64_t action_id = 0; allocation_config config; };
// Start the attempt: the shell builds the launch plan from these values (seconds_left: until
// the allocation ends, for srun --time; nullopt when no end is known).
struct spawn {
    claimed_job job;
    job_resources resources;
    reservation placement;
    std::int64_t run_id = 0;
    std::optional<double> seconds_left;
};
struct signal_job { std::int64_t job_id = 0; int signal = 0; };  // to the job's process group
struct check_outputs { std::int64_t job_id = 0; std::vector<std::int64_t> file_ids; };
struct run_recovery {  // a failure rule's recovery script, after the retry was accepted
    std::int64_t job_id = 0;
    std::string job_name;
    std::uint32_t attempt_id = 1;  // the failed attempt
    int return_code = 0;
    std::string script;
};
// stdio.delete_on_success: the server accepted this attempt's return code 0, so its stdout and
// stderr files go (the shell knows the layout: attempt_log_paths).
struct delete_output {
    std::int64_t job_id = 0;
    std::string job_name;
    std::int64_t run_id = 0;
    std::uint32_t attempt_id = 1;
};
struct journal_append { std::vector<job_report> reports; };  // unreported results, on disk
struct report_key {
    report_kind kind{};
    std::int64_t job_id = 0;
    std::uint32_t attempt_id = 0;
    bool operator==(report_key const&) const = default;
};
struct journal_remove { std::vector<report_key> keys; };  // reported (or refused) at last
// The journal's list of compute nodes that may hold this worker's jobs: one registered (added),
// or one deactivated or released (dropped), so a worker started after a crash finds the rest.
struct journal_node { std::int64_t compute_node_id = 0; bool registered = true; };
struct arm_timer { std::chrono::steady_clock::time_point at; };  // one timer; replaces the last
struct log { log_severity level = log_severity::info; std::string message; };
struct exit_worker { int code = 0; };

}  // namespace worker

using worker_action =
    std::variant<worker::register_node, worker::read_workflow, worker::read_pending_actions,
                 worker::claim_action, worker::claim_jobs, worker::read_requirements,
                 worker::start_job, worker::hand_back, worker::read_failure_handler,
                 worker::retry_job, worker::record_result, worker::complete_job,
                 worker::complete_jobs, worker::complete_and_claim, worker::check_workflow,
                 worker::deactivate_node,
                 worker::heartbeat, worker::read_held_jobs, worker::release_node,
                 worker::run_commands, worker::schedule_allocations, worker::spawn,
                 worker::signal_job, worker::check_outputs, worker::run_recovery,
                 worker::delete_output, worker::journal_append, worker::journal_remove,
                 worker::journal_node, worker::arm_timer, worker::log, worker::exit_worker>;

// The request id of a server request; nullopt for local work.
std::optional<request_id> request_of(worker_action const& action);

// One line for logs and tests, without the request id: "start_job 42",
// "claim_jobs limit=8 cpus=8 memory=16g gpus=4 nodes=1 wait=30", "warning: ...".
// arm_timer prints seconds since the clock's epoch.
std::string describe(worker_action const& action);

}  // namespace torcrun::core
