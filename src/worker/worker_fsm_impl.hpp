// Internal to worker_fsm: its state, one struct per phase of the worker's life, and its handlers,
// one file per phase: worker_fsm.cpp (the core: event dispatch, requests, the pass after each
// event, invariants), worker_fsm_startup.cpp, worker_fsm_claiming.cpp, worker_fsm_running.cpp
// (running and reporting), worker_fsm_draining.cpp. Handlers append actions to `out`.
#pragma once

#include "torcrun/worker/worker_fsm.hpp"
#include "worker_fsm_state.hpp"

#include <deque>
#include <map>
#include <set>

namespace torcrun::core {

// Requests to the server and whether it answers (worker_fsm.cpp).
struct request_state {
    std::uint64_t last_id = 0;
    std::map<request_id, request_entry> open;
    std::optional<fsm_time> unreachable_since;
    bool server_lost = false;
    std::optional<std::uint64_t> jitter;  // splitmix64 state for the retry delays
    // Transitions of an earlier holding of a job this worker holds again (claimed anew): their
    // answers, whatever they are, concern the earlier one and are ignored.
    std::set<request_id> stale;
};

// What start-up learns: the node, the run, the clocks (worker_fsm_startup.cpp).
struct startup_state {
    bool begun = false;
    fsm_time started_at{};
    double unix_offset = 0;  // Unix seconds at the steady clock's epoch
    std::optional<std::int64_t> compute_node_id;
    std::int64_t run_id = 0;
    bool use_pending_failed = false;
    std::optional<fsm_time> end_at;  // the allocation's end
    bool end_pending = false;        // begin.end_time_coming, until the lookup answers
};

// The workflow actions the worker runs itself, at start and at stop, and the job-gated ones
// while it runs (worker_fsm_startup.cpp).
struct action_state {
    std::deque<action_trigger> triggers;
    std::deque<workflow_action> queued;
    std::optional<workflow_action> current;  // claimed or running
    std::optional<request_id> request;       // a start-up or action step in flight
    bool job_actions = false;  // the workflow has on_jobs_ready / on_jobs_complete actions
    fsm_time next_poll{};      // while running: the next read of their pending lists
    std::optional<fsm_time> polled_at;  // while running: the last such read answered
    std::set<std::int64_t> claimed;     // by this worker (persistent ones stay pending)
    std::set<std::int64_t> passed;      // not for workers, said once
};

// Claims, requirements and placement, and what follows from claim replies: the workflow status
// check and the idle timer (worker_fsm_claiming.cpp).
struct claim_state {
    explicit claim_state(double min_delay) : delay(min_delay) {}

    std::optional<request_id> request;  // a claim_jobs, or a complete_and_claim
    fsm_time sent_at{}, not_before{};
    // The last claim_progress(): one after sent_at means resources freed (or work appeared)
    // while the claim was out, so its empty answer says nothing about now.
    fsm_time progress_at{};
    bool sent_waits = false;  // the claim in flight may be parked (long poll): no round trip
    double delay;
    bool last_empty = false;
    std::vector<std::int64_t> batch;  // claimed jobs waiting for placement, in reply order
    std::map<std::int64_t, job_resources> requirements;  // by requirements id
    std::set<std::int64_t> fetching_requirements;
    std::optional<fsm_time> idle_since;
    std::optional<request_id> status_check;
    fsm_time last_status_check{};
    bool status_wanted = false;
    // slurm mode: a job came back from the runner too late for a step (spawn_failed::too_late).
    bool too_late_for_steps = false;
    // Why each ready job can never run here, from the last read while nothing was held; said at
    // the idle stop (worker_fsm_claiming.cpp). Cleared when a job is held again.
    std::vector<std::string> never_fit;
    // What sizes the claim-ahead queue (claim_ahead.hpp): the wall time of the jobs that ran
    // here, the round trip of the claims that did not wait.
    std::optional<double> job_seconds;
    std::optional<double> round_trip_seconds;
    // The last claim's answer held fewer jobs than it asked for: nothing more is ready now, so
    // the queue asks again only after progress (a job ends, a report goes in).
    bool short_answer = false;
};

// Failure handlers and retried jobs (worker_fsm_running.cpp).
struct retry_state {
    std::map<std::int64_t, failure_handler> handlers;  // by handler id
    std::set<std::int64_t> fetching_handlers;
    // A job's next attempt that a parked claim returned before the reply to its retry_job came
    // (two connections, either answer may arrive first); admitted once the retry is accepted or
    // fenced off.
    std::map<std::int64_t, claimed_job> reclaimed;
};

// Attempts waiting for the server to accept them (worker_fsm_running.cpp).
struct report_queue {
    explicit report_queue(bool batch) : batch_supported(batch), exchange_supported(batch) {}

    std::deque<pending_report> pending;
    bool batch_supported;
    // complete_and_claim_jobs (extension): a batch goes with the next claim when one is due
    bool exchange_supported;
    std::optional<request_id> batch_request;  // a complete_jobs, or a complete_and_claim
};

// The node's lease (worker_fsm_lease.cpp): heartbeats while registered with use_extensions, the
// lease the server names, when it was last renewed, and what is left of a lost one.
enum class lease_status {
    held,     // renewed in time (or not leased: no extensions, not registered yet)
    silent,   // finish policy: no answer for the lease minus the margin; claims wait
    lost,     // the server said the node is inactive, or stop policy after the silence
};
struct lease_state {
    lease_status status = lease_status::held;
    std::optional<double> seconds;         // the lease the last answer named
    std::optional<fsm_time> renewed_at;    // when the last answered beat was sent
    std::optional<request_id> beat;        // in flight
    fsm_time beat_sent_at{};
    std::optional<fsm_time> next_beat;     // nullopt: no beats (not registered, no extensions)
    std::optional<request_id> stale_claim; // sent under the lost registration
    std::optional<request_id> registering; // the fresh registration
    std::set<std::int64_t> orphans;        // processes of the lost registration still alive
    std::optional<request_id> reconciling; // read_held_jobs in flight
    std::set<request_id> returning;        // hand-backs of jobs reconciliation found unknown
    bool reconcile_wanted = false;
    // release_node of each earlier worker's node (begin::earlier_nodes) in flight: the node it
    // names. Claims wait for them, so the jobs they put back can be claimed here at once.
    std::map<request_id, std::int64_t> releasing;
    bool window_checked = false;  // the retry window was held against the first lease named
    // The server has no heartbeat endpoint (404 before any beat was answered, 405, 501): no lease
    // for the rest of this worker's life, as with a Torc server.
    bool unsupported = false;
    bool ever_answered = false;             // some beat was answered: the endpoint exists
    int losses_in_row = 0;                  // leases lost since the last job completed
    std::optional<fsm_time> register_at;    // the fresh registration after a loss, backed off
};

// What bounds a stop (worker_fsm_draining.cpp).
struct stop_state {
    std::optional<fsm_time> hard_stop_at;
    bool graceless = false;  // a second SIGINT: SIGKILL without grace
    // The stop is for the allocation's end: the end-time drain, or SIGUSR1, which the batch
    // scripts of `submit` and `slurm-script` ask Slurm for (--signal=B:USR1@lead) as its warning.
    bool for_time_limit = false;
};

struct worker_fsm::impl {
    impl(worker_config config, std::int64_t workflow, resource_pool resource_pool,
         std::optional<std::uint64_t> seed);

    worker_config cfg;
    std::int64_t workflow_id;
    resource_pool pool;
    worker_stage stage = worker_stage::starting;
    stop_reason reason = stop_reason::none;
    int exit_code = 0;
    fsm_time now{};
    std::vector<worker_action> out;  // the actions of the current event
    std::optional<fsm_time> armed;
    std::map<std::int64_t, job_entry> jobs;
    job_ledger ledger;
    request_state requests;
    startup_state startup;
    action_state actions;
    claim_state claims;
    retry_state retries;
    report_queue reports;
    lease_state lease;
    stop_state stopping;

    // worker_fsm.cpp: dispatch, requests, the pass, invariants
    void handle(worker_event const& event);
    void done(worker_action const& sent, request_id id);
    request_id send(worker_action action);
    std::optional<worker_action> take(request_id id);
    void on(worker::request_failed const& e);
    void disown_requests(std::int64_t job_id);
    void give_up(worker_action const& action, worker::request_failed const& e);
    void resend_due();
    void note_reachable();
    void check_server_lost();
    double backoff(int failures);
    void advance();
    void pass();
    std::optional<fsm_time> next_wake() const;
    void say(log_severity level, std::string message);
    fsm_time after(double s) const;
    double unix_at(fsm_time t) const;
    std::optional<fsm_time> drain_at() const;
    std::optional<std::string> invariants() const;
    // worker_fsm_startup.cpp
    void on(worker::begin const& e);
    worker::register_node registration() const;
    void on(worker::end_time_learned const& e);
    void on(worker::end_time_unknown const& e);
    void place_end(double end_unix, double unix_now);
    void on(worker::node_registered const& e, worker_action const&);
    void on(worker::workflow_read const& e, worker_action const&);
    void refused_at_start(std::string const& message);
    void on(worker::pending_actions_read const& e, worker_action const&);
    void on(worker::action_claim_read const& e, worker_action const&);
    void on(worker::action_finished const& e);
    void action_step_failed(request_id id);
    std::optional<std::string> not_for_workers(workflow_action const& action) const;
    void next_workflow_action();
    void poll_job_actions();
    bool actions_keep_alive();
    void triggers_done();
    void deactivate();
    // worker_fsm_claiming.cpp
    bool claim_possible() const;
    bool claim_due() const;
    worker::claim_jobs fresh_claim(request_id id) const;
    void try_claim();
    void claim_answered();
    // the claim-ahead queue (worker_fsm_claiming.cpp)
    std::optional<double> queue_lease() const;
    std::size_t queue_room() const;
    bool ahead_wanted() const;
    void queue_job(job_entry& job);
    void place_queued();
    void hand_back_queued(std::string const& why);
    void on(worker::jobs_claimed const& e, worker_action const& sent);
    void fetch_requirements(bool fresh = false);
    void on(worker::requirements_read const& e, worker_action const& sent);
    void requirements_failed(std::int64_t requirements_id, std::string const& why);
    void place_batch(bool fresh = false);
    void on_started(std::int64_t job_id);
    void hand_back(job_entry& job, log_severity level, std::string const& why);
    void on_handed_back(std::int64_t job_id, bool accepted, std::string const& why = {});
    void fenced_off(std::int64_t job_id, std::string const& why);
    void claim_refused(std::string const& why, int http_status);
    void claim_progress();
    void claim_no_progress(fsm_time from);
    void try_status_check();
    void on(worker::workflow_state_read const& e, worker_action const&);
    void on(worker::ready_jobs_read const& e, worker_action const&);
    void check_idle();
    void stop_never_fits();
    // worker_fsm_running.cpp: a job from its spawn to its end
    template <class Phase>
    std::pair<job_entry*, Phase*> live(std::int64_t job_id, std::string_view what);
    void on(worker::job_spawned const& e);
    void on(worker::spawn_failed const& e);
    job_result attempt_result(job_entry const& job) const;
    job_result classify(job_entry const& job, job_state::running const& run,
                        worker::job_exited const& e) const;
    void on(worker::job_exited const& e);
    void on(worker::outputs_checked const& e);
    void on(worker::memory_used const& e);
    void attempt_over(job_entry& job, job_result result);
    void decide_failure(job_entry& job, job_result result, failure_handler const* handler);
    void on(worker::failure_handler_read const& e, worker_action const& sent);
    void handler_failed(std::int64_t handler_id, std::string const& why);
    void on_retried(std::int64_t job_id, bool accepted, std::string const& why = {});
    void retry_fenced_off(std::int64_t job_id, std::string const& why);
    void admit_reclaimed(claimed_job next);
    void job_timers();
    void stop_job(std::int64_t job_id, job_state::running& run, stop_cause cause);
    // worker_fsm_running.cpp: reporting
    void queue_report(job_report report);
    void flush_reports();
    void on(worker::jobs_reported const& e, worker_action const&);
    void on(worker::completed_and_claimed const& e, worker_action const& sent);
    void exchange_refused(worker::request_failed const& e);
    // fenced: refused with 409, the job is not this worker's any more
    void report_done(request_id id, bool accepted, std::string const& why, bool fenced = false);
    void settle(pending_report const& entry, bool accepted, std::string const& why, bool fenced,
                std::vector<worker::report_key>& unjournal);
    void batch_refused(worker::request_failed const& e);
    void report_failed(request_id id);
    void journal_unsent();
    void journal_waiting();
    // worker_fsm_lease.cpp
    double beat_interval() const;
    std::optional<fsm_time> lease_deadline() const;
    void start_beats();
    void beat_due();
    void on(worker::heartbeat_answered const& e, worker_action const&);
    void check_retry_window_once(double lease_seconds);
    void beat_failed(worker::request_failed const& e);
    void check_lease();
    void lease_lost(std::string const& why);
    void register_again();
    void register_due();
    void spawn_refused_here(job_entry& job, std::string const& why);
    bool lease_allows_claims() const;
    void kill_orphan(std::int64_t job_id, job_state::running& run);
    bool orphan_spawned(job_entry& job, job_state::running& run);
    bool orphan_exited(std::int64_t job_id);
    void want_reconcile();
    void reconcile_due();
    void on(worker::held_jobs_read const& e, worker_action const&);
    void on(worker::earlier_nodes_found const& e);
    void on(worker::node_released const& e, worker_action const&);
    void release_refused(std::int64_t compute_node_id, request_id id, std::string const& why);
    // worker_fsm_draining.cpp
    bool terminating() const;
    void on(worker::signal_received const& e);
    void drain(stop_reason why);
    void terminate_running();
    void hard_stop_due();
    void maybe_stop();
    void finish(int code);
};

}  // namespace torcrun::core
