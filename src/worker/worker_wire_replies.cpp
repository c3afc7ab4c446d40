// The server's answers as the worker state machine's events. A non-2xx answer is request_failed
// quoting the server's message (409 on claim_action is "not claimed"); a 2xx answer that does
// not decode is request_failed naming the endpoint (the contract's operationId) and the field,
// never an exception. A claim answer is decoded whole even when it holds more jobs than asked
// for: the state machine hands the surplus back.
//
// Torc's models as the worker needs them (docs/TORC-COMPATIBILITY.md §2.2, §3.3): JobModel ->
// claimed_job, ResourceRequirementsModel -> job_resources (memory strings and ISO-8601 runtimes
// parsed here), FailureHandlerModel with its rules JSON string -> failure_handler,
// WorkflowActionModel -> workflow_action, FileModel -> its path. Absent optional fields take the
// model's defaults.
#include "torcrun/worker/worker_wire.hpp"

#include "worker_wire_fields.hpp"

#include "torcrun/common/json_kind.hpp"
#include "torcrun/common/server_message.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <variant>

namespace torcrun::api::wire {
namespace {

namespace w = core::worker;

// The contract's operationIds, with the id the path names.
struct namer {
    std::size_t step;
    static std::string id_name(std::string_view name, std::int64_t id)
    {
        return std::string(name) + " " + std::to_string(id);
    }
    std::string operator()(w::register_node const&) const { return "create_compute_node"; }
    std::string operator()(w::read_workflow const&) const
    {
        return step == 0   ? "get_workflow"
               : step == 1 ? "get_workflow_status"
                           : "get_workflow_actions";
    }
    std::string operator()(w::read_pending_actions const& a) const
    {
        return "get_pending_actions " + std::string(core::to_string(a.trigger));
    }
    std::string operator()(w::claim_action const& a) const
    {
        return id_name("claim_action", a.action_id);
    }
    std::string operator()(w::claim_jobs const&) const
    {
        return "claim_jobs_based_on_resources";
    }
    std::string operator()(w::read_requirements const& a) const
    {
        return id_name("get_resource_requirements", a.requirements_id);
    }
    std::string operator()(w::start_job const& a) const { return id_name("start_job", a.job_id); }
    std::string operator()(w::hand_back const& a) const
    {
        return id_name("manage_status_change", a.job_id);
    }
    std::string operator()(w::read_failure_handler const& a) const
    {
        return id_name("get_failure_handler", a.handler_id);
    }
    std::string operator()(w::retry_job const& a) const { return id_name("retry_job", a.job_id); }
    std::string operator()(w::record_result const& a) const
    {
        return id_name("create_result", a.result.job_id);
    }
    std::string operator()(w::complete_job const& a) const
    {
        return id_name("complete_job", a.result.job_id);
    }
    std::string operator()(w::complete_jobs const&) const { return "batch_complete_jobs"; }
    std::string operator()(w::complete_and_claim const&) const
    {
        return "complete_and_claim_jobs";
    }
    std::string operator()(w::check_workflow const&) const
    {
        static constexpr char const* names[] = {"is_workflow_complete", "list_jobs",
                                                "list_resource_requirements"};
        return names[std::min<std::size_t>(step, 2)];
    }
    std::string operator()(w::deactivate_node const&) const
    {
        return step == 0 ? "get_compute_node" : "update_compute_node";
    }
    std::string operator()(w::heartbeat const&) const { return "heartbeat"; }
    std::string operator()(w::read_held_jobs const&) const { return "list_jobs"; }
    std::string operator()(w::release_node const&) const
    {
        static constexpr char const* names[] = {"get_compute_node", "list_jobs",
                                                "update_compute_node"};
        return names[std::min<std::size_t>(step, 2)];
    }
    std::string operator()(auto const&) const { return "local work"; }
};

// The name of the request a server action sends at `step` (0 for the first).
std::string endpoint_of(core::worker_action const& action, std::size_t step)
{
    return std::visit(namer{step}, action);
}


core::error not_an_object(std::string const& path, json::value const& v)
{
    return core::error{"field " + detail::quoted(path) + ": expected an object, found " +
                       std::string(detail::describe(v))};
}

core::result<core::failure_rule> decode_rule(json::value const& v, std::string const& path)
{
    if (!v.is_object()) return not_an_object(path, v);
    field_reader r(v.get_object(), path);
    core::failure_rule rule;
    if (auto const* codes = r.array("exit_codes")) {
        for (std::size_t i = 0; i < codes->size(); ++i) {
            auto const& c = (*codes)[i];
            if (!c.is_int64() || c.get_int64() < std::numeric_limits<int>::min() ||
                c.get_int64() > std::numeric_limits<int>::max()) {
                r.fail(indexed("exit_codes", i),
                       ": expected an exit code, found " + std::string(detail::describe(c)));
                break;
            }
            rule.exit_codes.push_back(static_cast<int>(c.get_int64()));
        }
    }
    rule.match_all_exit_codes = r.flag("match_all_exit_codes", false);
    rule.recovery_script = r.optional_text("recovery_script");
    rule.max_retries = r.count("max_retries", 3);  // Torc's default
    if (!r.ok()) return *r.error();
    return rule;
}

// The models, from parsed answers; errors are `field "...": ...` without the endpoint.

core::result<core::claimed_job> decode_job(json::value const& v, std::string const& path)
{
    if (!v.is_object()) return not_an_object(path, v);
    field_reader r(v.get_object(), path);
    core::claimed_job job;
    job.id = r.integer("id");
    job.name = r.text("name");
    job.command = r.text("command");
    job.invocation_script = r.optional_text("invocation_script");
    job.resource_requirements_id = r.integer("resource_requirements_id");
    job.failure_handler_id = r.optional_integer("failure_handler_id");
    job.attempt_id = r.count("attempt_id", 1, 1);
    job.output_file_ids = r.ids("output_file_ids");
    job.env = r.variables("env");
    // Only a running job was started by the claim; a status in any other form is not read.
    if (auto const* status = v.get_object().if_contains("status"); status && status->is_string())
        job.started = status->get_string() == "running";
    if (!r.ok()) return *r.error();
    return job;
}

core::result<core::job_resources> decode_requirements(json::value const& v)
{
    if (!v.is_object()) return core::error{root_problem(v, "an object")};
    field_reader r(v.get_object(), "");
    core::job_resources out;
    out.id = r.integer("id");
    out.name = r.text("name", "");
    out.need.num_cpus = r.count("num_cpus", 1);
    out.need.num_gpus = r.count("num_gpus", 0);
    out.need.num_nodes = r.count("num_nodes", 1);
    auto const memory = r.text("memory", "1m");
    auto const runtime = r.optional_text("runtime");
    if (r.optional_integer("tasks_per_node"))  // torcrun's extension
        out.tasks_per_node = r.count("tasks_per_node", std::nullopt, 1);
    if (!r.ok()) return *r.error();
    auto bytes = core::parse_memory(memory);
    if (!bytes) return core::error{"field \"memory\": " + bytes.error().message};
    out.need.memory_bytes = *bytes;
    if (runtime) {
        auto seconds = core::parse_duration(*runtime);
        if (!seconds) return core::error{"field \"runtime\": " + seconds.error().message};
        out.runtime_seconds = *seconds;
    }
    return out;
}

core::result<core::failure_handler> decode_failure_handler(json::value const& v)
{
    if (!v.is_object()) return core::error{root_problem(v, "an object")};
    field_reader r(v.get_object(), "");
    core::failure_handler out;
    out.id = r.integer("id");
    auto const text = r.text("rules");
    if (!r.ok()) return *r.error();
    boost::system::error_code ec;
    auto const rules = json::parse(text, ec);
    if (ec) {
        return core::error{"field \"rules\": " + detail::quoted(text) + " is not JSON (" +
                           ec.message() + ")"};
    }
    if (!rules.is_array()) {
        return core::error{"field \"rules\": expected a JSON array, found " +
                           std::string(detail::describe(rules))};
    }
    for (std::size_t i = 0; i < rules.get_array().size(); ++i) {
        auto rule = decode_rule(rules.get_array()[i], indexed("rules", i));
        if (!rule) return rule.error();
        out.rules.push_back(std::move(*rule));
    }
    return out;
}

// action_config.commands is read for run_commands, the allocation_config for schedule_nodes;
// other action types are the server's or another worker's business.
core::result<core::workflow_action> decode_action(json::value const& v, std::string const& path)
{
    if (!v.is_object()) return not_an_object(path, v);
    field_reader r(v.get_object(), path);
    core::workflow_action out;
    out.id = r.integer("id");
    out.action_type = r.text("action_type");
    out.trigger_type = r.text("trigger_type", "");
    out.persistent = r.flag("persistent", false);
    if (!r.ok()) return *r.error();
    if (out.action_type != "run_commands" && out.action_type != "schedule_nodes") return out;
    auto const* config = r.object("action_config");
    if (config == nullptr) return *r.error();
    field_reader c(*config, r.path("action_config"));
    if (out.action_type == "schedule_nodes") {
        core::allocation_config a;
        a.scheduler_type = c.text("scheduler_type", "");
        a.scheduler_id = c.optional_integer("scheduler_id").value_or(0);
        a.num_allocations = c.optional_integer("num_allocations").value_or(1);
        a.start_one_worker_per_node = c.flag("start_one_worker_per_node", false);
        a.max_parallel_jobs = c.optional_integer("max_parallel_jobs");
        if (!c.ok()) return *c.error();
        out.allocations = std::move(a);
        return out;
    }
    auto const* commands = c.array("commands");
    if (commands == nullptr && c.ok()) c.fail("commands", " is missing");
    for (std::size_t i = 0; commands != nullptr && i < commands->size(); ++i) {
        auto const& command = (*commands)[i];
        if (!command.is_string()) {
            c.fail(indexed("commands", i),
                   ": expected a string, found " + std::string(detail::describe(command)));
            break;
        }
        out.commands.emplace_back(command.get_string());
    }
    if (!c.ok()) return *c.error();
    return out;
}

}  // namespace
}  // namespace torcrun::api::wire

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

// The actions of `trigger` among every pending action the server listed.
decoded pending_actions(core::request_id id, core::action_trigger trigger, wire_reply const& r)
{
    auto v = wire::parse_reply(r.body);
    if (!v) return v.error();
    if (!v->is_array()) return core::error{wire::root_problem(*v, "an array")};
    w::pending_actions_read out{id, {}};
    auto const& list = v->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto action = wire::decode_action(list[i], wire::indexed("", i));
        if (!action) return action.error();
        if (action->trigger_type == core::to_string(trigger))
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
    return event{w::action_claim_read{id, claimed, std::nullopt}};
}

// A 409 claim and, when it came, the workflow's actions: the executed_by of this one. Anything
// unreadable leaves the holder unknown, which reads as another worker's.
w::action_claim_read claim_refused(core::request_id id, std::int64_t action_id,
                                   std::span<wire_reply const> replies)
{
    w::action_claim_read out{id, false, std::nullopt};
    if (replies.size() < 2 || !is_2xx(replies[1].status)) return out;
    auto v = wire::parse_reply(replies[1].body);
    if (!v || !v->is_array()) return out;
    for (auto const& a : v->get_array()) {
        if (!a.is_object()) continue;
        wire::field_reader r(a.get_object(), "");
        if (r.optional_integer("id") != action_id) continue;
        auto const holder = r.optional_integer("executed_by");
        if (r.ok()) out.held_by = holder;
    }
    return out;
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
    std::size_t step = 1;
    if (auto const run = wire::workflow_run_id(*workflow)) {
        out.run_id = *run;  // Torc 0.23 and torcrun: no status read
    } else {
        if (replies.size() < 2) return core::error{"get_workflow_status was not sent"};
        failed_step = step++;
        auto status = object_reply(replies[1]);
        if (!status) return status.error();
        wire::field_reader st(status->get_object(), "");
        out.run_id = st.integer("run_id");
        if (!st.ok()) return *st.error();
    }
    if (replies.size() <= step) return core::error{"get_workflow_actions was not sent"};
    failed_step = step;
    auto actions = wire::parse_reply(replies[step].body);
    if (!actions) return actions.error();
    if (!actions->is_array()) return core::error{wire::root_problem(*actions, "an array")};
    auto const& list = actions->get_array();
    // Only the triggers matter here; each action is decoded in full when it is pending.
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto const path = wire::indexed("", i);
        if (!list[i].is_object()) return wire::not_an_object(path, list[i]);
        wire::field_reader a(list[i].get_object(), path);
        auto const trigger = a.text("trigger_type", "");
        if (!a.ok()) return *a.error();
        out.job_actions = out.job_actions || trigger == "on_jobs_ready" ||
                          trigger == "on_jobs_complete";
    }
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

// A list answer's `items`, each an object.
core::result<json::array> list_items(wire_reply const& r)
{
    auto v = object_reply(r);
    if (!v) return v.error();
    auto const* items = v->get_object().if_contains("items");
    if (!items || !items->is_array())
        return core::error{"field \"items\": expected an array"};
    for (std::size_t i = 0; i < items->get_array().size(); ++i)
        if (!items->get_array()[i].is_object())
            return wire::not_an_object(wire::indexed("items", i), items->get_array()[i]);
    return items->get_array();
}

// is_complete, the ready jobs, the workflow's requirements: each ready job with its own. A
// job whose requirements are not in the list is left out (it cannot be judged).
decoded ready_jobs(core::request_id id, std::span<wire_reply const> replies,
                   std::size_t& failed_step)
{
    failed_step = 0;  // an is_complete answer without its fields is is_complete's fault
    auto state = workflow_state(id, replies[0]);
    if (!state) return state.error();
    w::ready_jobs_read out{id, std::get<w::workflow_state_read>(*state), {}, false};
    failed_step = 1;
    auto jobs = list_items(replies[1]);
    if (!jobs) return jobs.error();
    if (auto v = object_reply(replies[1])) {
        wire::field_reader f(v->get_object(), "");
        out.more = f.flag("has_more", false);
    }
    failed_step = 2;
    auto requirements = list_items(replies[2]);
    if (!requirements) return requirements.error();
    std::map<std::int64_t, std::pair<core::job_resources, json::object const*>> by_id;
    for (std::size_t i = 0; i < requirements->size(); ++i) {
        auto const& item = (*requirements)[i];
        auto rr = wire::decode_requirements(item);
        if (!rr) return core::error{wire::indexed("items", i) + ": " + rr.error().message};
        by_id.insert_or_assign(rr->id, std::pair{std::move(*rr), &item.get_object()});
    }
    failed_step = 1;
    for (std::size_t i = 0; i < jobs->size(); ++i) {
        wire::field_reader f((*jobs)[i].get_object(), wire::indexed("items", i));
        core::ready_job job;
        job.id = f.integer("id");
        job.name = f.text("name", "");
        job.label = f.optional_text("label");
        auto const rr = f.integer("resource_requirements_id");
        if (!f.ok()) return *f.error();
        auto const it = by_id.find(rr);
        if (it == by_id.end()) continue;
        job.resources = it->second.first;
        wire::field_reader r(*it->second.second, "");
        job.memory = r.text("memory", "");
        job.runtime = r.optional_text("runtime").value_or("");
        out.jobs.push_back(std::move(job));
    }
    return event{std::move(out)};
}

// The jobs held by this node, one page (the worker holds far fewer than a page's 10,000).
decoded held_jobs(core::request_id id, wire_reply const& r)
{
    auto jobs = list_items(r);
    if (!jobs) return jobs.error();
    w::held_jobs_read out{id, {}};
    for (std::size_t i = 0; i < jobs->size(); ++i) {
        wire::field_reader f((*jobs)[i].get_object(), wire::indexed("items", i));
        w::held_job job;
        job.job_id = f.integer("id");
        job.status = f.text("status");
        job.attempt_id = static_cast<std::uint32_t>(f.optional_integer("attempt_id").value_or(1));
        if (!f.ok()) return *f.error();
        out.jobs.push_back(std::move(job));
    }
    return event{std::move(out)};
}

// release_node: the node's record says whether it was this workflow's and active (then the jobs
// it held and the deactivation followed).
decoded node_released(core::request_id id, w::release_node const& a,
                      std::span<wire_reply const> replies, std::size_t& failed_step)
{
    failed_step = 0;
    auto v = object_reply(replies[0]);
    if (!v) return v.error();
    wire::field_reader f(v->get_object(), "");
    auto const workflow = f.integer("workflow_id");
    auto const active = f.flag("is_active", true);
    if (!f.ok()) return *f.error();
    w::node_released out{id, a.compute_node_id, w::earlier_node::released, {}};
    if (workflow != a.workflow_id) {
        out.outcome = w::earlier_node::foreign;
    } else if (!active) {
        out.outcome = w::earlier_node::inactive;
    } else {
        if (replies.size() < 3) return core::error{"update_compute_node was not sent"};
        failed_step = 1;
        auto held = held_jobs(id, replies[1]);
        if (!held) return held.error();
        out.jobs = std::get<w::held_jobs_read>(*held).jobs;
        failed_step = 2;
    }
    return event{std::move(out)};
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
        w::rejected_report rejected{e.integer("job_id"), e.text("message", ""), 0};
        // torcrun's server names each entry's status; Torc's does not.
        rejected.http_status = static_cast<int>(e.optional_integer("status").value_or(0));
        if (!e.ok()) return *e.error();
        out.rejected.push_back(std::move(rejected));
    }
    return event{std::move(out)};
}

// complete_and_claim_jobs: batch_complete_jobs' answer with the claim's `jobs` beside it, and
// `claim_error` when the server refused the claim part.
decoded completed_and_claimed(core::request_id id, wire_reply const& r)
{
    auto reported = batch_reported(id, r);
    if (!reported) return reported.error();
    auto claim = claimed(id, r);
    if (!claim) return claim.error();
    w::completed_and_claimed out{id, std::get<w::jobs_reported>(*reported),
                                 std::get<w::jobs_claimed>(*claim), std::nullopt};
    auto v = object_reply(r);
    if (!v) return v.error();
    if (auto const* refusal = v->get_object().if_contains("claim_error")) {
        if (!refusal->is_object()) {
            return core::error{"field \"claim_error\": expected an object, found " +
                               std::string(detail::describe(*refusal))};
        }
        wire::field_reader e(refusal->get_object(), "claim_error");
        out.claim_error = w::claim_refusal{static_cast<int>(e.integer("status")),
                                           e.text("message", "")};
        if (!e.ok()) return *e.error();
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
                return pending_actions(id, a.trigger, last);
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
            else if constexpr (std::is_same_v<A, w::complete_and_claim>)
                return completed_and_claimed(id, last);
            else if constexpr (std::is_same_v<A, w::check_workflow>)
                return replies.size() == 3 ? ready_jobs(id, replies, failed_step)
                                           : workflow_state(id, replies[0]);
            else if constexpr (std::is_same_v<A, w::heartbeat>)
                return event{w::heartbeat_answered{id, heartbeat_lease_seconds(last.body)}};
            else if constexpr (std::is_same_v<A, w::read_held_jobs>)
                return held_jobs(id, last);
            else if constexpr (std::is_same_v<A, w::release_node>)
                return node_released(id, a, replies, failed_step);
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
    // read_workflow's steps are named as v0.10's three; a workflow that names its run id (Torc
    // 0.23, torcrun) skips get_workflow_status.
    auto const name_of = [&](std::size_t s) {
        if (s == 0 || !std::holds_alternative<w::read_workflow>(action))
            return wire::endpoint_of(action, s);
        auto const first = wire::parse_reply(replies[0].body);
        return wire::endpoint_of(action, first && wire::workflow_run_id(*first) ? s + 1 : s);
    };
    if (auto const* claim = std::get_if<w::claim_action>(&action); claim && replies[0].status == 409)
        return claim_refused(id, claim->action_id, replies);
    if (auto const* node = std::get_if<w::release_node>(&action);
        node && replies.size() == 1 && replies[0].status == 404)
        return w::node_released{id, node->compute_node_id, w::earlier_node::unknown, {}};
    if (!is_2xx(last.status)) return http_failed(id, name_of(step), last);
    auto failed_step = step;
    auto out = decode_ok(action, id, replies, failed_step);
    if (out) return std::move(*out);
    return w::request_failed{id, core::http_failure::http_5xx, static_cast<int>(last.status),
                             name_of(failed_step) + ": " + out.error().message};
}

core::result<std::string> file_path_of(std::string_view body)
{
    using namespace wire;
    auto const fail = [](std::string problem) { return core::error{"get_file: " + problem}; };
    auto v = parse_reply(body);
    if (!v) return fail(v.error().message);
    if (!v->is_object()) return fail(root_problem(*v, "an object"));
    field_reader r(v->get_object(), "");
    auto path = r.text("path");
    if (!r.ok()) return fail(r.error()->message);
    return core::result<std::string>(boost::system::in_place_value, std::move(path));
}

std::optional<double> heartbeat_lease_seconds(std::string_view body)
{
    auto const v = wire::parse_reply(body);
    auto const* object = v ? v->if_object() : nullptr;
    auto const* lease = object ? object->if_contains("lease_seconds") : nullptr;
    if (!lease || !lease->is_number()) return std::nullopt;
    boost::system::error_code ec;
    double const seconds = lease->to_number<double>(ec);
    if (ec || !(seconds > 0)) return std::nullopt;
    return seconds;
}

}  // namespace torcrun::api
