// Stopping: signals, draining (no new claims; running jobs terminated where the reason asks for
// it; claimed jobs not yet running handed back), the exit-time workflow actions, deactivation,
// and the hard stop that bounds a terminating drain to grace + report_budget seconds.
#include "worker_fsm_impl.hpp"

#include "torcrun/common/signal_names.hpp"
#include "worker_text.hpp"

#include <csignal>

namespace torcrun::core {

bool worker_fsm::impl::terminating() const
{
    return reason == stop_reason::signal || reason == stop_reason::deadline ||
           reason == stop_reason::workflow_canceled || reason == stop_reason::lease_lost;
}

void worker_fsm::impl::on(worker::signal_received const& e)
{
    auto const name = signal_name(e.signal);
    if (stage == worker_stage::starting || stage == worker_stage::running) {
        say(log_severity::info, "worker: " + name + " received; stopping");
        stopping.for_time_limit = e.signal == SIGUSR1;
        drain(stop_reason::signal);
    } else if (stage == worker_stage::draining && !terminating()) {
        say(log_severity::info, "worker: " + name + " received; stopping the running jobs");
        stopping.for_time_limit = e.signal == SIGUSR1;
        reason = stop_reason::signal;
        terminate_running();
    } else if (e.signal == SIGINT && !stopping.graceless) {
        say(log_severity::warning, "worker: SIGINT received again; SIGKILL to every job now");
        stopping.graceless = true;
        terminate_running();
    } else {
        say(log_severity::info, "worker: " + name + " received; already stopping");
        // e.g. exit actions still running: the stop is bounded from now on
        if (!stopping.hard_stop_at)
            stopping.hard_stop_at = after(cfg.termination.grace_seconds + report_budget);
    }
}

void worker_fsm::impl::drain(stop_reason why)
{
    if (stage == worker_stage::starting) {
        reason = why;
        stage = worker_stage::stopping;
        stopping.hard_stop_at = after(report_budget);
        actions.triggers.clear();
        actions.queued.clear();
        actions.request.reset();
        actions.current.reset();
        if (startup.compute_node_id) deactivate();
        return;
    }
    if (stage != worker_stage::running) return;
    stage = worker_stage::draining;
    actions.triggers.clear();  // the job-gated lists not yet read stay unread
    actions.queued.clear();
    reason = why;
    if (why == stop_reason::server_lost) exit_code = 1;
    claims.idle_since.reset();
    hand_back_queued("the worker is stopping");
    if (terminating()) terminate_running();
}

// Signals every running job; the hard stop leaves the grace (none after a second SIGINT) plus
// report_budget seconds for the reports.
void worker_fsm::impl::terminate_running()
{
    auto const grace = stopping.graceless ? 0 : cfg.termination.grace_seconds;
    auto const limit = after(grace + report_budget);
    if (!stopping.hard_stop_at || *stopping.hard_stop_at > limit) stopping.hard_stop_at = limit;
    for (auto& [id, job] : jobs)
        if (auto* run = job.in<job_state::running>()) stop_job(id, *run, stop_cause::drain);
}

void worker_fsm::impl::hard_stop_due()
{
    if (!stopping.hard_stop_at || now < *stopping.hard_stop_at || stage == worker_stage::stopped)
        return;
    say(log_severity::error, "worker: the stop ran out of time; exiting now");
    finish(jobs.empty() && reports.pending.empty() ? exit_code : 1);
}

void worker_fsm::impl::maybe_stop()
{
    if (stage == worker_stage::stopping) {
        bool const registering = std::ranges::any_of(requests.open, [](auto const& r) {
            return std::holds_alternative<worker::register_node>(r.second.action);
        });
        if (!startup.compute_node_id && !registering) finish(exit_code);
        return;
    }
    if (stage != worker_stage::draining) return;
    if (requests.server_lost) {  // finish once no process runs and no report attempt is under way
        bool const local = std::ranges::any_of(jobs, [](auto const& j) {
            auto const p = j.second.phase();
            return p == job_phase::spawning || p == job_phase::running || p == job_phase::outputs;
        });
        bool const reporting = std::ranges::any_of(reports.pending, [&](auto const& r) {
            auto const it = r.request ? requests.open.find(*r.request) : requests.open.end();
            return it != requests.open.end() && !it->second.retry_at;
        });
        if (!local && !reporting) finish(1);
        return;
    }
    if (!jobs.empty() || !reports.pending.empty() || claims.request || !claims.batch.empty())
        return;
    // A claimed action is carried out to its end; one not yet claimed is left to others.
    if (actions.request || actions.current) return;
    actions.queued.clear();
    actions.triggers.clear();
    stage = worker_stage::stopping;
    if (reason == stop_reason::workflow_complete)
        actions.triggers = {action_trigger::on_workflow_complete,
                            action_trigger::on_worker_complete};
    else if (reason == stop_reason::idle || reason == stop_reason::never_fits)
        actions.triggers = {action_trigger::on_worker_complete};
    next_workflow_action();
}

// Exits now. Results not yet accepted are in the journal; jobs still held stay pending or
// running on the server until its lease expires, and each is logged.
void worker_fsm::impl::finish(int code)
{
    if (stage == worker_stage::stopped) return;
    journal_unsent();
    for (auto& [id, job] : jobs) {
        auto const name = "job " + std::to_string(id);
        if (job.phase() == job_phase::reporting) {
            ++ledger.journaled;
            say(log_severity::error, name + ": its result is journaled, not reported");
            continue;
        }
        ++ledger.abandoned;
        if (job.placement()) pool.release(reservation_id{id});
        say(log_severity::error, name + ": abandoned while " + std::string(to_string(job.phase())) +
                                     "; the server keeps it until its lease expires");
    }
    jobs.clear();
    claims.batch.clear();
    lease.orphans.clear();
    stage = worker_stage::stopped;
    say(log_severity::info,
        "worker: exit " + std::to_string(code) + " (" + std::string(to_string(reason)) + ")");
    out.push_back(worker::exit_worker{code});
}

}  // namespace torcrun::core
