// worker_fsm's event dispatch: a reply is matched to the request it answers (and refused when
// it is of the wrong kind), replies count as the server answering, events before `begin` are
// ignored, and request_done goes to the handler of the request it completes.
#include "worker_fsm_impl.hpp"

namespace torcrun::core {
namespace {

// Which request each kind of reply answers.
bool answers(worker::node_registered const&, worker_action const& a)
{
    return std::holds_alternative<worker::register_node>(a);
}
bool answers(worker::workflow_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_workflow>(a);
}
bool answers(worker::pending_actions_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_pending_actions>(a);
}
bool answers(worker::action_claim_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::claim_action>(a);
}
bool answers(worker::jobs_claimed const&, worker_action const& a)
{
    return std::holds_alternative<worker::claim_jobs>(a);
}
bool answers(worker::requirements_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_requirements>(a);
}
bool answers(worker::failure_handler_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_failure_handler>(a);
}
bool answers(worker::workflow_state_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::check_workflow>(a);
}
bool answers(worker::jobs_reported const&, worker_action const& a)
{
    return std::holds_alternative<worker::complete_jobs>(a);
}
bool answers(worker::request_done const&, worker_action const& a)
{
    return std::holds_alternative<worker::start_job>(a) ||
           std::holds_alternative<worker::hand_back>(a) ||
           std::holds_alternative<worker::retry_job>(a) ||
           std::holds_alternative<worker::record_result>(a) ||
           std::holds_alternative<worker::complete_job>(a) ||
           std::holds_alternative<worker::deactivate_node>(a);
}

template <class T>
constexpr bool is_reply = requires(T const& e, worker_action const& a)
{
    answers(e, a);
};

}  // namespace

void worker_fsm::impl::handle(worker_event const& event)
{
    std::visit(
        [this](auto const& e) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, worker::tick>) {
                return;
            } else if constexpr (is_reply<E>) {
                if (!begun) return;
                auto sent = take(e.request);
                if (!sent) return;
                note_reachable();
                if (!answers(e, *sent)) {
                    say(log_severity::error,
                        "worker: a reply of the wrong kind answers \"" + describe(*sent) + '"');
                    give_up(*sent, {e.request, http_failure::http_4xx, 0, "wrong reply"});
                    return;
                }
                if constexpr (std::is_same_v<E, worker::request_done>)
                    done(*sent, e.request);
                else
                    on(e, *sent);
            } else if constexpr (std::is_same_v<E, worker::begin>) {
                if (begun)
                    say(log_severity::warning, "worker: a second begin was ignored");
                else
                    on(e);
            } else if (!begun) {
                say(log_severity::warning, "worker: an event before begin was ignored");
            } else {
                on(e);
            }
        },
        event);
}

// request_done, by the request it answers (answers() admitted only these).
void worker_fsm::impl::done(worker_action const& sent, request_id id)
{
    if (auto const* a = std::get_if<worker::start_job>(&sent)) {
        on_started(a->job_id);
    } else if (auto const* b = std::get_if<worker::hand_back>(&sent)) {
        on_handed_back(b->job_id, true);
    } else if (auto const* r = std::get_if<worker::retry_job>(&sent)) {
        on_retried(r->job_id, true);
    } else if (std::holds_alternative<worker::deactivate_node>(sent)) {
        say(log_severity::info,
            "worker: compute node " + std::to_string(*compute_node_id) + " deactivated");
        finish(exit_code);
    } else {
        report_done(id, true, "");  // record_result, complete_job
    }
}

}  // namespace torcrun::core
