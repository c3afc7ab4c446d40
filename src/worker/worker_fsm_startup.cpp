// Start-up (register the compute node, read the run id) and the workflow actions a worker runs
// itself: on_workflow_start and on_worker_start before the first claim, on_jobs_ready and
// on_jobs_complete every poll.interval_seconds while it runs (when the workflow has such
// actions), on_workflow_complete and on_worker_complete before it deactivates its node. One
// action step is in flight at a time: read the pending actions of a trigger, claim one, run its
// commands or schedule its allocations, next. The server's claim decides who runs an action:
// a non-persistent one runs exactly once; a persistent one once per worker that claims it.
#include "worker_fsm_impl.hpp"

#include "worker_text.hpp"

#include "torcrun/common/units.hpp"

namespace torcrun::core {

void worker_fsm::impl::on(worker::begin const& e)
{
    startup.begun = true;
    startup.started_at = now;
    auto const steady = std::chrono::duration<double>(now.time_since_epoch()).count();
    startup.unix_offset = e.unix_now - steady;
    if (cfg.termination.end_time) place_end(*cfg.termination.end_time, e.unix_now);
    startup.end_pending = e.end_time_coming && !cfg.termination.end_time;
    for (auto const& report : e.journaled) reports.pending.push_back({report, true, std::nullopt});
    if (!e.journaled.empty())
        say(log_severity::info, "worker: reporting " + std::to_string(e.journaled.size()) +
                                    " results left in the journal");
    send(registration());
}

// The compute node this worker registers: the pool's totals.
worker::register_node worker_fsm::impl::registration() const
{
    worker::register_node node;
    for (auto const& capacity : pool.capacity()) {
        node.cpus += capacity.cpus;
        node.memory_bytes += capacity.memory_bytes;
        node.gpus += static_cast<std::uint32_t>(capacity.gpu_ids.size());
    }
    node.nodes = static_cast<std::uint32_t>(pool.size());
    return node;
}

void worker_fsm::impl::on(worker::end_time_learned const& e)
{
    startup.end_pending = false;
    place_end(e.end_unix, e.unix_now);
}

void worker_fsm::impl::on(worker::end_time_unknown const&) { startup.end_pending = false; }

void worker_fsm::impl::place_end(double end_unix, double unix_now)
{
    startup.end_at = now + seconds(end_unix - unix_now);
    auto const& t = cfg.termination;
    auto const lead = std::max(t.drain_buffer_seconds, t.grace_seconds + report_budget);
    say(log_severity::info, "worker: the allocation ends in " +
                                format_seconds(end_unix - unix_now) + " s; draining starts " +
                                format_seconds(lead) + " s before");
}

void worker_fsm::impl::on(worker::node_registered const& e, worker_action const&)
{
    auto const previous = startup.compute_node_id;
    startup.compute_node_id = e.compute_node_id;
    start_beats();
    if (e.request == lease.registering) {  // after a lost lease (worker_fsm_lease.cpp)
        lease.registering.reset();
        say(log_severity::warning, "worker: registered again as compute node " +
                                       std::to_string(e.compute_node_id) + " (compute node " +
                                       std::to_string(previous.value_or(0)) + " lost its lease)");
        out.push_back(worker::journal_node{e.compute_node_id, true});
        if (stage == worker_stage::stopping) deactivate();
        claim_progress();
        return;
    }
    say(log_severity::info,
        "worker: registered as compute node " + std::to_string(e.compute_node_id));
    out.push_back(worker::journal_node{e.compute_node_id, true});
    if (stage == worker_stage::starting) {
        actions.request = send(worker::read_workflow{});
    } else if (stage == worker_stage::stopping) {
        deactivate();
    }
}

void worker_fsm::impl::on(worker::workflow_read const& e, worker_action const&)
{
    if (e.request != actions.request) return;
    actions.request.reset();
    startup.run_id = e.run_id;
    startup.use_pending_failed = e.use_pending_failed;
    actions.job_actions = e.job_actions;
    say(log_severity::info, "worker: workflow " + std::to_string(workflow_id) + " run " +
                                std::to_string(startup.run_id) +
                                (startup.use_pending_failed ? " (use_pending_failed)" : ""));
    actions.triggers = {action_trigger::on_workflow_start, action_trigger::on_worker_start};
    next_workflow_action();
}

// Nothing can run without a registered node and a run id: exit 1, deactivating the node first
// when it was registered.
void worker_fsm::impl::refused_at_start(std::string const& message)
{
    say(log_severity::error, message);
    actions.request.reset();
    reason = stop_reason::fatal;
    exit_code = 1;
    stage = worker_stage::stopping;
    deactivate();
}

void worker_fsm::impl::on(worker::pending_actions_read const& e, worker_action const&)
{
    if (e.request != actions.request) return;
    actions.request.reset();
    if (stage == worker_stage::running) actions.polled_at = now;
    // A draining worker claims nothing new; what it claimed already it carries out.
    if (stage != worker_stage::draining)
        actions.queued.insert(actions.queued.end(), e.actions.begin(), e.actions.end());
    next_workflow_action();
}

void worker_fsm::impl::on(worker::action_claim_read const& e, worker_action const&)
{
    if (e.request != actions.request || !actions.current) return;
    actions.request.reset();
    auto const id = std::to_string(actions.current->id);
    bool const mine = e.held_by && e.held_by == startup.compute_node_id;
    if (!e.claimed && !mine) {
        say(log_severity::info, "action " + id + ": claimed by another worker");
        actions.current.reset();
        next_workflow_action();
        return;
    }
    if (mine)
        say(log_severity::info, "action " + id + ": this worker holds it (an earlier claim's "
                                                 "answer was lost)");
    actions.claimed.insert(actions.current->id);
    if (auto const& a = actions.current->allocations) {
        say(log_severity::info, "action " + id + ": scheduling " +
                                    count_of(static_cast<std::uint64_t>(a->num_allocations), "allocation") +
                                    " of slurm_scheduler " + std::to_string(a->scheduler_id));
        out.push_back(worker::schedule_allocations{actions.current->id, *a});
        return;
    }
    say(log_severity::info, "action " + id + ": running " +
                                std::to_string(actions.current->commands.size()) + " commands");
    out.push_back(worker::run_commands{actions.current->id, actions.current->commands});
}

void worker_fsm::impl::on(worker::action_finished const& e)
{
    if (!actions.current || actions.current->id != e.action_id || actions.request) {
        say(log_severity::warning,
            "action " + std::to_string(e.action_id) + ": not running; its end was ignored");
        return;
    }
    if (!e.succeeded)
        say(actions.current->allocations ? log_severity::error : log_severity::warning,
            "action " + std::to_string(e.action_id) +
                (actions.current->allocations ? ": allocations failed: " : ": commands failed: ") +
                e.detail);
    actions.current.reset();
    next_workflow_action();
}

void worker_fsm::impl::action_step_failed(request_id id)
{
    if (id != actions.request) return;
    actions.request.reset();
    actions.current.reset();
    next_workflow_action();
}

void worker_fsm::impl::next_workflow_action()
{
    if (actions.request || actions.current) return;
    while (!actions.queued.empty()) {
        auto next = std::move(actions.queued.front());
        actions.queued.pop_front();
        if (actions.claimed.contains(next.id)) continue;
        if (auto const why = not_for_workers(next)) {
            if (actions.passed.insert(next.id).second)
                say(log_severity::info, "action " + std::to_string(next.id) + ": " + *why);
            continue;
        }
        actions.current = std::move(next);
        actions.request = send(worker::claim_action{{}, actions.current->id});
        return;
    }
    if (!actions.triggers.empty()) {
        auto const trigger = actions.triggers.front();
        actions.triggers.pop_front();
        actions.request = send(worker::read_pending_actions{{}, trigger});
        return;
    }
    triggers_done();
}

// Why a worker does not run this action itself, or nullopt when it does. schedule_nodes actions
// of the start triggers are torcrun submit's (a worker would submit them a second time).
std::optional<std::string> worker_fsm::impl::not_for_workers(workflow_action const& a) const
{
    if (a.action_type == "run_commands") return std::nullopt;
    if (a.action_type != "schedule_nodes" || !a.allocations)
        return a.action_type + " actions are not run by workers";
    if (a.trigger_type != "on_jobs_ready" && a.trigger_type != "on_jobs_complete")
        return "schedule_nodes actions are run by workers only for on_jobs_ready and "
               "on_jobs_complete (torcrun submit carries out the others)";
    if (a.allocations->scheduler_type != "slurm")
        return "schedule_nodes with scheduler_type \"" + a.allocations->scheduler_type +
               "\": workers schedule only slurm allocations";
    return std::nullopt;
}

// While running: the pending lists of the job-gated triggers, every poll.interval_seconds, once
// no other action step is in flight.
void worker_fsm::impl::poll_job_actions()
{
    if (!actions.job_actions || actions.request || actions.current || !actions.queued.empty() ||
        !actions.triggers.empty() || now < actions.next_poll)
        return;
    actions.next_poll = after(cfg.poll.interval_seconds);
    actions.triggers = {action_trigger::on_jobs_ready, action_trigger::on_jobs_complete};
    next_workflow_action();
}

// An idle worker stays while an action step is under way, and until the job-gated actions were
// read after its idle time ran out: a pending schedule_nodes action keeps it, as in Torc.
bool worker_fsm::impl::actions_keep_alive()
{
    if (actions.request || actions.current || !actions.queued.empty()) return true;
    if (!actions.job_actions || !claims.idle_since) return false;
    auto const due = *claims.idle_since + seconds(cfg.limits.idle_timeout_seconds);
    if (actions.polled_at && *actions.polled_at >= due) return false;
    actions.next_poll = std::min(actions.next_poll, now);
    return true;
}

void worker_fsm::impl::triggers_done()
{
    if (stage == worker_stage::starting) {
        stage = worker_stage::running;
        claims.last_status_check = now;
        claims.not_before = now;
        say(log_severity::info, "worker: running");
    } else if (stage == worker_stage::stopping) {
        deactivate();
    }
}

void worker_fsm::impl::deactivate()
{
    if (!startup.compute_node_id) {
        finish(exit_code);
        return;
    }
    auto const ran = std::chrono::duration<double>(now - startup.started_at).count();
    send(worker::deactivate_node{{}, ran});
}

}  // namespace torcrun::core
