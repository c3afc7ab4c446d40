// Start-up (register the compute node, read the run id) and the workflow actions a worker runs
// itself: on_workflow_start and on_worker_start before the first claim, on_workflow_complete and
// on_worker_complete before it deactivates its node. One action step is in flight at a time:
// read the pending actions of a trigger, claim one, run its commands, next.
#include "worker_fsm_impl.hpp"

#include "worker_text.hpp"

namespace torcrun::core {

void worker_fsm::impl::on(worker::begin const& e)
{
    begun = true;
    started_at = now;
    unix_offset = e.unix_now - std::chrono::duration<double>(now.time_since_epoch()).count();
    if (cfg.termination.end_time) place_end(*cfg.termination.end_time, e.unix_now);
    for (auto const& report : e.journaled) reports.push_back({report, true, std::nullopt});
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
    end_at = now + seconds(end_unix - unix_now);
    auto const& t = cfg.termination;
    auto const lead = std::max(t.drain_buffer_seconds, t.grace_seconds + report_budget);
    say(log_severity::info, "worker: the allocation ends in " +
                                format_seconds(end_unix - unix_now) + " s; draining starts " +
                                format_seconds(lead) + " s before");
}

void worker_fsm::impl::on(worker::node_registered const& e, worker_action const&)
{
    compute_node_id = e.compute_node_id;
    say(log_severity::info,
        "worker: registered as compute node " + std::to_string(e.compute_node_id));
    if (stage == worker_stage::starting) {
        action_request = send(worker::read_workflow{});
    } else if (stage == worker_stage::stopping) {
        deactivate();
    }
}

void worker_fsm::impl::on(worker::workflow_read const& e, worker_action const&)
{
    if (e.request != action_request) return;
    action_request.reset();
    run_id = e.run_id;
    use_pending_failed = e.use_pending_failed;
    say(log_severity::info, "worker: workflow " + std::to_string(workflow_id) + " run " +
                                std::to_string(run_id) +
                                (use_pending_failed ? " (use_pending_failed)" : ""));
    triggers = {action_trigger::on_workflow_start, action_trigger::on_worker_start};
    next_workflow_action();
}

void worker_fsm::impl::on(worker::pending_actions_read const& e, worker_action const&)
{
    if (e.request != action_request) return;
    action_request.reset();
    queued_actions.assign(e.actions.begin(), e.actions.end());
    next_workflow_action();
}

void worker_fsm::impl::on(worker::action_claim_read const& e, worker_action const&)
{
    if (e.request != action_request || !current_action) return;
    action_request.reset();
    auto const id = std::to_string(current_action->id);
    if (!e.claimed) {
        say(log_severity::info, "action " + id + ": claimed by another worker");
        current_action.reset();
        next_workflow_action();
        return;
    }
    say(log_severity::info, "action " + id + ": running " +
                                std::to_string(current_action->commands.size()) + " commands");
    out.push_back(worker::run_commands{current_action->id, current_action->commands});
}

void worker_fsm::impl::on(worker::commands_finished const& e)
{
    if (!current_action || current_action->id != e.action_id || action_request) {
        say(log_severity::warning,
            "action " + std::to_string(e.action_id) + ": not running; its end was ignored");
        return;
    }
    if (!e.succeeded)
        say(log_severity::warning,
            "action " + std::to_string(e.action_id) + ": commands failed: " + e.detail);
    current_action.reset();
    next_workflow_action();
}

void worker_fsm::impl::action_step_failed(request_id id)
{
    if (id != action_request) return;
    action_request.reset();
    current_action.reset();
    next_workflow_action();
}

void worker_fsm::impl::next_workflow_action()
{
    if (action_request || current_action) return;
    while (!queued_actions.empty()) {
        auto next = std::move(queued_actions.front());
        queued_actions.pop_front();
        if (next.action_type != "run_commands") {
            say(log_severity::info, "action " + std::to_string(next.id) + ": " + next.action_type +
                                        " actions are not run by workers");
            continue;
        }
        current_action = std::move(next);
        action_request = send(worker::claim_action{{}, current_action->id});
        return;
    }
    if (!triggers.empty()) {
        auto const trigger = triggers.front();
        triggers.pop_front();
        action_request = send(worker::read_pending_actions{{}, trigger});
        return;
    }
    triggers_done();
}

void worker_fsm::impl::triggers_done()
{
    if (stage == worker_stage::starting) {
        stage = worker_stage::running;
        last_status_check = now;
        claim_not_before = now;
        say(log_severity::info, "worker: running");
    } else if (stage == worker_stage::stopping) {
        deactivate();
    }
}

void worker_fsm::impl::deactivate()
{
    if (!compute_node_id) {
        finish(exit_code);
        return;
    }
    auto const ran = std::chrono::duration<double>(now - started_at).count();
    send(worker::deactivate_node{{}, ran});
}

}  // namespace torcrun::core
