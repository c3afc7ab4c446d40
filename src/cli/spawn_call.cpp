// `torcrun spawn-jobs`' request from the job's environment and its arguments (spawn_call.hpp).
#include "torcrun/cli/spawn_call.hpp"

#include "torcrun/server/spawn_jobs.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>

namespace torcrun::core {

namespace {

result<std::optional<std::int64_t>> positive(env_map const& env, std::string_view name)
{
    auto value = lookup(env, name);
    if (!value || value->empty()) return std::optional<std::int64_t>{};
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
    if (ec != std::errc{} || end != value->data() + value->size() || n < 0)
        return error{std::string(name) + ": \"" + std::string(*value) +
                     "\" is not a non-negative integer"};
    return std::optional<std::int64_t>{n};
}

result<boost::json::value> parse_text(std::string const& text, std::string_view what)
{
    boost::system::error_code ec;
    auto value = boost::json::parse(text, ec);
    if (ec) return error{std::string(what) + " is not JSON: " + ec.message()};
    return value;
}

}  // namespace

result<spawn_identity> spawn_identity_from(env_map const& env,
                                           std::optional<std::string> const& lineage_flag)
{
    spawn_identity id;
    for (auto [name, slot] : {std::pair{"TORC_WORKFLOW_ID", &id.workflow_id},
                              std::pair{"TORC_JOB_ID", &id.job_id}}) {
        auto value = positive(env, name);
        if (!value) return value.error();
        if (!*value)
            return error{std::string(name) +
                         " is not set: torcrun spawn-jobs runs inside a job that a worker "
                         "started (it spawns on that job's behalf)"};
        *slot = **value;
    }
    for (auto [name, slot] : {std::pair{"TORC_ATTEMPT_ID", &id.attempt_id},
                              std::pair{"TORC_RUN_ID", &id.run_id}}) {
        auto value = positive(env, name);
        if (!value) return value.error();
        *slot = *value;
    }
    if (lineage_flag && !lineage_flag->empty())
        id.lineage = *lineage_flag;
    else if (auto l = lookup(env, "TORC_ORCHESTRATOR_LINEAGE_ID"); l && !l->empty())
        id.lineage = std::string(*l);
    return id;
}

std::string spawn_path(spawn_identity const& id)
{
    std::string path = "/jobs/" + std::to_string(id.job_id) + "/spawn_jobs";
    char sep = '?';
    if (id.attempt_id) {
        path += sep + std::string("attempt_id=") + std::to_string(*id.attempt_id);
        sep = '&';
    }
    if (id.run_id) path += sep + std::string("run_id=") + std::to_string(*id.run_id);
    return path;
}

result<std::string> spawn_body(std::string const& request_text, bool converge,
                               std::optional<std::string> const& state_text,
                               spawn_identity const& id)
{
    boost::json::object body;
    if (!request_text.empty()) {
        auto parsed = parse_text(request_text, "the request");
        if (!parsed) return parsed.error();
        if (!parsed->is_object())
            return error{"the request must be a JSON object {\"jobs\": [...], \"lineage\": ..., "
                         "\"state\": ...}"};
        body = parsed->get_object();
    }
    auto const* jobs = body.if_contains("jobs");
    if (converge) {
        if (jobs && !(jobs->is_array() && jobs->get_array().empty()))
            return error{"--converge spawns nothing, but the request lists jobs"};
        body["jobs"] = boost::json::array();
    } else if (!jobs) {
        return error{"the request has no \"jobs\" (give --converge to record convergence)"};
    }
    if (state_text) {
        if (body.contains("state"))
            return error{"--state and the request's \"state\" both give the state"};
        auto state = parse_text(*state_text, "--state");
        if (!state) return state.error();
        body["state"] = std::move(*state);
    }
    if (!body.contains("lineage") && id.lineage) body["lineage"] = *id.lineage;
    return result<std::string>(boost::system::in_place_value, boost::json::serialize(body));
}

std::int64_t lineage_generation(std::span<std::string const> user_data_names,
                                std::string const& lineage)
{
    std::int64_t highest = 0;
    for (auto const& name : user_data_names) {
        if (auto g = lineage_generation_of(name, lineage)) highest = std::max(highest, *g);
    }
    return highest;
}

}  // namespace torcrun::core
