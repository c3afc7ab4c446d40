// Start-up (register the compute node, read the run id) and the workflow actions a worker runs
// itself: on_workflow_start and on_worker_start before the first claim, on_workflow_complete and
// on_worker_complete before it deactivates its node. One action step is in flight at a time:
// read the pending actions of a trigger, claim one, run its commands, next.
#include "worker_fsm_impl.hpp"

#include "worker_text.hpp"

namespace torcrun::core {

void worker_fsm::impl::on(worker::begin const& e)
{
    startup.begun = true;
    startup.started_at = now;
    auto const steady = std::chrono::duration<double>(now.time_since_epoch()).count();
    startup.unix_offset = e.unix_now - steady;
    if (cfg.termination.end_time) place_end(*cfg.termination.end_time, e.unix_now);
    for (auto const& report : e.journaled) reports.pending.push_back({report, true, std::nullopt});
    if (!e.journaled.empty())
        say(log_severity::info, "worker: reporting " + std::to_string(e.journaled.size()) +
                                    " results left in the journal");
    worker::register_node node;
    for (auto const& capacity : pool.capacity()) {
        node.cpus += capacity.cpus;
        node.memory_bytes += capacity.memory_bytes;
        node.gpus += static_cast<std::uint32_t>(capacity.gpu_ids.size());
    }
    node.nodes = static_cast<std::uint32_t>(pool.size());
    send(node);
}

void worker_fsm::impl::on(worker::end_time_learned const& e) { place_end(e.end_unix, e.unix_now); }

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
    startup.compute_node_id = e.compute_node_id;
    say(log_severity::info,
        "worker: registered as compute node " + std::to_string(e.compute_node_id));
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
    actions.queued.assign(e.actions.begin(), e.actions.end());
    next_workflow_action();
}

void worker_fsm::impl::on(worker::action_claim_read const& e, worker_action const&)
{
    if (e.request != actions.request || !actions.current) return;
    actions.request.reset();
    auto const id = std::to_string(actions.current->id);
    if (!e.claimed) {
        say(log_severity::info, "action " + id + ": claimed by another worker");
        actions.current.reset();
        next_workflow_action();
        return;
    }
    say(log_severity::info, "action " + id + ": running " +
                                std::to_string(actions.current->commands.size()) + " commands");
    out.push_back(worker::run_commands{actions.current->id, actions.current->commands});
}

void worker_fsm::impl::on(worker::commands_finished const& e)
{
    if (!actions.current || actions.current->id != e.action_id || actions.request) {
        say(log_severity::warning,
            "action " + std::to_string(e.action_id) + ": not running; its end was ignored");
        return;
    }
    if (!e.succeeded)
        say(log_severity::warning,
            "action " + std::to_string(e.action_id) + ": commands failed: " + e.detail);
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
        if (next.action_type != "run_commands") {
            say(log_severity::info, "action " + std::to_string(next.id) + ": " + next.action_type +
                                        " actions are not run by workers");
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
