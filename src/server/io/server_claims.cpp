// The two claim endpoints. A claim runs inside the request's BEGIN IMMEDIATE transaction, so claims
// are serialised and a job goes to exactly one claimant: the ready jobs that can be chosen are read
// through the indexes (claim_candidates.hpp: never every ready job), core::select_claim /
// select_next_jobs choose, and the chosen rows become pending, noted with the claimant when the
// worker names itself.
//
// Long poll (extension): with `wait_seconds` > 0 and nothing claimable, the answer is
// api::wait_for_workflow; the HTTP layer parks the request and calls again when the workflow
// changes (server_api::notify) or the wait runs out (then may_wait is false and the answer is an
// empty claim).
#include "claim_candidates.hpp"
#include "lifecycle_detail.hpp"

#include "torcrun/server/claim_selection.hpp"
#include "torcrun/common/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace torcrun::io {
namespace {

using api::request;
using core::job_status;
using detail::job_changes;

constexpr double wait_ceiling_seconds = 60;

struct claim_params {
    double wait_seconds = 0;
    std::optional<std::int64_t> claimant;
};

api_result<double> wait_param(request const& req, double server_max, std::string_view what)
{
    auto text = api::query_value(req, {"wait_seconds", api::param_kind::string}, what);
    if (!text) return text.error();
    if (!*text) return 0.0;
    auto const& s = std::get<std::string>(**text);
    double value = 0;
    auto const r = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || r.ec != std::errc{} || r.ptr != s.data() + s.size() || !(value >= 0)) {
        return api::bad_request(std::string(what) + ": query parameter \"wait_seconds\": \"" + s +
                                "\" is not a number of seconds (0 or more)");
    }
    return std::min({value, server_max, wait_ceiling_seconds});
}

// wait_seconds and the claimant (compute_node_id): an active compute node of the workflow, whose
// lease, if it holds one, the claim renews.
api_result<claim_params> common_params(job_changes& changes, request const& req, std::int64_t wf)
{
    auto const& what = changes.source();
    claim_params out;
    auto wait = wait_param(req, changes.api().options().long_poll_max_seconds, what);
    if (!wait) return wait.error();
    out.wait_seconds = *wait;
    auto node = api::query_value(req, {"compute_node_id"}, what);
    if (!node) return node.error();
    if (!*node) return out;
    auto const id = std::get<std::int64_t>(**node);
    auto& db = changes.db();
    auto owned =
        db.check_owner("compute_node", id, wf, what + ": query parameter \"compute_node_id\"");
    if (!owned) return owned.error();
    auto active =
        detail::scalar(db.db(), "SELECT is_active FROM compute_node WHERE id = ?", {id}, what);
    if (!active) return active.error();
    if (*active && std::holds_alternative<std::int64_t>(**active) &&
        std::get<std::int64_t>(**active) == 0) {
        return detail::inactive_node(what, id);
    }
    if (auto renewed = detail::renew_lease(changes.api(), id, false, what); !renewed)
        return renewed.error();
    out.claimant = id;
    return out;
}

// The chosen jobs become pending; the answer lists them as GET /jobs/{id} shows them
// (invocation_script and the five id lists included, which Torc's claims leave out).
api::outcome hand_out(job_changes& changes, request const& req, std::int64_t wf,
                      std::vector<std::int64_t> const& chosen, claim_params const& params)
{
    if (chosen.empty()) {
        // Nothing can become claimable once every job finished: the claimant hears it now.
        auto unfinished = changes.has_unfinished_jobs(wf);
        if (!unfinished) return api::error_response(unfinished.error());
        if (*unfinished && req.may_wait && params.wait_seconds > 0)
            return api::wait_for_workflow{wf, params.wait_seconds};
        return api::json_response(200, R"({"jobs":[]})");
    }
    std::vector<api::record> rows;
    rows.reserve(chosen.size());
    for (auto id : chosen) {
        auto ok =
            changes.set_status(wf, id, job_status::ready, job_status::pending, params.claimant);
        if (!ok) return api::error_response(ok.error());
        auto job = changes.db().get_job(id, changes.source());
        if (!job) return api::error_response(job.error());
        rows.push_back(std::move(*job));
    }
    return api::json_response(200, api::encode_wrapped(api::job_model, rows, "jobs"));
}

// The workflow's flags; a canceled workflow answers at once, without waiting.
api_result<std::optional<api::response>> canceled_answer(job_changes& changes, std::int64_t wf)
{
    auto flags = changes.flags(wf);
    if (!flags) return flags.error();
    if (!flags->is_canceled) return std::optional<api::response>{};
    return std::optional<api::response>{
        api::json_response(200, R"({"jobs":[],"reason":"Workflow is canceled"})")};
}

api_result<core::claim_request> claim_body(request const& req, std::string_view what)
{
    auto body =
        api::decode_body(api::compute_nodes_resources, req.body, api::decode_mode::create, what);
    if (!body) return body.error();
    auto count = [&](char const* name) {
        auto const v = body->int64(name).value_or(0);
        return static_cast<std::uint32_t>(
            std::min<std::int64_t>(v, std::numeric_limits<std::uint32_t>::max()));
    };
    core::claim_request out{count("num_cpus"), 0, count("num_gpus"), count("num_nodes"), {}, {}};
    auto const* gb = body->find("memory_gb");
    double const memory_gb = std::holds_alternative<double>(*gb)
                                 ? std::get<double>(*gb)
                                 : static_cast<double>(*body->int64("memory_gb"));
    out.memory_bytes = core::claim_memory_bytes(memory_gb);
    if (auto const* limit = body->text("time_limit")) {
        auto seconds = core::parse_duration(*limit);
        if (!seconds) {
            return api::unprocessable(std::string(what) +
                                      ": field \"time_limit\": " + seconds.error().message);
        }
        out.time_limit_seconds = static_cast<std::int64_t>(std::floor(*seconds));
    }
    out.scheduler_config_id = body->int64("scheduler_config_id");
    return out;
}

// The sort method: the query's, else the workflow's jobs_sort_method.
api_result<core::jobs_sort_method> sort_method(store& db, request const& req, std::int64_t wf,
                                               std::string_view what)
{
    auto query = api::query_value(req, {"sort_method", api::param_kind::string}, what);
    if (!query) return query.error();
    if (*query) {
        auto parsed = core::parse_jobs_sort_method(std::get<std::string>(**query));
        if (!parsed) {
            return api::bad_request(std::string(what) +
                                    ": query parameter \"sort_method\": " + parsed.error().message);
        }
        return *parsed;
    }
    auto stored =
        detail::scalar(db.db(), "SELECT jobs_sort_method FROM workflow WHERE id = ?", {wf}, what);
    if (!stored) return stored.error();
    if (*stored && std::holds_alternative<std::string>(**stored)) {
        if (auto parsed = core::parse_jobs_sort_method(std::get<std::string>(**stored)))
            return *parsed;
    }
    return core::default_jobs_sort_method;
}

api::outcome claim_by_resources(server_api& api, request const& req, std::int64_t wf,
                                std::int64_t limit)
{
    job_changes changes(api, "claim_jobs_based_on_resources");
    auto const& what = changes.source();
    auto canceled = canceled_answer(changes, wf);
    if (!canceled) return api::error_response(canceled.error());
    auto request = claim_body(req, what);
    if (!request) return api::error_response(request.error());
    auto method = sort_method(api.db(), req, wf, what);
    if (!method) return api::error_response(method.error());
    auto strict = detail::flag_param(req, "strict_scheduler_match", false, what);
    if (!strict) return api::error_response(strict.error());
    auto params = common_params(changes, req, wf);
    if (!params) return api::error_response(params.error());
    if (*canceled) return **canceled;
    auto ready = detail::claim_candidates(api.db(), wf, limit, what);
    if (!ready) return api::error_response(ready.error());
    auto const chosen = core::select_claim(*ready, *request, {*method, limit, *strict});
    return hand_out(changes, req, wf, chosen, *params);
}

api::outcome claim_next(server_api& api, request const& req, std::int64_t wf)
{
    job_changes changes(api, "claim_next_jobs");
    auto const& what = changes.source();
    if (auto ok = api::check_optional_body(req.body, what); !ok)
        return api::error_response(ok.error());
    auto canceled = canceled_answer(changes, wf);
    if (!canceled) return api::error_response(canceled.error());
    auto limit = api::query_value(req, {"limit"}, what);
    if (!limit) return api::error_response(limit.error());
    auto params = common_params(changes, req, wf);
    if (!params) return api::error_response(params.error());
    if (*canceled) return **canceled;
    auto const n = *limit ? std::get<std::int64_t>(**limit) : core::default_claim_next_jobs_limit;
    auto ready = detail::next_candidates(api.db(), wf, n, what);
    if (!ready) return api::error_response(ready.error());
    return hand_out(changes, req, wf, core::select_next_jobs(*ready, n), *params);
}

}  // namespace

void add_claim_routes(server_api& api)
{
    api.add_route("POST", "/workflows/{id}/claim_jobs_based_on_resources/{limit}",
                  [&api](request const& req, api::path_params const& p) {
                      return claim_by_resources(api, req, p.id("id"), p.id("limit"));
                  });
    api.add_route("POST", "/workflows/{id}/claim_next_jobs",
                  [&api](request const& req, api::path_params const& p) {
                      return claim_next(api, req, p.id("id"));
                  });
}

}  // namespace torcrun::io
