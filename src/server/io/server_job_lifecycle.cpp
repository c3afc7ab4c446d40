// The job endpoints a worker drives: start_job, complete_job, manage_status_change and retry. Each
// reads the job and the workflow's run_id, asks core::decide_*, and writes what it decided with
// job_changes, so a completion releases its dependents before the answer goes out.
#include "lifecycle_detail.hpp"

namespace torcrun::io {
namespace detail {

api_result<job_and_run> load_job(job_changes& changes, std::int64_t job_id)
{
    auto job = changes.job_state(job_id);
    if (!job) return job.error();
    job_and_run out{*job, 0};
    if (*job) {
        auto flags = changes.flags((*job)->workflow_id);
        if (!flags) return flags.error();
        out.current_run = flags->run_id;
    }
    return out;
}

api_result<void> complete_one(job_changes& changes, std::int64_t job_id, job_status requested,
                              std::int64_t run_id, api::record const& result)
{
    auto state = load_job(changes, job_id);
    if (!state) return state.error();
    auto const decided =
        core::decide_complete_job(job_id, requested, state->job, {run_id, state->current_run},
                                  {*result.int64("job_id"), *result.int64("workflow_id")});
    if (!decided) return refused(decided.error());
    auto const& job = state->job;
    auto const sent = job_status{static_cast<int>(*result.int64("status"))};
    if (sent != requested) {
        return api::unprocessable(changes.source() + ": the result's status \"" +
                                  std::string(core::to_string(sent)) + "\" differs from \"" +
                                  std::string(core::to_string(requested)) + "\" in the path");
    }
    auto const wf = job->workflow_id;
    if (auto ok = changes.set_status(wf, job_id, job->status, requested); !ok) return ok;
    if (auto ok = changes.record_result(result); !ok) return ok;
    if (!core::satisfies_dependency(requested)) return {};  // pending_failed waits
    std::int64_t const finished[] = {job_id};
    auto released = changes.finished(wf, finished);
    if (!released) return released.error();
    return {};
}

}  // namespace detail

namespace {

using api::path_params;
using api::request;
using core::job_status;
using detail::job_changes;
using detail::refused;

// The `{status}` path segment as a job status; the message names the endpoint.
api_result<core::job_status> path_status(path_params const& p, std::string_view what)
{
    auto parsed = core::parse_job_status(p.text("status"));
    if (!parsed) return api::unprocessable(std::string(what) + ": " + parsed.error().message);
    return *parsed;
}

api::response start_job(server_api& api, request const& req, path_params const& p)
{
    constexpr std::string_view what = "start_job";
    if (auto ok = api::check_optional_body(req.body, what); !ok)
        return api::error_response(ok.error());
    job_changes changes(api, what);
    auto const job_id = p.id("id");
    auto state = detail::load_job(changes, job_id);
    if (!state) return api::error_response(state.error());
    auto decided = core::decide_start_job(job_id, state->job, {p.id("run_id"), state->current_run});
    if (!decided) return api::error_response(refused(decided.error()));
    auto const wf = state->job->workflow_id;
    auto const node = p.id("compute_node_id");
    auto owned = api.db().check_owner("compute_node", node, wf, "start_job: compute_node_id");
    if (!owned) return api::error_response(owned.error());
    auto done = changes.set_status(wf, job_id, state->job->status, *decided, node);
    if (!done) return api::error_response(done.error());
    return detail::job_reply(api.db(), job_id, what);
}

api::response complete_job(server_api& api, request const& req, path_params const& p)
{
    constexpr std::string_view what = "complete_job";
    auto requested = path_status(p, what);
    if (!requested) return api::error_response(requested.error());
    auto result = api::decode_body(api::result_model, req.body, api::decode_mode::create, what);
    if (!result) return api::error_response(result.error());
    job_changes changes(api, what);
    auto done = detail::complete_one(changes, p.id("id"), *requested, p.id("run_id"), *result);
    if (!done) return api::error_response(done.error());
    return detail::job_reply(api.db(), p.id("id"), what);
}

// A job leaving a status that released its dependents takes them back: Torc resets everything
// downstream (core::downstream_jobs) to uninitialized, and initialize_jobs with only_uninitialized
// picks them up again. None of them keeps a current result.
api_result<void> revert_downstream(job_changes& changes, std::int64_t wf, std::int64_t job_id)
{
    detail::store_view view(changes.db().db());
    std::int64_t const roots[] = {job_id};
    auto const downstream = core::downstream_jobs(roots, view);
    if (view.failed()) return detail::to_api_error(*view.failed(), changes.source());
    for (auto id : downstream) {
        if (id == job_id) continue;  // on a cycle back to itself: it has its new status already
        auto job = changes.job_state(id);
        if (!job) return job.error();
        if (!*job || (*job)->status == job_status::uninitialized) continue;
        if (auto ok = changes.set_status(wf, id, (*job)->status, job_status::uninitialized); !ok)
            return ok;
    }
    return changes.drop_current_results(downstream);
}

api::response manage_status_change(server_api& api, request const& req, path_params const& p)
{
    constexpr std::string_view what = "manage_status_change";
    if (auto ok = api::check_optional_body(req.body, what); !ok)
        return api::error_response(ok.error());
    auto requested = path_status(p, what);
    if (!requested) return api::error_response(requested.error());
    job_changes changes(api, what);
    auto const job_id = p.id("id");
    auto state = detail::load_job(changes, job_id);
    if (!state) return api::error_response(state.error());
    auto decided = core::decide_manage_status_change(job_id, *requested, state->job,
                                                     {p.id("run_id"), state->current_run});
    if (!decided) return api::error_response(refused(decided.error()));
    if (!decided->changed) return detail::job_reply(api.db(), job_id, what);
    auto const wf = state->job->workflow_id;
    // Only pending and running jobs are held by a compute node; keep the holder for those.
    std::optional<std::int64_t> node;
    if (decided->status == job_status::pending || decided->status == job_status::running) {
        auto held = detail::scalar(
            api.db().db(), "SELECT active_compute_node_id FROM job WHERE id = ?", {job_id}, what);
        if (!held) return api::error_response(held.error());
        if (*held && std::holds_alternative<std::int64_t>(**held))
            node = std::get<std::int64_t>(**held);
    }
    auto done = changes.set_status(wf, job_id, state->job->status, decided->status, node);
    if (done && decided->reverts_completion) {
        std::int64_t const self[] = {job_id};
        done = changes.drop_current_results(self);
        if (done) done = revert_downstream(changes, wf, job_id);
    }
    if (!done) return api::error_response(done.error());
    // Claimable again: parked claims wake. No on_jobs_ready count: a job handed back (a worker
    // that could not start it) was counted when it first became ready, and counting it twice
    // would trigger an action before all of its jobs were ready.
    if (decided->status == job_status::ready) api.notify(wf);
    return detail::job_reply(api.db(), job_id, what);
}

api::response retry(server_api& api, request const& req, path_params const& p)
{
    constexpr std::string_view what = "retry";
    if (auto ok = api::check_optional_body(req.body, what); !ok)
        return api::error_response(ok.error());
    auto max_retries = api::query_value(req, {"max_retries", api::param_kind::integer, true}, what);
    if (!max_retries) return api::error_response(max_retries.error());
    job_changes changes(api, what);
    auto const job_id = p.id("id");
    auto state = detail::load_job(changes, job_id);
    if (!state) return api::error_response(state.error());
    auto decided = core::decide_retry(job_id, state->job, {p.id("run_id"), state->current_run},
                                      std::get<std::int64_t>(**max_retries));
    if (!decided) return api::error_response(refused(decided.error()));
    auto const wf = state->job->workflow_id;
    auto done = changes.set_status(wf, job_id, state->job->status, decided->status);
    if (!done) return api::error_response(done.error());
    auto attempt = detail::scalar(api.db().db(), "UPDATE job SET attempt_id = ? WHERE id = ?",
                                  {decided->attempt_id, job_id}, what);
    if (!attempt) return api::error_response(attempt.error());
    // No on_jobs_ready count: the job was counted when it first became ready.
    api.notify(wf);
    return detail::job_reply(api.db(), job_id, what);
}

}  // namespace

void add_job_lifecycle_routes(server_api& api)
{
    api.add_route(
        "PUT", "/jobs/{id}/start_job/{run_id}/{compute_node_id}",
        [&api](request const& req, path_params const& p) { return start_job(api, req, p); });
    api.add_route(
        "POST", "/jobs/{id}/complete_job/{status:string}/{run_id}",
        [&api](request const& req, path_params const& p) { return complete_job(api, req, p); });
    api.add_route("PUT", "/jobs/{id}/manage_status_change/{status:string}/{run_id}",
                  [&api](request const& req, path_params const& p) {
                      return manage_status_change(api, req, p);
                  });
    api.add_route("POST", "/jobs/{id}/retry/{run_id}",
                  [&api](request const& req, path_params const& p) { return retry(api, req, p); });
    detail::add_batch_complete_route(api);
}

}  // namespace torcrun::io
