// The server's answers as the worker state machine's events. A non-2xx answer is request_failed
// quoting the server's message (409 on claim_action is "not claimed"); a 2xx answer that does
// not decode is request_failed naming the endpoint and the field, never an exception. A claim
// answer is decoded whole even when it holds more jobs than asked for: the state machine hands
// the surplus back.
#include "worker_wire_detail.hpp"

#include "torcrun/common/json_kind.hpp"

#include "torcrun/common/server_message.hpp"

namespace torcrun::api {
namespace {

namespace w = core::worker;
namespace json = boost::json;

using event = core::worker_event;
using decoded = core::result<event>;

bool is_2xx(unsigned status) { return status >= 200 && status < 300; }

w::request_failed http_failed(core::request_id id, std::string const& what, wire_reply const& r)
{
    auto const message = server_message(r.body);
    auto const kind = r.status >= 400 && r.status < 500 ? core::http_failure::http_4xx
                                                          : core::http_failure::http_5xx;
    auto detail = "HTTP " + std::to_string(r.status);
    detail += message.empty() ? " with an empty body" : ": \"" + message + "\"";
    return {id, kind, static_cast<int>(r.status), what + ": " + detail};
}

// The answer's root as an object; the problem is the whole message without the endpoint.
core::result<json::value> object_reply(wire_reply const& r)
{
    auto v = wire::parse_reply(r.body);
    if (!v) return v.error();
    if (!v->is_object()) return core::error{wire::root_problem(*v, "an object")};
    return v;
}

decoded node_registered(core::request_id id, wire_reply const& r)
{
    auto v = object_reply(r);
    if (!v) return v.error();
    wire::field_reader f(v->get_object(), "");
    w::node_registered out{id, f.integer("id")};
    if (!f.ok()) return *f.error();
    return event{out};
}

decoded claimed(core::request_id id, wire_reply const& r)
{
    auto v = object_reply(r);
    if (!v) return v.error();
    wire::field_reader f(v->get_object(), "");
    w::jobs_claimed out{id, {}};
    auto const* jobs = f.array("jobs");  // Torc's contract does not require it: none
    if (!f.ok()) return *f.error();
    for (std::size_t i = 0; jobs != nullptr && i < jobs->size(); ++i) {
        auto job = wire::decode_job((*jobs)[i], wire::indexed("jobs", i));
        if (!job) return job.error();
        out.jobs.push_back(std::move(*job));
    }
    return event{std::move(out)};
}

decoded pending_actions(core::request_id id, wire_reply const& r)
{
    auto v = wire::parse_reply(r.body);
    if (!v) return v.error();
    if (!v->is_array()) return core::error{wire::root_problem(*v, "an array")};
    w::pending_actions_read out{id, {}};
    auto const& list = v->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto action = wire::decode_action(list[i], wire::indexed("", i));
        if (!action) return action.error();
        out.actions.push_back(std::move(*action));
    }
    return event{std::move(out)};
}

// Torc answers {"claimed": true, "action_id": N}; the contract lists `success`; either may say
// false, and an answer with neither is a claim.
decoded action_claimed(core::request_id id, wire_reply const& r)
{
    auto v = object_reply(r);
    if (!v) return v.error();
    wire::field_reader f(v->get_object(), "");
    bool const claimed = f.flag("claimed", true) && f.flag("success", true);
    if (!f.ok()) return *f.error();
    return event{w::action_claim_read{id, claimed}};
}

// `failed_step` says which answer a problem is in.
decoded workflow_read(core::request_id id, std::span<wire_reply const> replies,
                      std::size_t& failed_step)
{
    failed_step = 0;
    auto workflow = object_reply(replies[0]);
    if (!workflow) return workflow.error();
    wire::field_reader wf(workflow->get_object(), "");
    w::workflow_read out{id, 0, wf.flag("use_pending_failed", false)};
    if (!wf.ok()) return *wf.error();
    if (replies.size() < 2) return core::error{"get_workflow_status was not sent"};
    failed_step = 1;
    auto status = object_reply(replies[1]);
    if (!status) return status.error();
    wire::field_reader st(status->get_object(), "");
    out.run_id = st.integer("run_id");
    if (!st.ok()) return *st.error();
    return event{out};
}

decoded workflow_state(core::request_id id, wire_reply const& r)
{
    auto v = object_reply(r);
    if (!v) return v.error();
    wire::field_reader f(v->get_object(), "");
    w::workflow_state_read out{id, f.flag("is_complete", std::nullopt),
                               f.flag("is_canceled", false)};
    if (!f.ok()) return *f.error();
    return event{out};
}

decoded batch_reported(core::request_id id, wire_reply const& r)
{
    auto v = object_reply(r);
    if (!v) return v.error();
    wire::field_reader f(v->get_object(), "");
    w::jobs_reported out{id, {}, {}};
    if (f.array("completed") == nullptr && f.ok()) f.fail("completed", " is missing");
    out.completed = f.ids("completed");
    auto const* errors = f.array("errors");
    if (!f.ok()) return *f.error();
    for (std::size_t i = 0; errors != nullptr && i < errors->size(); ++i) {
        auto const path = wire::indexed("errors", i);
        auto const& item = (*errors)[i];
        if (!item.is_object()) {
            return core::error{"field \"" + path + "\": expected an object, found " +
                               std::string(detail::describe(item))};
        }
        wire::field_reader e(item.get_object(), path);
        w::rejected_report rejected{e.integer("job_id"), e.text("message", "")};
        if (!e.ok()) return *e.error();
        out.rejected.push_back(std::move(rejected));
    }
    return event{std::move(out)};
}

// The 2xx answer(s) of one action as its event.
decoded decode_ok(core::worker_action const& action, core::request_id id,
                  std::span<wire_reply const> replies, std::size_t& failed_step)
{
    auto const& last = replies.back();
    auto const done = [&]() -> decoded { return event{w::request_done{id}}; };
    return std::visit(
        [&](auto const& a) -> decoded {
            using A = std::decay_t<decltype(a)>;
            if constexpr (std::is_same_v<A, w::register_node>) return node_registered(id, last);
            else if constexpr (std::is_same_v<A, w::read_workflow>)
                return workflow_read(id, replies, failed_step);
            else if constexpr (std::is_same_v<A, w::read_pending_actions>)
                return pending_actions(id, last);
            else if constexpr (std::is_same_v<A, w::claim_action>) return action_claimed(id, last);
            else if constexpr (std::is_same_v<A, w::claim_jobs>) return claimed(id, last);
            else if constexpr (std::is_same_v<A, w::read_requirements>) {
                auto v = wire::parse_reply(last.body);
                if (!v) return v.error();
                auto resources = wire::decode_requirements(*v);
                if (!resources) return resources.error();
                return event{w::requirements_read{id, std::move(*resources)}};
            } else if constexpr (std::is_same_v<A, w::read_failure_handler>) {
                auto v = wire::parse_reply(last.body);
                if (!v) return v.error();
                auto handler = wire::decode_failure_handler(*v);
                if (!handler) return handler.error();
                return event{w::failure_handler_read{id, std::move(*handler)}};
            } else if constexpr (std::is_same_v<A, w::complete_jobs>)
                return batch_reported(id, last);
            else if constexpr (std::is_same_v<A, w::check_workflow>)
                return workflow_state(id, last);
            else if constexpr (std::is_same_v<A, w::deactivate_node>) {
                if (replies.size() < 2) {
                    auto v = object_reply(replies[0]);
                    if (!v) return v.error();
                    return core::error{"update_compute_node was not sent"};
                }
                return done();
            } else {
                return done();  // start_job, hand_back, retry_job, record_result, complete_job
            }
        },
        action);
}

}  // namespace

core::worker_event decode_replies(core::worker_action const& action,
                                  std::span<wire_reply const> replies)
{
    auto const id = core::request_of(action).value_or(core::request_id{});
    if (replies.empty()) {
        return w::request_failed{id, core::http_failure::http_5xx, 0,
                                 wire::endpoint_of(action, 0) + ": no answer to decode"};
    }
    auto const& last = replies.back();
    auto const step = replies.size() - 1;
    if (!is_2xx(last.status)) {
        if (std::holds_alternative<w::claim_action>(action) && last.status == 409)
            return w::action_claim_read{id, false};
        return http_failed(id, wire::endpoint_of(action, step), last);
    }
    auto failed_step = step;
    auto out = decode_ok(action, id, replies, failed_step);
    if (out) return std::move(*out);
    return w::request_failed{id, core::http_failure::http_5xx, static_cast<int>(last.status),
                             wire::endpoint_of(action, failed_step) + ": " + out.error().message};
}

}  // namespace torcrun::api
