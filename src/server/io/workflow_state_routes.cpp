// The workflow-level life-cycle endpoints: is_complete, is_uninitialized, status (get, put),
// cancel, reset_status, reset_job_status, ready_job_requirements and required_existing_files.
// The answers come from core::workflow_progress over the job status counts and the
// workflow_status row; GET status also sums up the workflow's results, nodes and ready jobs for
// 0.23's WorkflowStatusResponse (core::encode_workflow_status).
#include "lifecycle_detail.hpp"

#include "torcrun/common/units.hpp"
#include "torcrun/server/workflow_status_answer.hpp"

#include <boost/json/serialize.hpp>

#include <array>

namespace torcrun::io {
namespace {

using api::path_params;
using api::request;
using core::job_status;
using detail::job_changes;

std::string json_bool(bool b) { return b ? "true" : "false"; }

api::response is_complete(server_api& api, std::int64_t wf)
{
    job_changes changes(api, "is_complete");
    auto flags = changes.flags(wf);
    if (!flags) return api::error_response(flags.error());
    // Whether one job is unfinished, not how many jobs have each status: the workers poll this,
    // and counting read every job of the workflow (its index entries) on each poll.
    auto unfinished = changes.has_unfinished_jobs(wf);
    if (!unfinished) return api::error_response(unfinished.error());
    auto const answer = core::is_complete(*flags, *unfinished);
    return api::json_response(200, "{\"is_canceled\":" + json_bool(answer.is_canceled) +
                                       ",\"is_complete\":" + json_bool(answer.is_complete) +
                                       ",\"needs_to_run_completion_script\":" +
                                       json_bool(answer.needs_to_run_completion_script) + "}");
}

api::response is_uninitialized(server_api& api, std::int64_t wf)
{
    job_changes changes(api, "is_uninitialized");
    if (auto ok = api.db().require_workflow(wf, changes.source()); !ok)
        return api::error_response(ok.error());
    auto counts = changes.counts(wf);
    if (!counts) return api::error_response(counts.error());
    return api::json_response(
        200, "{\"is_uninitialized\":" + json_bool(core::is_uninitialized(*counts)) + "}");
}

api::response status_reply(store& db, std::int64_t wf, std::string_view what)
{
    return detail::reply(db.get(api::workflow_status_model, wf, what), api::workflow_status_model);
}

// One row of integers (and reals) that `sql` reads for the workflow bound to ?1 (and `more`).
api_result<std::vector<api::cell>> read_row(store& db, std::string const& sql, std::int64_t wf,
                                            std::optional<std::int64_t> more,
                                            std::string_view what)
{
    auto stmt = db.db().cached(sql);
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf);
    if (more) (*stmt)->bind(2, *more);
    auto row = (*stmt)->step();
    if (!row) return detail::to_api_error(row.error(), what);
    std::vector<api::cell> out;
    for (int i = 0; *row && i < (*stmt)->column_count(); ++i)
        out.push_back(detail::read_cell(**stmt, i));
    (*stmt)->reset();
    return out;
}

std::int64_t int_of(api::cell const& c)
{
    if (auto const* i = std::get_if<std::int64_t>(&c)) return *i;
    if (auto const* d = std::get_if<double>(&c)) return static_cast<std::int64_t>(*d);
    return 0;
}

// The walltime the workflow's active compute nodes have left (core::max_allocation_remaining).
api_result<std::optional<std::int64_t>> allocation_remaining(server_api& api, std::int64_t wf,
                                                             std::string_view what)
{
    auto stmt = api.db().db().cached("SELECT start_time, time_limit, end_time FROM compute_node "
                                     "WHERE workflow_id = ? AND is_active = 1");
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf);
    std::vector<std::array<std::optional<std::string>, 3>> texts;
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return detail::to_api_error(row.error(), what);
        if (!*row) break;
        auto& cells = texts.emplace_back();
        for (int i = 0; i < 3; ++i) {
            if (!(*stmt)->is_null(i)) cells[static_cast<std::size_t>(i)] = (*stmt)->text(i);
        }
    }
    auto const view = [](std::optional<std::string> const& text) {
        return text ? std::optional<std::string_view>(*text) : std::nullopt;
    };
    std::vector<core::allocation_clock> nodes;
    for (auto const& [start, limit, end] : texts)
        nodes.push_back({view(start).value_or(std::string_view()), view(limit), view(end)});
    auto const now = std::chrono::duration<double>(api.options().clock().time_since_epoch());
    return core::max_allocation_remaining(nodes, now.count());
}

// GET status: one object for both contracts (core::encode_workflow_status).
api::response workflow_status(server_api& api, std::int64_t wf)
{
    job_changes changes(api, "workflow_status");
    auto const& what = changes.source();
    auto workflow = api.db().get(api::workflow_model, wf, what);
    if (!workflow) return api::error_response(workflow.error());
    core::workflow_summary s;
    s.workflow_id = wf;
    s.workflow_name = *workflow->text("name");
    s.workflow_user = *workflow->text("user");
    auto flags = changes.flags(wf);
    if (!flags) return api::error_response(flags.error());
    s.flags = *flags;
    auto counts = changes.counts(wf);
    if (!counts) return api::error_response(counts.error());
    s.counts = *counts;
    s.is_complete = core::is_complete(*flags, *counts).is_complete;
    auto remaining = allocation_remaining(api, wf, what);
    if (!remaining) return api::error_response(remaining.error());
    s.max_allocation_remaining_seconds = *remaining;
    auto nodes = read_row(
        api.db(),
        "SELECT (SELECT TOTAL(r.exec_time_minutes) FROM workflow_result w JOIN result r "
        "ON r.id = w.result_id WHERE w.workflow_id = ?1), "
        "(SELECT COUNT(*) FROM compute_node WHERE workflow_id = ?1 AND is_active = 1), "
        "(SELECT COUNT(*) FROM scheduled_compute_node WHERE workflow_id = ?1 "
        "AND status = 'pending'), "
        "(SELECT COUNT(*) FROM scheduled_compute_node WHERE workflow_id = ?1 "
        "AND status = 'active')",
        wf, std::nullopt, what);
    if (!nodes) return api::error_response(nodes.error());
    s.total_exec_time_minutes = std::get<double>(nodes->at(0));
    s.active_compute_nodes = int_of(nodes->at(1));
    s.pending_scheduled_nodes = int_of(nodes->at(2));
    s.active_scheduled_nodes = int_of(nodes->at(3));
    if (*remaining) {  // runtime-blocked: a ready job longer than the best allocation has left
        auto ready = read_row(api.db(),
                              "SELECT COALESCE(SUM(COALESCE(r.runtime_s, 0) > ?2), 0), "
                              "COALESCE(MAX(r.runtime_s), 0) FROM job j LEFT JOIN "
                              "resource_requirements r ON r.id = j.resource_requirements_id "
                              "WHERE j.workflow_id = ?1 AND j.status = " +
                                  std::to_string(core::to_int(job_status::ready)),
                              wf, **remaining, what);
        if (!ready) return api::error_response(ready.error());
        s.ready = {int_of(ready->at(0)), int_of(ready->at(1))};
    }
    return api::json_response(200, core::encode_workflow_status(s));
}

api_result<void> write_flags(store& db, std::int64_t wf, core::workflow_flags const& f,
                             std::string_view what)
{
    api::record fields;
    fields.set("run_id", f.run_id);
    fields.set("is_canceled", std::int64_t{f.is_canceled});
    fields.set("is_archived", std::int64_t{f.is_archived});
    fields.set("has_detected_need_to_run_completion_script",
               std::int64_t{f.has_detected_need_to_run_completion_script});
    auto row = db.update(api::workflow_status_model, wf, fields, what);
    if (!row) return row.error();
    return {};
}

// The workflow's jobs whose status is one of `statuses`, with that status.
api_result<std::vector<std::pair<std::int64_t, job_status>>>
jobs_in(store& db, std::int64_t wf, std::vector<job_status> const& statuses, std::string_view what)
{
    std::vector<std::pair<std::int64_t, job_status>> out;
    auto stmt = db.db().cached("SELECT id, status FROM job WHERE workflow_id = ? ORDER BY id");
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return detail::to_api_error(row.error(), what);
        if (!*row) break;
        auto const s = job_status{static_cast<int>((*stmt)->int64(1))};
        if (std::find(statuses.begin(), statuses.end(), s) != statuses.end())
            out.emplace_back((*stmt)->int64(0), s);
    }
    return out;
}

std::vector<job_status> statuses_where(bool (*pick)(job_status))
{
    std::vector<job_status> out;
    for (auto s : core::all_job_statuses) {
        if (pick(s)) out.push_back(s);
    }
    return out;
}

// PUT cancel: is_canceled, and pending and running jobs canceled (core::status_after_cancel); their
// workers see is_canceled and stop them. Parked claims wake and answer "canceled".
api::response cancel(server_api& api, request const& req, std::int64_t wf)
{
    job_changes changes(api, "cancel");
    if (auto ok = api::check_optional_body(req.body, changes.source()); !ok)
        return api::error_response(ok.error());
    auto flags = changes.flags(wf);
    if (!flags) return api::error_response(flags.error());
    flags->is_canceled = true;
    if (auto ok = write_flags(api.db(), wf, *flags, changes.source()); !ok)
        return api::error_response(ok.error());
    auto jobs = jobs_in(api.db(), wf, statuses_where([](job_status s) {
                            return core::status_after_cancel(s).has_value();
                        }),
                        changes.source());
    if (!jobs) return api::error_response(jobs.error());
    for (auto [id, s] : *jobs) {
        auto ok = changes.set_status(wf, id, s, *core::status_after_cancel(s));
        if (!ok) return api::error_response(ok.error());
    }
    api.notify(wf);
    return status_reply(api.db(), wf, changes.source());
}

api::response reset_status(server_api& api, request const& req, std::int64_t wf)
{
    job_changes changes(api, "reset_status");
    if (auto ok = api::check_optional_body(req.body, changes.source()); !ok)
        return api::error_response(ok.error());
    auto force = detail::flag_param(req, "force", false, changes.source());
    if (!force) return api::error_response(force.error());
    auto flags = changes.flags(wf);
    if (!flags) return api::error_response(flags.error());
    auto counts = changes.counts(wf);
    if (!counts) return api::error_response(counts.error());
    auto decided = core::decide_reset_status(*flags, *counts, *force);
    if (!decided) return api::error_response(detail::refused(decided.error()));
    if (auto ok = write_flags(api.db(), wf, *decided, changes.source()); !ok)
        return api::error_response(ok.error());
    api.notify(wf);  // no longer canceled: ready jobs are claimable again
    return status_reply(api.db(), wf, changes.source());
}

// The jobs failed_only resets: core::failed_jobs_to_reset over each job's status.
api_result<std::vector<std::int64_t>> failed_roots(store& db, std::int64_t wf,
                                                   std::string_view what)
{
    auto all = jobs_in(db, wf, {core::all_job_statuses.begin(), core::all_job_statuses.end()},
                       what);
    if (!all) return all.error();
    std::vector<core::reset_candidate> jobs;
    for (auto [id, s] : *all) jobs.push_back({id, s});
    return core::failed_jobs_to_reset(jobs);
}

api_result<std::int64_t> reset_jobs(job_changes& changes, std::int64_t wf, bool failed_only)
{
    std::vector<std::int64_t> ids;
    if (failed_only) {
        auto roots = failed_roots(changes.db(), wf, changes.source());
        if (!roots) return roots.error();
        detail::store_view view(changes.db().db());
        ids = core::downstream_jobs(*roots, view);
        if (view.failed()) return detail::to_api_error(*view.failed(), changes.source());
        ids.insert(ids.end(), roots->begin(), roots->end());
        std::int64_t updated = 0;
        for (auto id : ids) {
            auto job = changes.job_state(id);
            if (!job) return job.error();
            if (!*job || (*job)->status == job_status::uninitialized) continue;
            auto ok = changes.set_status(wf, id, (*job)->status, job_status::uninitialized);
            if (!ok) return ok.error();
            if (std::binary_search(roots->begin(), roots->end(), id)) ++updated;
        }
        return updated;
    }
    auto jobs =
        jobs_in(changes.db(), wf, statuses_where(core::reset_all_changes), changes.source());
    if (!jobs) return jobs.error();
    for (auto [id, s] : *jobs) {
        auto ok = changes.set_status(wf, id, s, job_status::uninitialized);
        if (!ok) return ok.error();
    }
    return static_cast<std::int64_t>(jobs->size());
}

api::response reset_job_status(server_api& api, request const& req, std::int64_t wf)
{
    job_changes changes(api, "reset_job_status");
    if (auto ok = api::check_optional_body(req.body, changes.source()); !ok)
        return api::error_response(ok.error());
    auto failed_only = detail::flag_param(req, "failed_only", false, changes.source());
    if (!failed_only) return api::error_response(failed_only.error());
    if (auto ok = api.db().require_workflow(wf, changes.source()); !ok)
        return api::error_response(ok.error());
    auto updated = reset_jobs(changes, wf, *failed_only);
    if (!updated) return api::error_response(updated.error());
    return api::json_response(200, "{\"workflow_id\":" + std::to_string(wf) +
                                       ",\"updated_count\":" + std::to_string(*updated) +
                                       ",\"status\":\"uninitialized\",\"reset_type\":\"" +
                                       (*failed_only ? "failed_only" : "all") + "\"}");
}

// Sums over the ready jobs, for sizing allocations (Torc's recommend-nodes).
api::response ready_job_requirements(server_api& api, request const& req, std::int64_t wf)
{
    constexpr std::string_view what = "ready_job_requirements";
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto scheduler = api::query_value(req, {"scheduler_config_id"}, what);
    if (!scheduler) return api::error_response(scheduler.error());
    auto stmt = api.db().db().prepare(
        "SELECT COUNT(*), TOTAL(r.num_cpus), TOTAL(r.num_gpus), TOTAL(r.memory_bytes), "
        "COALESCE(MAX(r.num_nodes), 0), COALESCE(MAX(r.runtime_s), 0) FROM job j "
        "LEFT JOIN resource_requirements r ON r.id = j.resource_requirements_id "
        "WHERE j.workflow_id = ? AND j.status = ?" +
        std::string(*scheduler ? " AND j.scheduler_id = ?" : ""));
    if (!stmt) return api::error_response(detail::to_api_error(stmt.error(), what));
    stmt->bind(1, wf).bind(2, std::int64_t{core::to_int(job_status::ready)});
    if (*scheduler) stmt->bind(3, std::get<std::int64_t>(**scheduler));
    auto row = stmt->step();
    if (!row) return api::error_response(detail::to_api_error(row.error(), what));
    boost::json::object out;
    out["num_jobs"] = stmt->int64(0);
    out["num_cpus"] = static_cast<std::int64_t>(stmt->real(1));
    out["num_gpus"] = static_cast<std::int64_t>(stmt->real(2));
    out["memory_gb"] = stmt->real(3) / 1073741824.0;
    out["max_num_nodes"] = stmt->int64(4);
    out["max_runtime"] = core::format_duration(static_cast<double>(stmt->int64(5)));
    return api::json_response(200, boost::json::serialize(out));
}

// GET required_existing_files, as Torc's server answers it (Torc's clients check these paths
// before initialize): the files some job of the workflow reads that no job writes, and the files
// its completed jobs wrote; ids ascending, each once. Torc 0.10's server and clients send the ids
// as integers, where the contract document says strings.
api::response required_existing_files(server_api& api, request const&, std::int64_t wf)
{
    constexpr std::string_view what = "required_existing_files";
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto stmt = api.db().db().prepare(
        "SELECT i.file_id FROM job_input_file i JOIN job j ON j.id = i.job_id "
        "WHERE j.workflow_id = ?1 "
        "AND NOT EXISTS (SELECT 1 FROM job_output_file o WHERE o.file_id = i.file_id) "
        "UNION SELECT o.file_id FROM job_output_file o JOIN job j ON j.id = o.job_id "
        "WHERE j.workflow_id = ?1 AND j.status = ?2 ORDER BY 1");
    if (!stmt) return api::error_response(detail::to_api_error(stmt.error(), what));
    stmt->bind(1, wf).bind(2, std::int64_t{core::to_int(job_status::completed)});
    boost::json::array files;
    while (true) {
        auto row = stmt->step();
        if (!row) return api::error_response(detail::to_api_error(row.error(), what));
        if (!*row) break;
        files.push_back(stmt->int64(0));
    }
    return api::json_response(200, boost::json::serialize(boost::json::object{{"files", files}}));
}

}  // namespace

void add_workflow_state_routes(server_api& api)
{
    using handler = api::response (*)(server_api&, request const&, std::int64_t);
    struct route {
        char const* method;
        char const* pattern;
        handler run;
    };
    static constexpr route routes[] = {
        {"GET", "/workflows/{id}/is_complete",
         [](server_api& a, request const&, std::int64_t wf) { return is_complete(a, wf); }},
        {"GET", "/workflows/{id}/is_uninitialized",
         [](server_api& a, request const&, std::int64_t wf) { return is_uninitialized(a, wf); }},
        {"GET", "/workflows/{id}/status",
         [](server_api& a, request const&, std::int64_t wf) { return workflow_status(a, wf); }},
        {"PUT", "/workflows/{id}/status",
         [](server_api& a, request const& req, std::int64_t wf) {
             constexpr std::string_view what = "workflow_status";
             auto fields = api::decode_body(api::workflow_status_model, req.body,
                                            api::decode_mode::update, what);
             if (!fields) return api::error_response(fields.error());
             auto row = a.db().update(api::workflow_status_model, wf, *fields, what);
             if (row) a.notify(wf);  // canceled or not, parked claims look again
             return detail::reply(row, api::workflow_status_model);
         }},
        {"PUT", "/workflows/{id}/cancel", cancel},
        {"POST", "/workflows/{id}/reset_status", reset_status},
        {"POST", "/workflows/{id}/reset_job_status", reset_job_status},
        {"GET", "/workflows/{id}/ready_job_requirements", ready_job_requirements},
        {"GET", "/workflows/{id}/required_existing_files", required_existing_files},
    };
    for (auto const& r : routes) {
        api.add_route(r.method, r.pattern, api::access::workflow_in_path(),
                      [&api, run = r.run](request const& req, path_params const& p) {
                          return api::outcome{run(api, req, p.id("id"))};
                      });
    }
}

}  // namespace torcrun::io
