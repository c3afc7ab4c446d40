// POST /workflows/{id}/initialize_jobs: the edges implied by files and user data
// (core::implied_edges, added to job_depends_on), then core::initialize_jobs over every job and
// edge of the workflow, ephemeral user data cleared, and the workflow's actions re-armed with
// trigger counts that match the new job statuses. Torc never checks implied edges for cycles;
// neither does this: jobs on a cycle stay blocked, as there.
//
// Also 0.23's asynchronous form (async=true: 202 and a task record) and its task endpoints,
// GET /tasks/{id} and GET /workflows/{id}/active_task.
#include "dataset_gate.hpp"
#include "ro_crate_records.hpp"
#include "lifecycle_detail.hpp"

#include <boost/json/parse.hpp>

#include <chrono>
#include <unordered_map>

namespace torcrun::io {
namespace {

using api::request;
using core::job_status;
using detail::job_changes;

using pair_list = std::vector<std::pair<std::int64_t, std::int64_t>>;

api_result<pair_list> read_pairs(store& db, std::string const& sql, std::int64_t wf,
                                 std::string_view what)
{
    pair_list out;
    auto stmt = db.db().cached(sql);
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return detail::to_api_error(row.error(), what);
        if (!*row) break;
        out.emplace_back((*stmt)->int64(0), (*stmt)->int64(1));
    }
    return out;
}

// The workflow's rows of a link table (job_id, other id).
api_result<std::vector<core::data_link>> links(store& db, std::string_view table,
                                               std::string_view column, std::int64_t wf,
                                               std::string_view what)
{
    auto rows =
        read_pairs(db,
                   "SELECT l.job_id, l." + std::string(column) + " FROM " + std::string(table) +
                       " l JOIN job j ON j.id = l.job_id WHERE j.workflow_id = ?",
                   wf, what);
    if (!rows) return rows.error();
    std::vector<core::data_link> out;
    for (auto [job, data] : *rows) out.push_back({job, data});
    return out;
}

api_result<std::vector<core::dependency_edge>> edges(store& db, std::int64_t wf,
                                                     std::string_view what)
{
    auto rows = read_pairs(db,
                           "SELECT d.job_id, d.depends_on_job_id FROM job_depends_on d JOIN job j "
                           "ON j.id = d.job_id WHERE j.workflow_id = ?",
                           wf, what);
    if (!rows) return rows.error();
    std::vector<core::dependency_edge> out;
    for (auto [job, blocker] : *rows) out.push_back({job, blocker});
    return out;
}

// Adds the implied edges to the table and to `existing` (the workflow's edges, read once by the
// caller); returns how many were new.
api_result<std::size_t> add_implied_edges(store& db, std::int64_t wf,
                                          std::vector<core::dependency_edge>& existing,
                                          std::string_view what)
{
    auto file_in = links(db, "job_input_file", "file_id", wf, what);
    auto file_out = links(db, "job_output_file", "file_id", wf, what);
    auto data_in = links(db, "job_input_user_data", "user_data_id", wf, what);
    auto data_out = links(db, "job_output_user_data", "user_data_id", wf, what);
    // Datasets: a consumer waits for every producer (and, beyond the edges, for the hash).
    auto set_in = links(db, "job_dataset_input", "dataset_id", wf, what);
    auto set_out = links(db, "job_dataset_output", "dataset_id", wf, what);
    for (auto const* r : {&file_in, &file_out, &data_in, &data_out, &set_in, &set_out}) {
        if (!*r) return r->error();
    }
    auto added = core::implied_edges(*file_in, *file_out, existing);
    existing.insert(existing.end(), added.begin(), added.end());
    auto more = core::implied_edges(*data_in, *data_out, existing);
    existing.insert(existing.end(), more.begin(), more.end());
    added.insert(added.end(), more.begin(), more.end());
    auto by_sets = core::implied_edges(*set_in, *set_out, existing);
    existing.insert(existing.end(), by_sets.begin(), by_sets.end());
    added.insert(added.end(), by_sets.begin(), by_sets.end());
    auto stmt = db.db().cached(
        "INSERT OR IGNORE INTO job_depends_on (job_id, depends_on_job_id) VALUES (?, ?)");
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    for (auto const& e : added) {
        (*stmt)->reset();
        (*stmt)->bind(1, e.job_id).bind(2, e.depends_on_job_id);
        if (auto done = (*stmt)->run(); !done) return detail::to_api_error(done.error(), what);
    }
    return added.size();
}

api_result<std::vector<core::job_node>> jobs(store& db, std::int64_t wf, std::string_view what)
{
    std::vector<core::job_node> out;
    auto stmt = db.db().cached("SELECT id, status, cancel_on_blocking_job_failure FROM "
                               "job WHERE workflow_id = ?");
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return detail::to_api_error(row.error(), what);
        if (!*row) break;
        out.push_back({(*stmt)->int64(0), job_status{static_cast<int>((*stmt)->int64(1))},
                       (*stmt)->int64(2) != 0});
    }
    return out;
}

// Jobs initialize_jobs would make ready that read an unfinalized dataset stay (or become)
// blocked instead; the finalizer releases them (dataset_gate.hpp).
api_result<void> hold_dataset_consumers(store& db, std::vector<core::status_update>& updates,
                                        std::string_view what)
{
    std::vector<std::int64_t> ready;
    for (auto const& u : updates)
        if (u.to == job_status::ready) ready.push_back(u.job_id);
    auto held = detail::held_by_datasets(db, ready, what);
    if (!held) return held.error();
    if (held->empty()) return {};
    for (auto& u : updates)
        if (std::find(held->begin(), held->end(), u.job_id) != held->end())
            u.to = job_status::blocked;
    std::erase_if(updates, [](core::status_update const& u) { return u.from == u.to; });
    return {};
}

bool job_gated(std::string_view trigger)
{
    return trigger == "on_jobs_ready" || trigger == "on_jobs_complete";
}

// An action after initialization: its trigger count, and whether it keeps its executed flags.
struct rearmed {
    std::int64_t trigger_count = 0;
    bool keep_executed = false;
};

// Torc's reset_actions_for_reinitialize: workflow- and worker-start actions become pending,
// job-gated ones count the jobs already in their state (ready or finished for on_jobs_ready,
// finished for on_jobs_complete), on_workflow_complete waits. A full initialization re-arms every
// action; a partial one (only_uninitialized) keeps on_workflow_start executed, and job-gated
// actions whose jobs all finished and will not run again.
rearmed rearm(std::string const& trigger, std::optional<std::string> const& job_ids,
              std::int64_t required, std::int64_t count, bool partial,
              std::unordered_map<std::int64_t, job_status> const& status)
{
    if (trigger == "on_workflow_start" || trigger == "on_worker_start" ||
        trigger == "on_worker_complete") {
        return {required, partial && trigger == "on_workflow_start"};
    }
    if (trigger == "on_workflow_complete") return {0, false};
    if (!job_gated(trigger)) return {count, false};  // unknown triggers are stored as given
    boost::json::array ids;
    if (job_ids) {
        boost::system::error_code ec;
        auto parsed = boost::json::parse(*job_ids, ec);
        if (!ec && parsed.is_array()) ids = std::move(parsed.get_array());
    }
    std::int64_t satisfied = 0, finished = 0, listed = 0;
    for (auto const& v : ids) {
        if (!v.is_int64()) continue;
        auto const it = status.find(v.get_int64());
        auto const s = it == status.end() ? job_status::uninitialized : it->second;
        bool const done = core::satisfies_dependency(s);
        ++listed;
        finished += done ? 1 : 0;
        satisfied += (done || (trigger == "on_jobs_ready" && s == job_status::ready)) ? 1 : 0;
    }
    return {satisfied, partial && listed > 0 && finished == listed};
}

api_result<void> reset_actions(store& db, std::int64_t wf, bool partial,
                               std::unordered_map<std::int64_t, job_status> const& status,
                               std::string_view what)
{
    auto select = db.db().prepare("SELECT id, trigger_type, job_ids, required_triggers, "
                                  "trigger_count FROM workflow_action WHERE workflow_id = ?");
    if (!select) return detail::to_api_error(select.error(), what);
    select->bind(1, wf);
    // The three ? after trigger_count say whether to keep the executed flags.
    auto update = db.db().cached("UPDATE workflow_action SET trigger_count = ?, "
                                 "executed = CASE WHEN ? THEN executed ELSE 0 END, "
                                 "executed_at = CASE WHEN ? THEN executed_at END, "
                                 "executed_by = CASE WHEN ? THEN executed_by END WHERE id = ?");
    if (!update) return detail::to_api_error(update.error(), what);
    while (true) {
        auto row = select->step();
        if (!row) return detail::to_api_error(row.error(), what);
        if (!*row) break;
        std::optional<std::string> job_ids;
        if (!select->is_null(2)) job_ids = select->text(2);
        auto const r =
            rearm(select->text(1), job_ids, select->int64(3), select->int64(4), partial, status);
        auto const keep = std::int64_t{r.keep_executed};
        (*update)->reset();
        (*update)->bind(1, r.trigger_count).bind(2, keep).bind(3, keep).bind(4, keep);
        (*update)->bind(5, select->int64(0));
        if (auto done = (*update)->run(); !done) return detail::to_api_error(done.error(), what);
    }
    return {};
}

// initialize_jobs?async=true (0.23): the initialization runs in this request as any other, and
// the answer is 202 with the task that did it, recorded as succeeded; GET /tasks/{id} reads it
// back. A failed initialization is answered as the synchronous one is (and records nothing), so
// a task is never left queued or running: sent twice, each request initializes and records its
// own finished task.
api::response task_reply(server_api& api, std::int64_t wf, std::string_view what)
{
    auto const now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         api.options().clock().time_since_epoch())
                         .count();
    api::record task;
    task.set("workflow_id", wf);
    task.set("operation", std::string("initialize_jobs"));
    task.set("status", std::string("succeeded"));
    task.set("created_at_ms", std::int64_t{now});
    task.set("started_at_ms", std::int64_t{now});
    task.set("finished_at_ms", std::int64_t{now});
    auto row = api.db().insert(api::task_model, task, what);
    if (!row) return api::error_response(row.error());
    return api::json_response(202, api::encode(api::task_model, *row));
}

api::response initialize(server_api& api, request const& req, std::int64_t wf)
{
    job_changes changes(api, "initialize_jobs");
    auto const& what = changes.source();
    if (auto ok = api::check_optional_body(req.body, what); !ok)
        return api::error_response(ok.error());
    auto partial = detail::flag_param(req, "only_uninitialized", false, what);
    if (!partial) return api::error_response(partial.error());
    auto clear = detail::flag_param(req, "clear_ephemeral_user_data", true, what);
    if (!clear) return api::error_response(clear.error());
    auto async = detail::flag_param(req, "async", false, what);
    if (!async) return api::error_response(async.error());
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto all_edges = edges(api.db(), wf, what);
    if (!all_edges) return api::error_response(all_edges.error());
    auto added = add_implied_edges(api.db(), wf, *all_edges, what);
    if (!added) return api::error_response(added.error());
    auto nodes = jobs(api.db(), wf, what);
    if (!nodes) return api::error_response(nodes.error());

    auto updates = core::initialize_jobs(*nodes, *all_edges, *partial);
    if (auto ok = hold_dataset_consumers(api.db(), updates, what); !ok)
        return api::error_response(ok.error());
    std::unordered_map<std::int64_t, job_status> status;
    for (auto const& n : *nodes) status[n.id] = n.status;
    std::vector<std::int64_t> ready, rerun;
    for (auto const& u : updates) {
        if (auto ok = changes.set_status(wf, u.job_id, u.from, u.to); !ok)
            return api::error_response(ok.error());
        status[u.job_id] = u.to;
        if (u.to == job_status::ready) ready.push_back(u.job_id);
        if (!core::satisfies_dependency(u.to)) rerun.push_back(u.job_id);
    }
    auto done = changes.drop_current_results(rerun);
    if (done && *clear) {
        auto cleared = detail::scalar(api.db().db(),
                                      "UPDATE user_data SET data = NULL WHERE "
                                      "workflow_id = ? AND is_ephemeral = 1",
                                      {wf}, what);
        if (!cleared) done = api_result<void>(cleared.error());
    }
    if (done) done = reset_actions(api.db(), wf, *partial, status, what);
    if (done) done = detail::settle_datasets(changes, wf);
    if (done) done = detail::record_input_files(api.db(), wf, what);
    if (done) done = changes.check_workflow_complete(wf);
    if (!done) return api::error_response(done.error());
    api.notify(wf);
    if (*async) return task_reply(api, wf, what);
    return api::json_response(200, "{\"workflow_id\":" + std::to_string(wf) +
                                       ",\"implied_edges_added\":" + std::to_string(*added) +
                                       ",\"updated_count\":" + std::to_string(updates.size()) +
                                       ",\"ready_count\":" + std::to_string(ready.size()) + "}");
}

// GET /workflows/{id}/active_task: the workflow's newest task still queued or running, as
// {"task": TaskModel}, or {"task": null} (0.23's answer when none is).
api::response active_task(server_api& api, std::int64_t wf)
{
    constexpr std::string_view what = "active_task";
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto id = detail::scalar(api.db().db(),
                             "SELECT MAX(id) FROM task WHERE workflow_id = ? AND status IN "
                             "('queued', 'running')",
                             {wf}, what);
    if (!id) return api::error_response(id.error());
    if (!*id || !std::holds_alternative<std::int64_t>(**id))
        return api::json_response(200, R"({"task":null})");
    auto row = api.db().get(api::task_model, std::get<std::int64_t>(**id), what);
    if (!row) return api::error_response(row.error());
    return api::json_response(200, "{\"task\":" + api::encode(api::task_model, *row) + "}");
}

}  // namespace

void add_initialize_routes(server_api& api)
{
    api.add_route("POST", "/workflows/{id}/initialize_jobs", api::access::workflow_in_path(),
                  [&api](request const& req, api::path_params const& p) {
                      return initialize(api, req, p.id("id"));
                  });
    api.add_route("GET", "/tasks/{id}", api::access::record_in_path("task"),
                  [&api](request const&, api::path_params const& p) {
                      return detail::reply(api.db().get(api::task_model, p.id("id"), "tasks"),
                                           api::task_model);
                  });
    api.add_route("GET", "/workflows/{id}/active_task", api::access::workflow_in_path(),
                  [&api](request const&, api::path_params const& p) {
                      return active_task(api, p.id("id"));
                  });
}

}  // namespace torcrun::io
