// Internal to worker_fsm: its state and handlers, split over worker_fsm_*.cpp by concern
// (requests, start-up, claiming, jobs, reporting, draining). Handlers append actions to `out`.
#pragma once

#include "torcrun/worker/worker_fsm.hpp"
#include "worker_fsm_state.hpp"

#include <deque>
#include <map>
#include <set>

namespace torcrun::core {

struct worker_fsm::impl {
    impl(worker_config config, std::int64_t workflow, resource_pool resource_pool,
         std::optional<std::uint64_t> seed);

    worker_config cfg;
    std::int64_t workflow_id;
    resource_pool pool;
    std::optional<std::uint64_t> random;  // splitmix64 state for jitter
    worker_stage stage = worker_stage::starting;
    stop_reason reason = stop_reason::none;
    int exit_code = 0;
    fsm_time now{};
    std::vector<worker_action> out;  // the actions of the current event
    bool begun = false;
    fsm_time started_at{};
    double unix_offset = 0;  // Unix seconds at the steady clock's epoch
    std::optional<std::int64_t> compute_node_id;
    std::int64_t run_id = 0;
    bool use_pending_failed = false;
    std::optional<fsm_time> end_at;
    std::uint64_t last_request = 0;
    std::map<request_id, request_entry> requests;
    std::optional<fsm_time> unreachable_since;
    bool server_lost = false;
    std::optional<request_id> claim;
    fsm_time claim_sent_at{}, claim_not_before{};
    double claim_delay;
    bool last_claim_empty = false;
    std::vector<std::int64_t> batch;  // claimed jobs waiting for placement, in reply order
    std::map<std::int64_t, job_resources> resources;  // by requirements id
    std::set<std::int64_t> fetching_resources;
    std::map<std::int64_t, failure_handler> handlers;  // by handler id
    std::set<std::int64_t> fetching_handlers;
    std::optional<fsm_time> idle_since;
    std::optional<request_id> status_check;
    fsm_time last_status_check{};
    bool status_wanted = false;
    std::map<std::int64_t, job_entry> jobs;
    // A job's next attempt that a parked claim returned before the reply to its retry_job came
    // (two connections, either answer may arrive first); admitted once the retry is accepted.
    std::map<std::int64_t, claimed_job> reclaimed;
    job_ledger ledger;
    std::deque<pending_report> reports;
    bool batch_supported;
    std::optional<request_id> batch_request;
    std::deque<action_trigger> triggers;
    std::deque<workflow_action> queued_actions;
    std::optional<workflow_action> current_action;  // claimed or running
    std::optional<request_id> action_request;       // a start-up or action step in flight
    std::optional<fsm_time> hard_stop_at;
    bool graceless = false;  // a second SIGINT: SIGKILL without grace
    std::optional<fsm_time> armed;
    // worker_fsm_dispatch.cpp, worker_fsm.cpp
    void handle(worker_event const& event);
    void done(worker_action const& sent, request_id id);
    void advance();
    void pass();
    std::optional<fsm_time> next_wake() const;
    void say(log_severity level, std::string message);
    fsm_time after(double s) const;
    double unix_at(fsm_time t) const;
    std::optional<fsm_time> drain_at() const;
    std::optional<std::string> invariants() const;
    // worker_fsm_requests.cpp
    request_id send(worker_action action);
    std::optional<worker_action> take(request_id id);
    void on(worker::request_failed const& e);
    void give_up(worker_action const& action, worker::request_failed const& e);
    void refused_at_start(std::string const& message);
    void resend_due();
    void note_reachable();
    void check_server_lost();
    double backoff(int failures);
    // worker_fsm_startup.cpp
    void on(worker::begin const& e);
    void on(worker::end_time_learned const& e);
    void place_end(double end_unix, double unix_now);
    void on(worker::node_registered const& e, worker_action const&);
    void on(worker::workflow_read const& e, worker_action const&);
    void on(worker::pending_actions_read const& e, worker_action const&);
    void on(worker::action_claim_read const& e, worker_action const&);
    void on(worker::commands_finished const& e);
    void action_step_failed(request_id id);
    void next_workflow_action();
    void triggers_done();
    void deactivate();
    // worker_fsm_claiming.cpp
    bool claim_possible() const;
    worker::claim_jobs fresh_claim(request_id id) const;
    void try_claim();
    void on(worker::jobs_claimed const& e, worker_action const& sent);
    void fetch_requirements();
    void on(worker::requirements_read const& e, worker_action const& sent);
    void requirements_failed(std::int64_t requirements_id, std::string const& why);
    void place_batch();
    void on_started(std::int64_t job_id);
    void hand_back(job_entry& job, log_severity level, std::string const& why);
    void on_handed_back(std::int64_t job_id, bool accepted, std::string const& why = {});
    void claim_refused(std::string const& why);
    void claim_progress();
    void claim_no_progress(fsm_time from);
    void try_status_check();
    void on(worker::workflow_state_read const& e, worker_action const&);
    void check_idle();
    // worker_fsm_jobs.cpp
    job_entry* live(std::int64_t job_id, job_phase phase, std::string_view what);
    void on(worker::job_spawned const& e);
    void on(worker::spawn_failed const& e);
    void classify(job_entry& job, worker::job_exited const& e) const;
    void on(worker::job_exited const& e);
    void on(worker::outputs_checked const& e);
    void on(worker::memory_used const& e);
    void attempt_over(job_entry& job);
    void decide_failure(job_entry& job, failure_handler const* handler);
    void on(worker::failure_handler_read const& e, worker_action const& sent);
    void handler_failed(std::int64_t handler_id, std::string const& why);
    void on_retried(std::int64_t job_id, bool accepted, std::string const& why = {});
    void job_timers();
    void stop_job(job_entry& job, stop_cause cause);
    // worker_fsm_reporting.cpp
    void queue_report(job_report report);
    void flush_reports();
    void on(worker::jobs_reported const& e, worker_action const&);
    void report_done(request_id id, bool accepted, std::string const& why);
    void settle(pending_report const& entry, bool accepted, std::string const& why,
                std::vector<worker::report_key>& unjournal);
    void batch_refused(worker::request_failed const& e);
    void report_failed(request_id id);
    void journal_unsent();
    void journal_waiting();
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
