// POST /jobs/{id}/spawn_jobs (newer Torc's dynamic jobs; the decisions are core's, spawn_jobs.hpp).
// The route reads the caller, the workflow's run and cap, the jobs whose names the batch uses and
// the lineage's generation records, lets core::plan_spawn decide, and writes the new jobs
// (blocked, origin "spawn", spawned_by_job_id the caller, TORC_ORCHESTRATOR_LINEAGE_ID in their
// env), their edges and the lineage's record. server_api runs every request in one transaction
// and rolls it back on any error answer, so a refused batch leaves nothing behind.
#include "server_routes.hpp"
#include "store_detail.hpp"
#include "torcrun/server/io/job_lifecycle.hpp"
#include "torcrun/server/spawn_jobs.hpp"

#include <algorithm>
#include <vector>

namespace torcrun::io {
namespace {

using api::api_error;
using detail::to_api_error;

constexpr std::string_view what = "spawn_jobs";

struct caller_row {
    core::spawn_caller caller;
    std::int64_t workflow_id = 0;
    std::optional<std::string> dynamic_jobs;
};

api_result<std::optional<caller_row>> read_caller(sqlite::connection& db, std::int64_t job_id)
{
    auto stmt = db.cached(
        "SELECT j.workflow_id, j.name, j.status, j.attempt_id, s.run_id, w.dynamic_jobs "
        "FROM job j JOIN workflow w ON w.id = j.workflow_id "
        "JOIN workflow_status s ON s.id = j.workflow_id WHERE j.id = ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, job_id);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), what);
    std::optional<caller_row> out;
    if (*row) {
        auto& s = **stmt;
        auto status = core::job_status_from_int(s.int64(2));
        out = caller_row{{job_id, s.text(1), status ? *status : core::job_status::uninitialized,
                          s.int64(3), s.int64(4)},
                         s.int64(0),
                         s.is_null(5) ? std::nullopt : std::optional<std::string>(s.text(5))};
    }
    (*stmt)->reset();
    return out;
}

// The workflow's jobs named `name` (a new job's name or a dependency's).
api_result<void> read_named(sqlite::connection& db, std::int64_t wf, std::string const& name,
                            std::vector<core::job_of_name>& out)
{
    auto stmt = db.cached("SELECT id, spawned_by_job_id FROM job WHERE workflow_id = ? AND name = ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, name);
    for (;;) {
        auto row = (*stmt)->step();
        if (!row) {
            (*stmt)->reset();
            return to_api_error(row.error(), what);
        }
        if (!*row) break;
        core::job_of_name job{(*stmt)->int64(0), name, std::nullopt};
        if (!(*stmt)->is_null(1)) job.spawned_by = (*stmt)->int64(1);
        out.push_back(std::move(job));
    }
    (*stmt)->reset();
    return {};
}

// The lineage's highest generation record (0: none yet).
api_result<std::int64_t> spawn_count(sqlite::connection& db, std::int64_t wf,
                                     std::string const& lineage)
{
    // `_` and `%` are LIKE wildcards: escaped, so the prefix matches only itself.
    std::string pattern;
    for (char c : core::lineage_generation_name(lineage, 0).substr(
             0, core::lineage_generation_name(lineage, 0).size() - 6)) {
        if (c == '_' || c == '%' || c == '\\') pattern += '\\';
        pattern += c;
    }
    pattern += '%';
    auto stmt = db.cached(
        "SELECT name FROM user_data WHERE workflow_id = ? AND name LIKE ? ESCAPE '\\'");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, pattern);
    std::int64_t highest = 0;
    for (;;) {
        auto row = (*stmt)->step();
        if (!row) {
            (*stmt)->reset();
            return to_api_error(row.error(), what);
        }
        if (!*row) break;
        if (auto g = core::lineage_generation_of((*stmt)->text(0), lineage))
            highest = std::max(highest, *g);
    }
    (*stmt)->reset();
    return highest;
}

// A job's resource requirements by name; absent: the workflow's `default`, else none.
api_result<std::optional<std::int64_t>> requirements_id(sqlite::connection& db, std::int64_t wf,
                                                        core::spawn_job_request const& job)
{
    auto stmt = db.cached(
        "SELECT id FROM resource_requirements WHERE workflow_id = ? AND name = ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, job.resource_requirements.value_or("default"));
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), what);
    std::optional<std::int64_t> id;
    if (*row) id = (*stmt)->int64(0);
    (*stmt)->reset();
    if (!id && job.resource_requirements)
        return api::unprocessable(std::string(what) + ": unknown resource_requirements " +
                                  api::json_quote(*job.resource_requirements) + " for spawn job " +
                                  api::json_quote(job.name) +
                                  " (name one the workflow declares)");
    return id;
}

api_result<void> run(sqlite::result<sqlite::statement*> stmt)
{
    if (!stmt) return to_api_error(stmt.error(), what);
    auto done = (*stmt)->run();
    (*stmt)->reset();
    if (!done) return to_api_error(done.error(), what);
    return {};
}

api_result<std::vector<std::int64_t>> insert_jobs(sqlite::connection& db, caller_row const& c,
                                                  core::spawn_request const& request,
                                                  core::spawn_plan const& plan)
{
    std::vector<std::optional<std::int64_t>> rr_ids;
    for (auto const& job : request.jobs) {
        auto id = requirements_id(db, c.workflow_id, job);
        if (!id) return id.error();
        rr_ids.push_back(*id);
    }
    auto const env = "{\"TORC_ORCHESTRATOR_LINEAGE_ID\":" + api::json_quote(plan.lineage) + "}";
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < request.jobs.size(); ++i) {
        auto const& job = request.jobs[i];
        auto stmt = db.cached(
            "INSERT INTO job (workflow_id, name, command, status, cancel_on_blocking_job_failure, "
            "resource_requirements_id, priority, env, origin, spawned_by_job_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'spawn', ?)");
        if (!stmt) return to_api_error(stmt.error(), what);
        auto& s = **stmt;
        s.bind(1, c.workflow_id).bind(2, job.name).bind(3, job.command);
        s.bind(4, std::int64_t{core::to_int(core::job_status::blocked)});
        s.bind(5, std::int64_t{job.cancel_on_blocking_job_failure ? 1 : 0});
        if (rr_ids[i])
            s.bind(6, *rr_ids[i]);
        else
            s.bind_null(6);
        s.bind(7, job.priority).bind(8, env).bind(9, c.caller.id);
        if (auto ok = run(stmt); !ok) return ok.error();
        ids.push_back(db.last_insert_rowid());
    }
    for (std::size_t i = 0; i < ids.size(); ++i) {
        for (auto const& edge : plan.edges[i]) {
            auto stmt = db.cached(
                "INSERT OR IGNORE INTO job_depends_on (job_id, depends_on_job_id) VALUES (?, ?)");
            if (!stmt) return to_api_error(stmt.error(), what);
            (*stmt)->bind(1, ids[i]).bind(2, edge.existing_id ? *edge.existing_id
                                                              : ids[edge.sibling]);
            if (auto ok = run(stmt); !ok) return ok.error();
        }
    }
    return ids;
}

// Appends the generation record, or writes (replaces) the final one; Torc's records are
// ephemeral user data.
api_result<void> write_record(sqlite::connection& db, std::int64_t wf, std::string const& name,
                              std::string const& data, bool replace)
{
    if (replace) {
        auto gone = db.cached("DELETE FROM user_data WHERE workflow_id = ? AND name = ?");
        if (!gone) return to_api_error(gone.error(), what);
        (*gone)->bind(1, wf).bind(2, name);
        if (auto ok = run(gone); !ok) return ok;
    }
    auto stmt = db.cached(
        "INSERT INTO user_data (workflow_id, name, is_ephemeral, data) VALUES (?, ?, 1, ?)");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, name).bind(3, data);
    return run(stmt);
}

api::response spawn_jobs(server_api& api, api::request const& req, api::path_params const& p)
{
    auto& db = api.db().db();
    auto const job_id = p.id("id");
    auto request = core::decode_spawn_request(req.body, what);
    if (!request) return api::error_response(request.error());
    core::spawn_fence fence;
    for (auto [name, slot] : {std::pair{"attempt_id", &fence.attempt_id},
                              std::pair{"run_id", &fence.run_id}}) {
        auto value = api::query_value(req, {name}, what);
        if (!value) return api::error_response(value.error());
        if (*value) *slot = std::get<std::int64_t>(**value);
    }
    auto caller = read_caller(db, job_id);
    if (!caller) return api::error_response(caller.error());
    if (!*caller)
        return api::error_response(
            api::not_found(std::string(what) + ": job " + std::to_string(job_id) + " not found"));
    auto const& c = **caller;
    if (auto refused = core::check_spawn_caller(c.caller, fence, what))
        return api::error_response(*refused);

    std::vector<core::job_of_name> existing;
    std::vector<std::string> names;
    for (auto const& job : request->jobs) {
        names.push_back(job.name);
        names.insert(names.end(), job.depends_on.begin(), job.depends_on.end());
    }
    std::ranges::sort(names);
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (auto const& name : names) {
        if (auto ok = read_named(db, c.workflow_id, name, existing); !ok)
            return api::error_response(ok.error());
    }
    auto const lineage = request->lineage.value_or(c.caller.name);
    auto count = spawn_count(db, c.workflow_id, lineage);
    if (!count) return api::error_response(count.error());
    auto plan = core::plan_spawn(c.caller, *request, existing, *count,
                                 core::max_spawn_iterations(c.dynamic_jobs), what);
    if (!plan) return api::error_response(plan.error());

    std::vector<std::int64_t> ids = plan->replay_ids;
    if (plan->append_generation) {
        auto inserted = insert_jobs(db, c, *request, *plan);
        if (!inserted) return api::error_response(inserted.error());
        ids = std::move(*inserted);
        auto ok = write_record(db, c.workflow_id,
                               core::lineage_generation_name(plan->lineage, plan->iteration),
                               core::lineage_record_data(plan->iteration, request->state, false),
                               false);
        if (!ok) return api::error_response(ok.error());
    } else if (plan->write_final) {
        auto ok = write_record(db, c.workflow_id, core::lineage_final_name(plan->lineage),
                               core::lineage_record_data(plan->iteration, request->state, true),
                               true);
        if (!ok) return api::error_response(ok.error());
    }
    return api::json_response(200, core::spawn_response_body(ids, plan->iteration));
}

}  // namespace

void add_spawn_routes(server_api& api)
{
    api.add_route("POST", "/jobs/{id}/spawn_jobs", api::access::record_in_path("job"),
                  [&api](api::request const& req, api::path_params const& p) {
                      return spawn_jobs(api, req, p);
                  });
}

}  // namespace torcrun::io
