// What the io shell tells worker_fsm: replies to its requests (naming the request_id of the
// action they answer), what happened to job processes, signals, and timer expiry. Small structs
// in one std::variant; the shell converts JSON and wait statuses into them.
#pragma once

#include "torcrun/common/exit_status.hpp"
#include "torcrun/worker/step_exit.hpp"
#include "torcrun/worker/worker_actions.hpp"
#include "torcrun/worker/worker_model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace torcrun::core {

// How an HTTP request failed. Every kind but http_4xx is transient: the request is re-sent
// after a backoff. http_4xx gives up on that request.
enum class http_failure { connect, dns, timeout, reset, http_5xx, http_4xx };

std::string_view to_string(http_failure kind);

namespace worker {

// ---- life cycle
struct begin {  // the first event: wall clock now, and results a previous worker journaled
    double unix_now = 0;
    std::vector<job_report> journaled;
    // The allocation's end is being looked up (squeue): no claim goes out until it answers,
    // with end_time_learned or end_time_unknown, so no job is claimed that cannot end in time.
    bool end_time_coming = false;
};
// Right after begin, when the journal names any: the compute nodes a previous worker in this
// output directory registered and did not deactivate (it crashed, or was killed). They are
// released before the first claim (release_node).
struct earlier_nodes_found { std::vector<std::int64_t> compute_node_ids; };
struct end_time_learned { double end_unix = 0; double unix_now = 0; };  // e.g. from squeue
struct end_time_unknown {};  // the lookup of begin.end_time_coming failed: claim without a limit
struct signal_received { int signal = 0; };
struct tick {};  // the timer of arm_timer expired

// ---- replies
struct node_registered { request_id request{}; std::int64_t compute_node_id = 0; };
struct workflow_read {
    request_id request{};
    std::int64_t run_id = 0;
    bool use_pending_failed = false;
    bool job_actions = false;  // some action has an on_jobs_ready or on_jobs_complete trigger
};
struct pending_actions_read { request_id request{}; std::vector<workflow_action> actions; };
// 409 = not claimed; then the action's executed_by as the server lists it (held_by), so that a
// worker whose claim was re-sent after a lost answer sees that it holds the action itself.
struct action_claim_read {
    request_id request{};
    bool claimed = false;
    std::optional<std::int64_t> held_by;
};
struct jobs_claimed { request_id request{}; std::vector<claimed_job> jobs; };
struct requirements_read { request_id request{}; job_resources resources; };
struct failure_handler_read { request_id request{}; failure_handler handler; };
struct workflow_state_read {
    request_id request{};
    bool is_complete = false;
    bool is_canceled = false;
};
// check_workflow with_ready_jobs, when the workflow is neither complete nor canceled: its ready
// jobs with their requirements, and whether the server had more than one page of them.
struct ready_jobs_read {
    request_id request{};
    workflow_state_read state;
    std::vector<ready_job> jobs;
    bool more = false;
};
struct rejected_report {
    std::int64_t job_id = 0;
    std::string message;
    int http_status = 0;  // the entry's own status where the server names it (409: fenced off)
};
struct jobs_reported {  // batch completion: accepted ids and per-entry errors
    request_id request{};
    std::vector<std::int64_t> completed;
    std::vector<rejected_report> rejected;
};
// complete_and_claim answered: the completions' verdicts and the claimed jobs; a claim the
// server refused (its completions went in all the same) names its status and message.
struct claim_refusal {
    int http_status = 0;
    std::string message;
};
struct completed_and_claimed {
    request_id request{};
    jobs_reported reported;
    jobs_claimed claimed;
    std::optional<claim_refusal> claim_error;
};
// A heartbeat was answered: the lease the server names (nullopt: it names none). A 409 or 404
// (the node is inactive or gone: its lease is lost) comes as request_failed.
struct heartbeat_answered { request_id request{}; std::optional<double> lease_seconds; };
// read_held_jobs: each job the server lists as held by this compute node.
struct held_job {
    std::int64_t job_id = 0;
    std::string status;  // "pending", "running", ...
    std::uint32_t attempt_id = 1;
};
struct held_jobs_read { request_id request{}; std::vector<held_job> jobs; };
// release_node: what the server said of an earlier worker's node.
enum class earlier_node {
    released,  // an active node of this workflow, now deactivated: its jobs went back
    inactive,  // already deactivated (shut down, or its lease ran out): nothing to do
    foreign,   // a node of another workflow (the directory served another server): left alone
    unknown,   // 404: no such node
};
std::string_view to_string(earlier_node outcome);
struct node_released {
    request_id request{};
    std::int64_t compute_node_id = 0;
    earlier_node outcome = earlier_node::released;
    std::vector<held_job> jobs;  // released: the jobs it held just before
};
// Success of a request whose reply carries nothing the worker needs: start_job, hand_back,
// retry_job, record_result, complete_job, deactivate_node.
struct request_done { request_id request{}; };
struct request_failed {
    request_id request{};
    http_failure kind = http_failure::connect;
    int http_status = 0;  // 0 when no HTTP status was received
    std::string message;  // the client's `what: detail`, logged as is
};

// ---- local work
// The local work of a claimed action ended: run_commands' commands, or schedule_nodes'
// allocations (detail: what failed, sbatch's own text included).
struct action_finished { std::int64_t action_id = 0; bool succeeded = true; std::string detail; };
struct job_spawned { std::int64_t job_id = 0; };
// worker_fault: the worker's own trouble kept the job from starting (its output directory
// unwritable or full, descriptors or memory exhausted), not the job's (its program not found).
// too_late: slurm mode, the allocation ends too soon for a step's one minute of --time
// (core::too_late_for_a_step): neither's fault, the job goes back to ready as in Torc.
struct spawn_failed {
    std::int64_t job_id = 0;
    std::string message;
    bool worker_fault = false;
    bool too_late = false;
};
// slurm mode: `step` is Slurm's verdict on the srun step (step_exit.hpp); its return code
// and status replace those of srun's own exit, before the worker's own stop causes apply.
struct job_exited {
    std::int64_t job_id = 0;
    exit_status status;
    std::optional<job_usage> usage;
    std::optional<step_exit> step;
    // slurm mode: the node(s) the step ran on, as Slurm names them ("n2", "n[1-2]"); empty in
    // direct mode, where the job ran on the worker's own node.
    std::string nodes;
    // direct mode inside a Slurm allocation, after a non-zero exit: Slurm's word that the
    // allocation is ending ("Slurm job 12 is COMPLETING (squeue)"), asked before the exit is
    // delivered; empty while it runs on, outside Slurm, or when squeue could not say. Slurm
    // changes the allocation's state before it signals its processes, so a job an external
    // scancel kills is known for one whether its exit or the worker's own SIGTERM comes first.
    std::string allocation_ending;
};
struct outputs_checked { std::int64_t job_id = 0; std::vector<std::string> missing; };
// A sample of the job's process tree; with limits.enforce_memory, more than the job's memory
// requirement kills it.
struct memory_used { std::int64_t job_id = 0; std::uint64_t used_bytes = 0; };

}  // namespace worker

using worker_event =
    std::variant<worker::begin, worker::earlier_nodes_found, worker::end_time_learned,
                 worker::end_time_unknown, worker::signal_received, worker::tick,
                 worker::node_registered, worker::workflow_read, worker::pending_actions_read,
                 worker::action_claim_read, worker::jobs_claimed, worker::requirements_read,
                 worker::failure_handler_read, worker::workflow_state_read, worker::ready_jobs_read,
                 worker::jobs_reported, worker::completed_and_claimed,
                 worker::heartbeat_answered, worker::held_jobs_read,
                 worker::node_released, worker::request_done, worker::request_failed,
                 worker::action_finished, worker::job_spawned, worker::spawn_failed,
                 worker::job_exited, worker::outputs_checked, worker::memory_used>;

}  // namespace torcrun::core
