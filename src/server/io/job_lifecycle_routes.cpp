// The job endpoints a worker drives: start_job, complete_job, manage_status_change, retry and
// batch_complete_jobs. Each reads the job and the workflow's run_id, asks core::decide_*, and
// writes what it decided with job_changes, so a completion releases its dependents before the
// answer goes out.
//
// POST /workflows/{id}/batch_complete_jobs (an extension, as in newer Torc;
// docs/TORC-COMPATIBILITY.md §5): many complete_job calls in one request and one transaction. Each
// entry runs under its own savepoint, so a refused entry is reported in `errors` and rolled back
// alone while the others commit.
#include "lifecycle_detail.hpp"

// GCC 12 reports members left to their default initializers in designated initializer lists (fixed
// in GCC 13); every field_spec member has a default on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace torcrun::io {
namespace {

using api::field_kind;
using api::path_params;
using api::request;
using core::job_status;
using core::run_ids;
using detail::job_changes;
using detail::refused;
using detail::savepoint;

// The job named in a path and its workflow's current run_id, as core's decisions take them.
struct job_and_run {
    std::optional<core::job_state> job;  // nullopt: no such job
    std::int64_t current_run = 0;
    bool fence_node_checked = false;  // the fence's node was found active in the job's workflow
};

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

// The fence of a request (core::job_fence): the query parameters compute_node_id and attempt_id,
// or for start_job the path's node and the query's attempt_id; an attempt without a node is
// refused, as it fences nothing.
api_result<core::job_fence> query_fence(request const& req, std::string_view what,
                                        std::optional<std::int64_t> path_node = std::nullopt)
{
    core::job_fence out;
    auto node = api::query_value(req, {"compute_node_id"}, what);
    if (!node) return node.error();
    if (*node && path_node) {
        return api::unprocessable(std::string(what) +
                                  ": the compute node is the path's; query parameter "
                                  "\"compute_node_id\" is not taken here");
    }
    out.node = path_node;
    if (*node) out.node = std::get<std::int64_t>(**node);
    auto attempt = api::query_value(req, {"attempt_id"}, what);
    if (!attempt) return attempt.error();
    if (*attempt) out.attempt = std::get<std::int64_t>(**attempt);
    if (out.attempt && !out.node) {
        return api::unprocessable(std::string(what) +
                                  ": query parameter \"attempt_id\" needs \"compute_node_id\"");
    }
    return out;
}

// A fenced request's node must be an active compute node of the job's workflow.
api_result<void> check_fence_node(job_changes& changes, core::job_fence const& fence,
                                  std::int64_t workflow_id, std::string_view field)
{
    if (!fence.node) return {};
    return detail::require_active_node(changes.db(), *fence.node, workflow_id, changes.source(),
                                       field);
}

// The result of an attempt the workflow's cancel stopped (core::classify_canceled_result): stored,
// the job left `canceled`. Returns whether it was one (then the request is answered 200). The
// reporting node must not hold another job's claim on it: a fenced result names the job's
// attempt and its node's own result.
api_result<bool> canceled_attempt_result(job_changes& changes, core::job_state const& job,
                                         job_status requested, std::int64_t path_run,
                                         api::record const& result, core::job_fence const& fence)
{
    auto flags = changes.flags(job.workflow_id);
    if (!flags) return flags.error();
    auto kept = changes.kept_result(job.id);
    if (!kept) return kept.error();
    std::optional<std::int64_t> kept_run, kept_attempt;
    if (*kept) {
        kept_run = (*kept)->run_id;
        kept_attempt = (*kept)->attempt_id;
    }
    auto const result_run = result.int64("run_id");
    auto const result_attempt = result.int64("attempt_id");
    if (!result_run || !result_attempt || *result_run != path_run) return false;
    if (fence.attempt && *fence.attempt != *result_attempt) return false;
    if (fence.node && result.int64("compute_node_id") != fence.node) return false;
    auto const verdict = core::classify_canceled_result(
        job, flags->is_canceled, requested, flags->run_id, *result_run, *result_attempt, kept_run,
        kept_attempt);
    if (verdict == core::canceled_result::not_one) return false;
    if (verdict == core::canceled_result::record) {
        if (auto ok = changes.record_result(result); !ok) return ok.error();
    }
    return true;
}

// complete_job for one job: a repeat of a completion already applied is success; else
// core::decide_complete_job, the holder (core::check_holder), the result's status and node equal
// to the request's, then the result row, the new status and job_changes::finished. Shared by
// complete_job and batch_complete_jobs. An unfenced completion (a Torc v0.10 client) is fenced by
// the compute node its result names: refused when that node was deactivated (its jobs went back)
// or when another node holds the job (core::check_result_node).
// complete_loaded takes the job and run as read (batch_complete_jobs reads the job once and the
// workflow's run_id once per batch); complete_one reads them.
api_result<void> complete_loaded(job_changes& changes, job_and_run const* state,
                                 std::int64_t job_id, job_status requested, std::int64_t run_id,
                                 api::record const& result, core::job_fence const& fence)
{
    auto const& job = state->job;
    if (job) {
        if (!state->fence_node_checked) {
            auto ok = check_fence_node(changes, fence, job->workflow_id, "compute_node_id");
            if (!ok) return ok;
        }
        if (job->status == job_status::canceled) {
            auto late = canceled_attempt_result(changes, *job, requested, run_id, result, fence);
            if (!late) return late.error();
            if (*late) return {};
        }
        if (fence.fenced() && job->status == requested) {  // maybe a repeat: read its result
            auto kept = changes.kept_result(job_id);
            if (!kept) return kept.error();
            if (core::repeats_completion(requested, run_id, *job, *kept, fence)) return {};
        }
    }
    auto const decided = core::decide_complete_job(
        job_id, requested, job, {run_id, state->current_run},
        {*result.int64("job_id"), *result.int64("workflow_id"), *result.int64("run_id")});
    if (!decided) return refused(decided.error());
    if (!fence.node) {
        auto const named = *result.int64("compute_node_id");
        auto ok = detail::refuse_inactive_node(changes.db(), named, changes.source());
        if (ok) {  // a node that is not the workflow's is a bad field, not another holder
            ok = changes.db().check_owner("compute_node", named, job->workflow_id,
                                          changes.source() + ": field \"compute_node_id\"");
        }
        if (!ok) return ok;
        if (auto held = core::check_result_node(changes.source(), *job, named))
            return refused(*held);
    }
    if (auto fenced = core::check_holder(changes.source(), *job, fence)) return refused(*fenced);
    if (fence.node && *result.int64("compute_node_id") != *fence.node) {
        return api::unprocessable(changes.source() + ": the result is for compute node " +
                                  std::to_string(*result.int64("compute_node_id")) +
                                  ", the request acts for compute node " +
                                  std::to_string(*fence.node));
    }
    auto const sent = job_status{static_cast<int>(*result.int64("status"))};
    if (sent != requested) {
        return api::unprocessable(changes.source() + ": the result's status \"" +
                                  std::string(core::to_string(sent)) + "\" differs from \"" +
                                  std::string(core::to_string(requested)) + "\" in the path");
    }
    auto const wf = job->workflow_id;
    if (auto ok = changes.set_status(wf, job_id, job->status, requested); !ok) return ok;
    // The result's references are checked above: its job is this job of its workflow
    // (decide_complete_job), its compute node the fence's active node of the workflow or, unfenced,
    // an active node the workflow owns.
    if (auto ok = changes.record_result(result, true); !ok) return ok;
    if (!core::satisfies_dependency(requested)) return {};  // pending_failed waits
    std::int64_t const finished[] = {job_id};
    auto released = changes.finished(wf, finished);
    if (!released) return released.error();
    return {};
}

api_result<void> complete_one(job_changes& changes, std::int64_t job_id, job_status requested,
                              std::int64_t run_id, api::record const& result,
                              core::job_fence const& fence)
{
    auto state = load_job(changes, job_id);
    if (!state) return state.error();
    return complete_loaded(changes, &*state, job_id, requested, run_id, result, fence);
}

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
    auto const node = p.id("compute_node_id");
    auto fence = query_fence(req, what, node);
    if (!fence) return api::error_response(fence.error());
    job_changes changes(api, what);
    auto const job_id = p.id("id");
    auto state = load_job(changes, job_id);
    if (!state) return api::error_response(state.error());
    auto const& job = state->job;
    bool const repeated = job && core::repeats_start(*job, *fence);
    auto decided = core::decide_start_job(job_id, job, {p.id("run_id"), state->current_run});
    if (!decided && !repeated) return api::error_response(refused(decided.error()));
    if (auto ok = check_fence_node(changes, *fence, job->workflow_id, "compute_node_id"); !ok)
        return api::error_response(ok.error());
    if (repeated) return detail::job_reply(api.db(), job_id, what);
    if (auto fenced = core::check_holder(what, *job, *fence))
        return api::error_response(refused(*fenced));
    auto const wf = job->workflow_id;
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
    auto fence = query_fence(req, what);
    if (!fence) return api::error_response(fence.error());
    job_changes changes(api, what);
    auto done = complete_one(changes, p.id("id"), *requested, p.id("run_id"), *result, *fence);
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
    auto fence = query_fence(req, what);
    if (!fence) return api::error_response(fence.error());
    job_changes changes(api, what);
    auto const job_id = p.id("id");
    auto state = load_job(changes, job_id);
    if (!state) return api::error_response(state.error());
    if (state->job) {
        auto ok = check_fence_node(changes, *fence, state->job->workflow_id, "compute_node_id");
        if (!ok) return api::error_response(ok.error());
    }
    run_ids const run{p.id("run_id"), state->current_run};
    auto decided = fence->fenced()
                       ? core::decide_hand_back(job_id, *requested, state->job, run, *fence)
                       : core::decide_manage_status_change(job_id, *requested, state->job, run);
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
    auto fence = query_fence(req, what);
    if (!fence) return api::error_response(fence.error());
    job_changes changes(api, what);
    auto const job_id = p.id("id");
    auto state = load_job(changes, job_id);
    if (!state) return api::error_response(state.error());
    auto const& job = state->job;
    auto const run_id = p.id("run_id");
    if (job && fence->attempt) {
        // A repeat is the retry this node made, wherever the job went since (even if the node
        // has been deactivated since: the answer changes nothing).
        auto applied = changes.applied_retry(job_id, *fence->attempt);
        if (!applied) return api::error_response(applied.error());
        if (core::repeats_retry(run_id, *applied, *fence))
            return detail::job_reply(api.db(), job_id, what);
    }
    if (job) {
        if (auto ok = check_fence_node(changes, *fence, job->workflow_id, "compute_node_id"); !ok)
            return api::error_response(ok.error());
        if (auto fenced = core::check_retry_holder(*job, *fence))
            return api::error_response(refused(*fenced));
    }
    auto decided = core::decide_retry(job_id, job, {run_id, state->current_run},
                                      std::get<std::int64_t>(**max_retries));
    if (!decided) return api::error_response(refused(decided.error()));
    auto const wf = job->workflow_id;
    auto done = changes.set_status(wf, job_id, state->job->status, decided->status);
    if (!done) return api::error_response(done.error());
    auto attempt = detail::scalar(api.db().db(), "UPDATE job SET attempt_id = ? WHERE id = ?",
                                  {decided->attempt_id, job_id}, what);
    if (!attempt) return api::error_response(attempt.error());
    if (fence->fenced()) {
        auto noted = changes.note_retry(job_id, {*fence->node, job->attempt_id, run_id});
        if (!noted) return api::error_response(noted.error());
    }
    // No on_jobs_ready count: the job was counted when it first became ready.
    api.notify(wf);
    return detail::job_reply(api.db(), job_id, what);
}

// ---- batch_complete_jobs

constexpr std::string_view what = "batch_complete_jobs";

// One element of `completions`, decoded by the same tables as every other body.
constexpr api::field_spec entry_fields[] = {
    {.name = "job_id", .kind = field_kind::integer, .required = true},
    {.name = "status", .kind = field_kind::job_status, .required = true},
    {.name = "run_id", .kind = field_kind::integer, .required = true},
    {.name = "result", .kind = field_kind::json_object, .required = true},
    {.name = "compute_node_id", .kind = field_kind::integer},  // the fence (core::job_fence)
    {.name = "attempt_id", .kind = field_kind::integer},
};
api::model_spec const entry_model{"batch_completion", "", entry_fields};

// The entry's job belongs to the workflow in the path; then complete_loaded, with the workflow's
// run_id read once for the batch and its fence's node checked once for the entries that name it
// (nothing in a batch changes either: `checked_node` is the node last found active).
api_result<void> complete_entry(job_changes& changes, std::int64_t workflow_id,
                                std::int64_t current_run,
                                std::optional<std::int64_t>& checked_node,
                                api::record const& entry)
{
    auto const job_id = *entry.int64("job_id");
    auto job = changes.job_state(job_id);
    if (!job) return job.error();
    if (*job && (*job)->workflow_id != workflow_id) {
        return api::unprocessable(std::string(what) + ": job " + std::to_string(job_id) +
                                  " belongs to workflow " + std::to_string((*job)->workflow_id) +
                                  ", not " + std::to_string(workflow_id));
    }
    auto const context = std::string(what) + ": job " + std::to_string(job_id);
    auto result = api::decode_body(api::result_model, *entry.text("result"),
                                   api::decode_mode::create, context);
    if (!result) return result.error();
    auto const status = job_status{static_cast<int>(*entry.int64("status"))};
    core::job_fence const fence{entry.int64("compute_node_id"), entry.int64("attempt_id")};
    if (fence.attempt && !fence.node) {
        return api::unprocessable(context + ": field \"attempt_id\" needs \"compute_node_id\"");
    }
    job_and_run state{*job, current_run};
    if (*job && fence.node) {  // as complete_loaded would check it, first, for an existing job
        if (checked_node != fence.node) {
            if (auto ok = check_fence_node(changes, fence, workflow_id, "compute_node_id"); !ok)
                return ok;
            checked_node = fence.node;
        }
        state.fence_node_checked = true;
    }
    return complete_loaded(changes, &state, job_id, status, *entry.int64("run_id"), *result,
                           fence);
}

api::response batch_complete(server_api& api, api::request const& req, std::int64_t workflow_id)
{
    if (auto ok = api.db().require_workflow(workflow_id, what); !ok)
        return api::error_response(ok.error());
    auto entries =
        api::decode_batch(entry_model, req.body, "completions", api::decode_mode::create, what);
    if (!entries) return api::error_response(entries.error());
    job_changes changes(api, what);
    auto flags = changes.flags(workflow_id);
    if (!flags) return api::error_response(flags.error());
    std::vector<std::int64_t> completed;
    std::optional<std::int64_t> checked_node;
    std::string errors;
    for (auto const& entry : *entries) {
        auto sp = savepoint::begin(api.db().db(), what);
        if (!sp) return api::error_response(sp.error());
        auto done = complete_entry(changes, workflow_id, flags->run_id, checked_node, entry);
        if (done) done = sp->commit(what);
        if (done) {
            completed.push_back(*entry.int64("job_id"));
            continue;
        }
        if (done.error().status >= 500) return api::error_response(done.error());
        errors += std::string(errors.empty() ? "" : ",") +
                  "{\"job_id\":" + std::to_string(*entry.int64("job_id")) +
                  ",\"status\":" + std::to_string(done.error().status) +
                  ",\"message\":" + api::json_quote(done.error().message) + "}";
    }
    return api::json_response(200, "{\"completed\":" + api::json_ids(completed) + ",\"errors\":[" +
                                       errors + "]}");
}

}  // namespace

void add_job_lifecycle_routes(server_api& api)
{
    api.add_route(
        "PUT", "/jobs/{id}/start_job/{run_id}/{compute_node_id}",
        api::access::record_in_path("job"),
        [&api](request const& req, path_params const& p) { return start_job(api, req, p); });
    api.add_route(
        "POST", "/jobs/{id}/complete_job/{status:string}/{run_id}",
        api::access::record_in_path("job"),
        [&api](request const& req, path_params const& p) { return complete_job(api, req, p); });
    api.add_route("PUT", "/jobs/{id}/manage_status_change/{status:string}/{run_id}",
                  api::access::record_in_path("job"),
                  [&api](request const& req, path_params const& p) {
                      return manage_status_change(api, req, p);
                  });
    api.add_route("POST", "/jobs/{id}/retry/{run_id}", api::access::record_in_path("job"),
                  [&api](request const& req, path_params const& p) { return retry(api, req, p); });
    api.add_route("POST", "/workflows/{id}/batch_complete_jobs", api::access::workflow_in_path(),
                  [&api](api::request const& req, api::path_params const& p) {
                      return batch_complete(api, req, p.id("id"));
                  });
}

}  // namespace torcrun::io
