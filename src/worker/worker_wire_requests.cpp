// The worker's server actions as Torc v0.10 requests (docs/TORC-COMPATIBILITY.md §2.1, §2.2, §3.1):
// method, target and body. torcrun's extensions (§5) go out only with use_extensions: the claim's
// `wait_seconds`, `compute_node_id` and `request_key` query parameters, the fence of each job
// transition (`compute_node_id` and `attempt_id`) and the heartbeat; batch completion is sent
// when the state machine asks for it (it asks only with extensions on). Bodies are written as
// Torc's serde writes them.
#include "torcrun/worker/worker_wire.hpp"

#include "worker_wire_fields.hpp"

#include "torcrun/common/date_time.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/serialize.hpp>

#include <charconv>
#include <cmath>

namespace torcrun::api {
namespace {

namespace w = core::worker;
namespace json = boost::json;

using std::to_string;

// Compact JSON text with numbers as people write them ("240", "0.5"; Boost.JSON's serializer
// writes "2.4E2"), as Torc's serde and torcrun's server write them.
void append(std::string& out, json::value const& v)
{
    switch (v.kind()) {
    case json::kind::object: {
        char separator = '{';
        for (auto const& kv : v.get_object()) {
            out += separator;
            out += json::serialize(json::string(kv.key()));
            out += ':';
            append(out, kv.value());
            separator = ',';
        }
        out += v.get_object().empty() ? "{}" : "}";
        return;
    }
    case json::kind::array: {
        char separator = '[';
        for (auto const& item : v.get_array()) {
            out += separator;
            append(out, item);
            separator = ',';
        }
        out += v.get_array().empty() ? "[]" : "]";
        return;
    }
    case json::kind::double_: {
        auto const d = v.get_double();
        if (!std::isfinite(d)) {
            out += "null";
            return;
        }
        char buffer[32];
        auto const r = std::trunc(d) == d && std::fabs(d) < 9007199254740992.0
                           ? std::to_chars(buffer, buffer + sizeof buffer,
                                           static_cast<std::int64_t>(d))
                           : std::to_chars(buffer, buffer + sizeof buffer, d);
        out.append(buffer, r.ptr);
        return;
    }
    default:
        out += json::serialize(v);  // strings, integers, booleans, null
    }
}

std::string to_text(json::value const& v)
{
    std::string out;
    append(out, v);
    return out;
}

// The shortest text that reads back as `v`, for query strings: "30", "0.25".
std::string number_text(double v)
{
    char buffer[32];
    auto const end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
    return std::string(buffer, end);
}

double gigabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / 1073741824.0; }

wire_request make(std::string method, std::string target, std::string body = {})
{
    return {std::move(method), std::move(target), std::move(body), 0};
}

std::string workflow_target(wire_context const& c) { return "/workflows/" + to_string(c.workflow_id); }

// ResultModel (docs/TORC-COMPATIBILITY.md §3.1), in Torc's field order; the usage fields only when
// sampled.
json::object result_object(core::job_result const& r)
{
    json::object o;
    o["job_id"] = r.job_id;
    o["workflow_id"] = r.workflow_id;
    o["run_id"] = r.run_id;
    o["attempt_id"] = r.attempt_id;
    o["compute_node_id"] = r.compute_node_id;
    o["return_code"] = r.return_code;
    o["exec_time_minutes"] = r.exec_time_minutes;
    o["completion_time"] = core::format_torc_time(r.completion_time);
    if (r.usage) {
        o["peak_memory_bytes"] = r.usage->peak_memory_bytes;
        o["avg_memory_bytes"] = r.usage->avg_memory_bytes;
        o["peak_cpu_percent"] = r.usage->peak_cpu_percent;
        o["avg_cpu_percent"] = r.usage->avg_cpu_percent;
    }
    o["status"] = core::to_string(r.status);
    return o;
}

// The Slurm job id as Torc's runner sends it: a number when it is one.
json::value slurm_job_id(std::string const& text)
{
    std::int64_t n = 0;
    auto const r = std::from_chars(text.data(), text.data() + text.size(), n);
    if (r.ec == std::errc{} && r.ptr == text.data() + text.size()) return n;
    return json::string(text);
}

// ComputeNodeModel for registration: the pool's totals, always is_active true (Torc 0.10's
// Slurm runner sends none, and its server cannot read such a node back;
// docs/TORC-COMPATIBILITY.md §2.1); `scheduler` holds the Slurm job and the output directory.
std::string node_body(w::register_node const& a, wire_context const& c)
{
    json::object o;
    o["workflow_id"] = c.workflow_id;
    o["hostname"] = c.hostname;
    o["pid"] = c.pid;
    o["start_time"] = core::format_torc_time(c.start_unix);
    o["is_active"] = true;
    o["num_cpus"] = a.cpus;
    o["memory_gb"] = gigabytes(a.memory_bytes);
    o["num_gpus"] = a.gpus;
    o["num_nodes"] = a.nodes;
    bool const slurm = !c.scheduler_job_id.empty();
    o["compute_node_type"] = slurm ? "slurm" : "local";
    json::object scheduler;
    if (slurm) {
        scheduler["type"] = "slurm";
        scheduler["slurm_job_id"] = slurm_job_id(c.scheduler_job_id);
    }
    if (!c.output_dir.empty()) scheduler["output_dir"] = c.output_dir;
    if (!scheduler.empty()) o["scheduler"] = std::move(scheduler);
    return to_text(o);
}

// A query value percent-encoded: RFC 3986's unreserved characters as they are, every other byte
// as %XX.
std::string query_escape(std::string_view text)
{
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char ch : text) {
        bool const plain = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
                           (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' ||
                           ch == '~';
        if (plain) out += static_cast<char>(ch);
        else out += {'%', hex[ch >> 4], hex[ch & 15]};
    }
    return out;
}

// ComputeNodesResources: per node, each dimension the largest any node offers; time_limit left
// out when no end is known (unlimited).
json::object claim_body(w::claim_jobs const& a)
{
    json::object o;
    o["num_cpus"] = a.per_node.cpus;
    o["memory_gb"] = gigabytes(a.per_node.memory_bytes);
    o["num_gpus"] = a.per_node.gpus;
    o["num_nodes"] = a.num_nodes;
    if (a.time_limit_seconds) o["time_limit"] = core::format_duration(*a.time_limit_seconds);
    return o;
}

// The claim's query: "?wait_seconds=..&compute_node_id=..&request_key=..&start=true&label=..",
// each part only where it applies; `request` is the claim's key.
std::string claim_query(w::claim_jobs const& a, core::request_id request, wire_context const& c)
{
    std::string query;
    char separator = '?';
    if (c.use_extensions) {
        if (a.wait_seconds > 0) {
            query += "?wait_seconds=" + number_text(a.wait_seconds);
            separator = '&';
        }
        // The request id is the claim's key: a claim re-sent after a lost reply keeps its id, so
        // the server answers it with the jobs the first one took.
        // With `start` the server starts what it hands out, for this node, in the claim.
        if (c.compute_node_id != 0) {
            query += separator + std::string("compute_node_id=") + to_string(c.compute_node_id) +
                     "&request_key=" + to_string(static_cast<std::uint64_t>(request)) +
                     (a.start ? "&start=true" : "");
            separator = '&';
        }
    }
    // A labelled worker claims only its label's jobs (torcrun's server; the worker refuses a
    // label without extensions, since a Torc server would hand it any job).
    if (c.label) query += separator + std::string("label=") + query_escape(*c.label);
    return query;
}

wire_request claim_request(w::claim_jobs const& a, wire_context const& c)
{
    auto out = make("POST",
                    workflow_target(c) + "/claim_jobs_based_on_resources/" + to_string(a.limit) +
                        claim_query(a, a.request, c),
                    to_text(claim_body(a)));
    if (c.use_extensions) out.wait_seconds = a.wait_seconds;
    return out;
}

// The fence of a job transition as query parameters: "?compute_node_id=3&attempt_id=1" (with
// `separator` '&' after other parameters); empty without extensions or before registration.
std::string fence_query(wire_context const& c, std::uint32_t attempt_id, char separator = '?',
                        bool with_node = true)
{
    if (!c.use_extensions || c.compute_node_id == 0) return {};
    std::string out(1, separator);
    if (with_node) out += "compute_node_id=" + to_string(c.compute_node_id) + "&";
    return out + "attempt_id=" + to_string(attempt_id);
}

// Each entry fenced by its result's own node and attempt (a journaled result names the node that
// ran it).
json::array completions_of(std::vector<core::job_result> const& results)
{
    json::array completions;
    for (auto const& r : results) {
        json::object entry{{"job_id", r.job_id},
                           {"status", core::to_string(r.status)},
                           {"run_id", r.run_id}};
        if (r.compute_node_id != 0) {
            entry["compute_node_id"] = r.compute_node_id;
            entry["attempt_id"] = r.attempt_id;
        }
        entry["result"] = result_object(r);
        completions.push_back(std::move(entry));
    }
    return completions;
}

std::string batch_body(w::complete_jobs const& a)
{
    return to_text(json::object{{"completions", completions_of(a.results)}});
}

// batch_complete_jobs' completions and the claim (which never waits: the completions' answer
// must not be held back), under the exchange's request id as the claim's key.
wire_request exchange_request(w::complete_and_claim const& a, wire_context const& c)
{
    auto claim = a.claim;
    claim.wait_seconds = 0;
    return make("POST",
                workflow_target(c) + "/complete_and_claim_jobs/" + to_string(claim.limit) +
                    claim_query(claim, a.request, c),
                to_text(json::object{{"completions", completions_of(a.results)},
                                     {"claim", claim_body(claim)}}));
}

// The GET's ComputeNodeModel put back with is_active false (and the worker's lifetime and the
// node's usage, as Torc's deactivate_compute_node); nullopt when the GET's answer is not an
// object (decode_replies then says why).
std::optional<wire_request> deactivate_request(std::int64_t node_id, wire_reply const& got,
                                               std::optional<double> duration_seconds,
                                               std::optional<core::usage_summary> const& usage)
{
    auto v = wire::parse_reply(got.body);
    if (!v || !v->is_object()) return std::nullopt;
    auto& node = v->get_object();
    node["is_active"] = false;
    if (duration_seconds) node["duration_seconds"] = *duration_seconds;
    if (usage) {
        node["sample_count"] = static_cast<std::int64_t>(usage->sample_count);
        node["peak_cpu_percent"] = usage->peak_cpu_percent;
        node["avg_cpu_percent"] = usage->avg_cpu_percent;
        node["peak_memory_bytes"] = static_cast<std::int64_t>(usage->peak_memory_bytes);
        node["avg_memory_bytes"] = static_cast<std::int64_t>(usage->avg_memory_bytes);
    }
    return make("PUT", "/compute_nodes/" + to_string(node_id), to_text(node));
}

bool is_2xx(unsigned status) { return status >= 200 && status < 300; }

std::string held_jobs_target(wire_context const& c, std::int64_t node_id)
{
    return "/jobs?workflow_id=" + to_string(c.workflow_id) +
           "&active_compute_node_id=" + to_string(node_id) + "&limit=10000";
}

// release_node after the GET of the node: its held jobs when it is an active node of this
// workflow (else nothing more: decode_replies tells which), then the deactivation.
std::optional<wire_request> release_request(w::release_node const& a, wire_context const& c,
                                            std::span<wire_reply const> previous)
{
    if (previous.size() > 2 || !is_2xx(previous.back().status)) return std::nullopt;
    auto v = wire::parse_reply(previous[0].body);
    if (!v || !v->is_object()) return std::nullopt;
    auto const& node = v->get_object();
    auto const* workflow = node.if_contains("workflow_id");
    auto const* active = node.if_contains("is_active");
    if (!workflow || !workflow->is_int64() || workflow->get_int64() != a.workflow_id)
        return std::nullopt;
    if (active && active->is_bool() && !active->get_bool()) return std::nullopt;
    if (previous.size() == 1) return make("GET", held_jobs_target(c, a.compute_node_id));
    return deactivate_request(a.compute_node_id, previous[0], std::nullopt, std::nullopt);
}

// check_workflow with_ready_jobs, after is_complete said neither complete nor canceled: the
// ready jobs (one page of Torc's largest), then the workflow's resource requirements.
std::optional<wire_request> ready_jobs_request(w::check_workflow const& a, wire_context const& c,
                                               std::span<wire_reply const> previous)
{
    if (!a.with_ready_jobs || previous.size() > 2 || !is_2xx(previous.back().status))
        return std::nullopt;
    auto const query = "?workflow_id=" + to_string(c.workflow_id) + "&limit=10000";
    if (previous.size() == 2) return make("GET", "/resource_requirements" + query);
    auto v = wire::parse_reply(previous[0].body);
    if (!v || !v->is_object()) return std::nullopt;  // decode_replies says why
    for (auto const* key : {"is_complete", "is_canceled"}) {
        auto const* flag = v->get_object().if_contains(key);
        if (flag && flag->is_bool() && flag->get_bool()) return std::nullopt;
    }
    // Every ready job, whatever its label: the state machine leaves other labels' jobs to their
    // workers, or names them when it is the only worker.
    return make("GET", "/jobs" + query + "&status=ready");
}

struct first_request {
    wire_context const& c;

    wire_request operator()(w::register_node const& a) const
    {
        return make("POST", "/compute_nodes", node_body(a, c));
    }
    wire_request operator()(w::read_workflow const&) const { return make("GET", workflow_target(c)); }
    // Every pending action, filtered by trigger here (decode_replies): the contract's optional
    // `trigger_type` filter is one that Prism cannot check against 0.23's document (an array or
    // null), and a server that ignored it would hand out the other triggers' actions anyway.
    wire_request operator()(w::read_pending_actions const&) const
    {
        return make("GET", workflow_target(c) + "/actions/pending");
    }
    wire_request operator()(w::claim_action const& a) const
    {
        return make("POST", workflow_target(c) + "/actions/" + to_string(a.action_id) + "/claim",
                    to_text(json::object{{"compute_node_id", c.compute_node_id}}));
    }
    wire_request operator()(w::claim_jobs const& a) const { return claim_request(a, c); }
    wire_request operator()(w::read_requirements const& a) const
    {
        return make("GET", "/resource_requirements/" + to_string(a.requirements_id));
    }
    wire_request operator()(w::start_job const& a) const
    {
        return make("PUT", "/jobs/" + to_string(a.job_id) + "/start_job/" + to_string(c.run_id) +
                               "/" + to_string(c.compute_node_id) +
                               fence_query(c, a.attempt_id, '?', false));
    }
    wire_request operator()(w::hand_back const& a) const
    {
        return make("PUT", "/jobs/" + to_string(a.job_id) + "/manage_status_change/ready/" +
                               to_string(c.run_id) + fence_query(c, a.attempt_id));
    }
    wire_request operator()(w::read_failure_handler const& a) const
    {
        return make("GET", "/failure_handlers/" + to_string(a.handler_id));
    }
    wire_request operator()(w::retry_job const& a) const
    {
        return make("POST", "/jobs/" + to_string(a.job_id) + "/retry/" + to_string(c.run_id) +
                                "?max_retries=" + to_string(a.max_retries) +
                                fence_query(c, a.attempt_id, '&'));
    }
    wire_request operator()(w::record_result const& a) const
    {
        return make("POST", "/results", to_text(result_object(a.result)));
    }
    // The attempt's own run id and node: a result journaled before a restart names the run and
    // the node it ran in.
    wire_request operator()(w::complete_job const& a) const
    {
        auto const& r = a.result;
        std::string fence;
        if (c.use_extensions && r.compute_node_id != 0)
            fence = "?compute_node_id=" + to_string(r.compute_node_id) +
                    "&attempt_id=" + to_string(r.attempt_id);
        return make("POST",
                    "/jobs/" + to_string(r.job_id) + "/complete_job/" +
                        std::string(core::to_string(r.status)) + "/" + to_string(r.run_id) + fence,
                    to_text(result_object(r)));
    }
    wire_request operator()(w::complete_jobs const& a) const
    {
        return make("POST", workflow_target(c) + "/batch_complete_jobs", batch_body(a));
    }
    wire_request operator()(w::complete_and_claim const& a) const
    {
        return exchange_request(a, c);
    }
    wire_request operator()(w::check_workflow const&) const
    {
        return make("GET", workflow_target(c) + "/is_complete");
    }
    wire_request operator()(w::deactivate_node const&) const
    {
        return make("GET", "/compute_nodes/" + to_string(c.compute_node_id));
    }
    wire_request operator()(w::heartbeat const&) const { return heartbeat_request(c); }
    wire_request operator()(w::read_held_jobs const&) const
    {
        return make("GET", held_jobs_target(c, c.compute_node_id));
    }
    wire_request operator()(w::release_node const& a) const
    {
        return make("GET", "/compute_nodes/" + to_string(a.compute_node_id));
    }
};

template <class A>
constexpr bool is_server_request = std::is_invocable_r_v<wire_request, first_request, A const&>;

}  // namespace

std::optional<wire_request> next_request(core::worker_action const& action,
                                         wire_context const& context,
                                         std::span<wire_reply const> previous)
{
    return std::visit(
        [&](auto const& a) -> std::optional<wire_request> {
            using A = std::decay_t<decltype(a)>;
            if constexpr (!is_server_request<A>) {
                return std::nullopt;
            } else {
                if (previous.empty()) return first_request{context}(a);
                if constexpr (std::is_same_v<A, w::check_workflow>)
                    return ready_jobs_request(a, context, previous);
                if constexpr (std::is_same_v<A, w::read_workflow>) {
                    // the workflow, its status (the run id, where the workflow names none: Torc
                    // v0.10), its actions (any job-gated ones?)
                    if (!is_2xx(previous.back().status)) return std::nullopt;
                    auto v = wire::parse_reply(previous.back().body);
                    if (!v || !v->is_object()) return std::nullopt;
                    auto const first = wire::parse_reply(previous.front().body);
                    bool const named = first && wire::workflow_run_id(*first).has_value();
                    auto const steps = named ? 2u : 3u;
                    if (previous.size() >= steps) return std::nullopt;
                    bool const status_next = !named && previous.size() == 1;
                    return make("GET", workflow_target(context) +
                                           (status_next ? "/status" : "/actions"));
                }
                if constexpr (std::is_same_v<A, w::claim_action>) {
                    // refused: who holds it? (this worker, when its first claim's answer was lost)
                    if (previous.size() != 1 || previous[0].status != 409) return std::nullopt;
                    return make("GET", workflow_target(context) + "/actions");
                }
                if constexpr (std::is_same_v<A, w::deactivate_node>) {
                    if (previous.size() != 1 || !is_2xx(previous[0].status)) return std::nullopt;
                    return deactivate_request(context.compute_node_id, previous[0],
                                              a.duration_seconds, context.node_usage);
                }
                if constexpr (std::is_same_v<A, w::release_node>)
                    return release_request(a, context, previous);
                return std::nullopt;
            }
        },
        action);
}

wire_request heartbeat_request(wire_context const& context)
{
    return make("POST", "/compute_nodes/" + to_string(context.compute_node_id) + "/heartbeat");
}

wire_request read_file_request(std::int64_t file_id)
{
    return make("GET", "/files/" + to_string(file_id));
}

}  // namespace torcrun::api
