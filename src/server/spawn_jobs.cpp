// spawn_jobs as pure decisions (spawn_jobs.hpp): the request's decoding, the caller's check, the
// batch's plan and the lineage's records.
#include "torcrun/server/spawn_jobs.hpp"

#include "json_parse.hpp"
#include "torcrun/common/json_kind.hpp"
#include "torcrun/common/json_writer.hpp"
#include "torcrun/server/dependency_graph.hpp"
#include "torcrun/server/model_json.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <map>

namespace torcrun::core {

namespace {

using api::api_error;
using api::api_result;
using api::detail::describe;
using api::detail::quoted;

std::string prefix(std::string_view what, std::string_view where)
{
    return std::string(what) + ": " + std::string(where) + ": ";
}

api_error wrong_type(std::string_view what, std::string_view where, std::string_view expected,
                     boost::json::value const& v)
{
    return api::bad_request(prefix(what, where) + "expected " + std::string(expected) +
                            ", found " + std::string(describe(v)));
}

// A string field; null reads as absent.
api_result<std::optional<std::string>> optional_string(boost::json::object const& o,
                                                       std::string_view key, std::string_view what,
                                                       std::string const& where)
{
    auto const* v = o.if_contains(key);
    if (v == nullptr || v->is_null()) return std::optional<std::string>{};
    if (!v->is_string()) return wrong_type(what, where + "." + std::string(key), "a string", *v);
    return std::optional<std::string>{std::string(v->get_string())};
}

api_result<spawn_job_request> decode_job(boost::json::value const& v, std::string_view what,
                                         std::string const& where)
{
    if (!v.is_object()) return wrong_type(what, where, "an object (SpawnJobModel)", v);
    auto const& o = v.get_object();
    for (auto const& kv : o) {
        static constexpr std::string_view known[] = {
            "name", "command", "depends_on", "resource_requirements", "priority",
            "cancel_on_blocking_job_failure"};
        if (std::ranges::find(known, std::string_view(kv.key())) == std::end(known))
            return api::bad_request(prefix(what, where) + "unknown field " + quoted(kv.key()) +
                                    " (SpawnJobModel has name, command, depends_on, "
                                    "resource_requirements, priority, "
                                    "cancel_on_blocking_job_failure)");
    }
    spawn_job_request job;
    for (std::string_view key : {"name", "command"}) {
        auto text = optional_string(o, key, what, where);
        if (!text) return text.error();
        if (!*text)
            return api::bad_request(prefix(what, where) + "field " + quoted(key) +
                                    " is required");
        (key == "name" ? job.name : job.command) = std::move(**text);
    }
    if (job.name.empty()) return api::unprocessable(prefix(what, where) + "\"name\" is empty");
    if (job.command.empty())
        return api::unprocessable(prefix(what, where) + "\"command\" is empty");
    auto rr = optional_string(o, "resource_requirements", what, where);
    if (!rr) return rr.error();
    job.resource_requirements = std::move(*rr);
    if (auto const* deps = o.if_contains("depends_on"); deps != nullptr && !deps->is_null()) {
        if (!deps->is_array())
            return wrong_type(what, where + ".depends_on", "an array of job names", *deps);
        for (auto const& d : deps->get_array()) {
            if (!d.is_string())
                return wrong_type(what, where + ".depends_on", "an array of job names", d);
            job.depends_on.emplace_back(d.get_string());
        }
    }
    if (auto const* p = o.if_contains("priority"); p != nullptr && !p->is_null()) {
        if (!p->is_int64()) return wrong_type(what, where + ".priority", "an integer", *p);
        job.priority = p->get_int64();
        if (job.priority < 0)
            return api::unprocessable(prefix(what, where) + "spawn job " + quoted(job.name) +
                                      " has invalid priority " + std::to_string(job.priority) +
                                      ": must be >= 0");
    }
    if (auto const* c = o.if_contains("cancel_on_blocking_job_failure");
        c != nullptr && !c->is_null()) {
        if (!c->is_bool())
            return wrong_type(what, where + ".cancel_on_blocking_job_failure", "a boolean", *c);
        job.cancel_on_blocking_job_failure = c->get_bool();
    }
    return job;
}

std::string with_quotes(std::string_view s) { return quoted(s); }

}  // namespace

api_result<spawn_request> decode_spawn_request(std::string_view body, std::string_view what)
{
    auto parsed = api::detail::parse_json(body, what);
    if (!parsed) return parsed.error();
    if (!parsed->is_object())
        return api::bad_request(std::string(what) +
                                ": the body must be an object (SpawnJobsRequest), found " +
                                std::string(describe(*parsed)));
    auto const& o = parsed->get_object();
    for (auto const& kv : o) {
        if (kv.key() != "jobs" && kv.key() != "lineage" && kv.key() != "state")
            return api::bad_request(std::string(what) + ": unknown field " + quoted(kv.key()) +
                                    " (SpawnJobsRequest has jobs, lineage, state)");
    }
    spawn_request out;
    auto const* jobs = o.if_contains("jobs");
    if (jobs == nullptr || jobs->is_null())
        return api::bad_request(std::string(what) +
                                ": field \"jobs\" is required (an empty list means converged)");
    if (!jobs->is_array()) return wrong_type(what, "jobs", "an array", *jobs);
    auto const& list = jobs->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto job = decode_job(list[i], what, "jobs[" + std::to_string(i) + "]");
        if (!job) return job.error();
        out.jobs.push_back(std::move(*job));
    }
    auto lineage = optional_string(o, "lineage", what, "body");
    if (!lineage) return lineage.error();
    if (*lineage && (*lineage)->empty())
        return api::unprocessable(std::string(what) +
                                  ": \"lineage\" is empty (leave it out to use the caller's name)");
    out.lineage = std::move(*lineage);
    if (auto const* state = o.if_contains("state"); state != nullptr && !state->is_null())
        out.state = write_json(*state, 0);  // 0.5, not Boost's 5E-1: Torc's records read so
    return out;
}

api_result<void> check_dynamic_jobs_config(std::string_view json_text, std::string_view what)
{
    auto const where = std::string(what) + ": field \"dynamic_jobs\": ";
    auto parsed = api::detail::parse_json(json_text, what);
    if (!parsed) return parsed.error();
    if (!parsed->is_object())
        return api::unprocessable(where + "expected an object, found " +
                                  std::string(describe(*parsed)));
    for (auto const& kv : parsed->get_object()) {
        if (kv.key() != "max_iterations")
            return api::unprocessable(where + "unknown field " + quoted(kv.key()) +
                                      " (DynamicJobsConfig has only max_iterations)");
        if (kv.value().is_null()) continue;
        if (!kv.value().is_int64())
            return api::unprocessable(where + "\"max_iterations\" must be an integer, found " +
                                      std::string(describe(kv.value())));
        if (kv.value().get_int64() < 1)
            return api::unprocessable(where + "\"max_iterations\" must be at least 1, found " +
                                      std::to_string(kv.value().get_int64()) +
                                      " (0 or less would refuse every spawn)");
    }
    return {};
}

std::int64_t max_spawn_iterations(std::optional<std::string> const& json_text)
{
    if (!json_text) return default_max_spawn_iterations;
    auto parsed = api::detail::parse_json(*json_text, "dynamic_jobs");
    if (!parsed || !parsed->is_object()) return default_max_spawn_iterations;
    auto const* max = parsed->get_object().if_contains("max_iterations");
    if (max == nullptr || !max->is_int64() || max->get_int64() < 1)
        return default_max_spawn_iterations;
    return max->get_int64();
}

std::string lineage_generation_name(std::string_view lineage, std::int64_t generation)
{
    auto digits = std::to_string(generation);
    if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
    return "__torc_lineage__" + std::string(lineage) + "__g" + digits;
}

std::string lineage_final_name(std::string_view lineage)
{
    return "__torc_lineage__" + std::string(lineage) + "__final";
}

std::optional<std::int64_t> lineage_generation_of(std::string_view record_name,
                                                  std::string_view lineage)
{
    auto const head = "__torc_lineage__" + std::string(lineage) + "__g";
    if (!record_name.starts_with(head)) return std::nullopt;
    auto const digits = record_name.substr(head.size());
    if (digits.empty() || !std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    return value;
}

std::optional<api::api_error> check_spawn_caller(spawn_caller const& caller,
                                                 spawn_fence const& fence, std::string_view what)
{
    auto const job = "job " + std::to_string(caller.id);
    if (fence.run_id && *fence.run_id != caller.current_run)
        return api::conflict(std::string(what) + ": " + job + " belongs to run " +
                             std::to_string(caller.current_run) + ", not to run " +
                             std::to_string(*fence.run_id));
    if (fence.attempt_id && *fence.attempt_id != caller.attempt_id)
        return api::conflict(std::string(what) + ": " + job + " is on attempt " +
                             std::to_string(caller.attempt_id) + ", not on attempt " +
                             std::to_string(*fence.attempt_id) +
                             " (an ended attempt may not spawn jobs)");
    if (caller.status != job_status::running)
        return api::unprocessable(std::string(what) + ": " + job + " is " +
                                  with_quotes(to_string(caller.status)) +
                                  "; only a running job may spawn jobs (spawned jobs wait for it "
                                  "and would never be released)");
    return std::nullopt;
}

api_result<spawn_plan> plan_spawn(spawn_caller const& caller, spawn_request const& request,
                                  std::span<job_of_name const> existing, std::int64_t spawn_count,
                                  std::int64_t max_iterations, std::string_view what)
{
    auto const w = std::string(what) + ": ";
    spawn_plan plan;
    plan.lineage = request.lineage.value_or(caller.name);
    plan.iteration = spawn_count;
    auto const& jobs = request.jobs;
    std::map<std::string, std::size_t, std::less<>> batch;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (!batch.emplace(jobs[i].name, i).second)
            return api::unprocessable(w + "duplicate name " + quoted(jobs[i].name) +
                                      " in the spawn batch");
    }
    std::multimap<std::string, job_of_name const*, std::less<>> by_name;
    for (auto const& job : existing) by_name.emplace(job.name, &job);

    // Replay: every name exists, each once and spawned by this caller.
    std::size_t present = 0;
    for (auto const& job : jobs) {
        auto const count = by_name.count(job.name);
        if (count == 0) continue;
        auto const* found = by_name.find(job.name)->second;
        if (count > 1 || found->spawned_by != caller.id)
            return api::unprocessable(
                w + "job name " + quoted(job.name) + " is already used by job " +
                std::to_string(found->id) +
                (count > 1 ? " and others" : "") +
                ", which job " + std::to_string(caller.id) +
                " did not spawn; spawned jobs need names of their own");
        ++present;
    }
    if (present != 0 && present != jobs.size())
        return api::unprocessable(w + "inconsistent replay: " + std::to_string(present) + " of " +
                                  std::to_string(jobs.size()) +
                                  " jobs already exist (a replay resends the same batch)");
    if (!jobs.empty() && present == jobs.size()) {
        plan.replay = true;
        for (auto const& job : jobs) plan.replay_ids.push_back(by_name.find(job.name)->second->id);
        return plan;
    }
    if (jobs.empty()) {
        plan.write_final = request.state.has_value();
        return plan;
    }
    if (spawn_count + 1 > max_iterations)
        return api::unprocessable(w + "per-lineage iteration cap reached for lineage " +
                                  quoted(plan.lineage) + ": attempted iteration " +
                                  std::to_string(spawn_count + 1) +
                                  " exceeds dynamic_jobs.max_iterations=" +
                                  std::to_string(max_iterations) +
                                  " (current spawn_count=" + std::to_string(spawn_count) + ")");

    std::vector<index_edge> sibling_edges;
    plan.edges.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        auto& edges = plan.edges[i];
        edges.push_back({caller.id, 0});
        for (auto const& dep : jobs[i].depends_on) {
            spawn_edge edge;
            if (auto sib = batch.find(dep); sib != batch.end()) {
                edge.sibling = sib->second;
                sibling_edges.push_back({i, sib->second});
            } else {
                auto const count = by_name.count(dep);
                if (count == 0)
                    return api::unprocessable(w + "spawn job " + quoted(jobs[i].name) +
                                              " depends on unknown job " + quoted(dep));
                if (count > 1)
                    return api::unprocessable(w + "spawn job " + quoted(jobs[i].name) +
                                              " depends on " + quoted(dep) + ", a name " +
                                              std::to_string(count) +
                                              " jobs of the workflow have");
                edge.existing_id = by_name.find(dep)->second->id;
            }
            if (std::ranges::find(edges, edge) == edges.end()) edges.push_back(edge);
        }
    }
    if (auto cycle = find_cycle(jobs.size(), sibling_edges); !cycle.empty()) {
        std::string names;
        for (auto i : cycle) names += (names.empty() ? "" : " -> ") + quoted(jobs[i].name);
        return api::unprocessable(w + "the spawn batch's dependencies form a cycle: " + names);
    }
    plan.iteration = spawn_count + 1;
    plan.append_generation = true;
    return plan;
}

std::string spawn_response_body(std::span<std::int64_t const> ids, std::int64_t iteration)
{
    return "{\"spawned_job_ids\":" + api::json_ids(ids) +
           ",\"iteration\":" + std::to_string(iteration) + "}";
}

std::string lineage_record_data(std::int64_t generation,
                                std::optional<std::string> const& state_json, bool final)
{
    auto const n = std::to_string(generation);
    return "{\"generation\":" + n + ",\"spawn_count\":" + n + (final ? ",\"final\":true" : "") +
           ",\"state\":" + state_json.value_or("null") + "}";
}

}  // namespace torcrun::core
