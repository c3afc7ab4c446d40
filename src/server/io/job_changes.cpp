// Job status writes and their consequences inside the request transaction. Dependents are resolved
// by core::resolve_completions over a dependency_view that reads job_depends_on with its two
// indexes, so a completion touches only its neighbourhood, never the whole workflow.
#include "lifecycle_detail.hpp"
#include "ready_jobs.hpp"

#include "dataset_gate.hpp"
#include "ro_crate_records.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <chrono>

namespace torcrun::io::detail {
namespace {

job_status status_of(std::int64_t code) { return static_cast<job_status>(code); }

std::string event_data(std::int64_t job_id, job_status from, job_status to,
                       std::string const& source)
{
    return R"({"category":"job","type":"status_change","job_id":)" + std::to_string(job_id) +
           R"(,"from":")" + std::string(core::to_string(from)) + R"(","to":")" +
           std::string(core::to_string(to)) + R"(","source":")" + source + "\"}";
}

// An action's job_ids as stored (JSON text or NULL), counted against `ids`.
std::int64_t overlap(api::cell const& stored, std::span<std::int64_t const> ids)
{
    auto const* text = std::get_if<std::string>(&stored);
    if (text == nullptr) return 0;
    boost::system::error_code ec;
    auto const parsed = boost::json::parse(*text, ec);
    if (ec || !parsed.is_array()) return 0;
    std::int64_t n = 0;
    for (auto const& v : parsed.get_array()) {
        if (v.is_int64() && std::find(ids.begin(), ids.end(), v.get_int64()) != ids.end()) ++n;
    }
    return n;
}

}  // namespace

api::api_error refused(core::rejection const& r)
{
    return {static_cast<unsigned>(r.http_status), r.message};
}

std::vector<core::job_node> store_view::dependents_of(std::int64_t job_id)
{
    return read("SELECT j.id, j.status, j.cancel_on_blocking_job_failure FROM "
                "job_depends_on d "
                "JOIN job j ON j.id = d.job_id WHERE d.depends_on_job_id = ?",
                job_id);
}

std::vector<core::job_node> store_view::blockers_of(std::int64_t job_id)
{
    return read("SELECT j.id, j.status, j.cancel_on_blocking_job_failure FROM "
                "job_depends_on d "
                "JOIN job j ON j.id = d.depends_on_job_id WHERE d.job_id = ?",
                job_id);
}

std::vector<core::job_node> store_view::read(std::string const& sql, std::int64_t id)
{
    std::vector<core::job_node> out;
    auto stmt = db_.cached(sql);
    if (!stmt) {
        if (!failure_) failure_ = stmt.error();
        return {};
    }
    (*stmt)->bind(1, id);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) {
            if (!failure_) failure_ = row.error();
            return {};
        }
        if (!*row) break;
        out.push_back({(*stmt)->int64(0), status_of((*stmt)->int64(1)), (*stmt)->int64(2) != 0});
    }
    return out;
}

job_changes::job_changes(server_api& api, std::string_view source)
    : job_changes(api, source, api.options().clock())
{
}

job_changes::job_changes(server_api& api, std::string_view source,
                         std::chrono::system_clock::time_point now)
    : api_(api), source_(source),
      now_ms_(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count())
{
}

api_result<std::optional<core::job_state>> job_changes::job_state(std::int64_t job_id)
{
    auto stmt = db().db().cached(
        "SELECT workflow_id, status, attempt_id, active_compute_node_id FROM job WHERE id = ?");
    if (!stmt) return to_api_error(stmt.error(), source_);
    (*stmt)->bind(1, job_id);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), source_);
    std::optional<core::job_state> out;
    if (*row) {
        out = core::job_state{job_id, (*stmt)->int64(0), status_of((*stmt)->int64(1)),
                              (*stmt)->int64(2), std::nullopt};
        if (!(*stmt)->is_null(3)) out->holder = (*stmt)->int64(3);
    }
    (*stmt)->reset();
    return out;
}

api_result<std::optional<core::kept_result>> job_changes::kept_result(std::int64_t job_id)
{
    auto stmt = db().db().cached(
        "SELECT r.compute_node_id, r.attempt_id, r.run_id, r.status FROM workflow_result w "
        "JOIN result r ON r.id = w.result_id WHERE w.job_id = ?");
    if (!stmt) return to_api_error(stmt.error(), source_);
    (*stmt)->bind(1, job_id);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), source_);
    std::optional<core::kept_result> out;
    if (*row) {
        out = core::kept_result{(*stmt)->int64(0), (*stmt)->int64(1), (*stmt)->int64(2),
                                status_of((*stmt)->int64(3))};
    }
    (*stmt)->reset();
    return out;
}

api_result<std::optional<core::applied_retry>> job_changes::applied_retry(std::int64_t job_id,
                                                                          std::int64_t attempt)
{
    auto stmt = db().db().cached(
        "SELECT compute_node_id, run_id FROM job_retry WHERE job_id = ? AND attempt_id = ?");
    if (!stmt) return to_api_error(stmt.error(), source_);
    (*stmt)->bind(1, job_id);
    (*stmt)->bind(2, attempt);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), source_);
    std::optional<core::applied_retry> out;
    if (*row) out = core::applied_retry{(*stmt)->int64(0), attempt, (*stmt)->int64(1)};
    (*stmt)->reset();
    return out;
}

api_result<void> job_changes::note_retry(std::int64_t job_id, core::applied_retry const& retried)
{
    auto noted = scalar(db().db(),
                        "INSERT OR REPLACE INTO job_retry (job_id, attempt_id, run_id, "
                        "compute_node_id) VALUES (?, ?, ?, ?)",
                        {job_id, retried.attempt_id, retried.run_id, retried.compute_node_id},
                        source_);
    if (!noted) return noted.error();
    return {};
}

api_result<core::workflow_flags> job_changes::flags(std::int64_t workflow_id)
{
    if (auto ok = db().require_workflow(workflow_id, source_); !ok) return ok.error();
    auto stmt = db().db().cached("SELECT run_id, is_canceled, is_archived, "
                                 "has_detected_need_to_run_completion_script "
                                 "FROM workflow_status WHERE id = ?");
    if (!stmt) return to_api_error(stmt.error(), source_);
    (*stmt)->bind(1, workflow_id);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), source_);
    if (!*row) {
        return api::internal_error(source_ + ": workflow " + std::to_string(workflow_id) +
                                   " has no status row");
    }
    core::workflow_flags out{(*stmt)->int64(0), (*stmt)->int64(1) != 0, (*stmt)->int64(2) != 0,
                             (*stmt)->int64(3) != 0};
    (*stmt)->reset();
    return out;
}

api_result<core::status_counts> job_changes::counts(std::int64_t workflow_id)
{
    auto stmt =
        db().db().cached("SELECT status, COUNT(*) FROM job WHERE workflow_id = ? GROUP BY status");
    if (!stmt) return to_api_error(stmt.error(), source_);
    (*stmt)->bind(1, workflow_id);
    core::status_counts out;
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), source_);
        if (!*row) break;
        auto const code = (*stmt)->int64(0);
        if (code >= 0 && code < static_cast<std::int64_t>(core::job_status_count))
            out[status_of(code)] = (*stmt)->int64(1);
    }
    return out;
}

api_result<bool> job_changes::has_unfinished_jobs(std::int64_t workflow_id)
{
    // A ready job is unfinished: the ready index answers without reading the job table for as
    // long as the workflow has one, which is most of a run.
    auto index = db().ready_jobs().current(source_);
    if (!index) return index.error();
    if (*index != nullptr && (*index)->has_jobs(workflow_id)) return true;
    // The statuses that do not count as complete (core::counts_as_complete), one index seek each.
    static std::string const sql = [] {
        std::string in;
        for (auto s : core::all_job_statuses) {
            if (core::counts_as_complete(s)) continue;
            in += (in.empty() ? "" : ", ") + std::to_string(core::to_int(s));
        }
        return "SELECT 1 FROM job WHERE workflow_id = ? AND status IN (" + in + ") LIMIT 1";
    }();
    auto row = scalar(db().db(), sql, {workflow_id}, source_);
    if (!row) return row.error();
    return row->has_value();
}

api_result<void> job_changes::set_status(std::int64_t workflow_id, std::int64_t job_id,
                                         job_status from, job_status to,
                                         std::optional<std::int64_t> node)
{
    auto& db = this->db().db();
    auto update = db.cached("UPDATE job SET status = ?, active_compute_node_id = ? WHERE id = ?");
    if (!update) return to_api_error(update.error(), source_);
    (*update)->bind(1, std::int64_t{core::to_int(to)});
    if (node) {
        (*update)->bind(2, *node);
    } else {
        (*update)->bind_null(2);
    }
    (*update)->bind(3, job_id);
    if (auto done = (*update)->run(); !done) return to_api_error(done.error(), source_);
    if (auto noted = this->db().ready_jobs().note_status(job_id, to, source_); !noted)
        return noted.error();
    auto event = db.cached("INSERT INTO event (workflow_id, timestamp, data) VALUES (?, ?, ?)");
    if (!event) return to_api_error(event.error(), source_);
    (*event)->bind(1, workflow_id).bind(2, now_ms_);
    (*event)->bind(3, std::string_view(event_data(job_id, from, to, source_)));
    if (auto done = (*event)->run(); !done) return to_api_error(done.error(), source_);
    return {};
}

api_result<void> job_changes::record_result(api::record const& result, bool references_checked)
{
    // The row is not read back: its job and workflow are the ones sent (NOT NULL columns, so the
    // insert fails without them), read back only when they came as other than integers.
    auto row = db().insert_row(api::result_model, result, source_, std::nullopt,
                               references_checked);
    if (!row) return row.error();
    auto job = result.int64("job_id");
    auto workflow = result.int64("workflow_id");
    if (!job || !workflow) {
        auto stored = db().get(api::result_model, *row, source_);
        if (!stored) return stored.error();
        job = stored->int64("job_id");
        workflow = stored->int64("workflow_id");
    }
    auto link = db().db().cached(
        "INSERT INTO workflow_result (job_id, workflow_id, result_id) VALUES (?, ?, ?) "
        "ON CONFLICT (job_id) DO UPDATE SET result_id = excluded.result_id");
    if (!link) return to_api_error(link.error(), source_);
    (*link)->bind(1, job.value_or(0)).bind(2, workflow.value_or(0)).bind(3, *row);
    if (auto done = (*link)->run(); !done) return to_api_error(done.error(), source_);
    return {};
}

api_result<void> job_changes::drop_current_results(std::span<std::int64_t const> job_ids)
{
    auto stmt = db().db().cached("DELETE FROM workflow_result WHERE job_id = ?");
    if (!stmt) return to_api_error(stmt.error(), source_);
    for (auto id : job_ids) {
        (*stmt)->reset();
        (*stmt)->bind(1, id);
        if (auto done = (*stmt)->run(); !done) return to_api_error(done.error(), source_);
    }
    return {};
}

api_result<core::unblock_outcome> job_changes::finished(std::int64_t workflow_id,
                                                        std::span<std::int64_t const> ids)
{
    store_view view(db().db());
    auto out = core::resolve_completions(ids, view);
    if (view.failed()) return to_api_error(*view.failed(), source_);
    auto held = held_by_datasets(db(), out.ready, source_);  // stay blocked until finalized
    if (!held) return held.error();
    std::erase_if(out.ready, [&](std::int64_t id) {
        return std::find(held->begin(), held->end(), id) != held->end();
    });
    for (auto id : out.ready) {
        if (auto ok = set_status(workflow_id, id, job_status::blocked, job_status::ready); !ok)
            return ok.error();
    }
    for (auto id : out.canceled) {
        if (auto ok = set_status(workflow_id, id, job_status::blocked, job_status::canceled); !ok)
            return ok.error();
    }
    if (auto ok = record_completed_jobs(db(), workflow_id, ids, source_); !ok) return ok.error();
    std::vector<std::int64_t> complete(ids.begin(), ids.end());
    complete.insert(complete.end(), out.canceled.begin(), out.canceled.end());
    if (auto ok = count_triggers(workflow_id, "on_jobs_complete", complete); !ok) return ok.error();
    if (!out.ready.empty()) {
        if (auto ok = became_ready(workflow_id, out.ready); !ok) return ok.error();
    } else {
        // The last jobs finished: parked claims hear it now (hand_out answers a claim on a
        // finished workflow at once) rather than when their long poll runs out.
        auto unfinished = has_unfinished_jobs(workflow_id);
        if (!unfinished) return unfinished.error();
        if (!*unfinished) api_.notify(workflow_id);
    }
    if (auto ok = settle_datasets(*this, workflow_id); !ok) return ok.error();
    if (auto ok = check_workflow_complete(workflow_id); !ok) return ok.error();
    return out;
}

api_result<void> job_changes::became_ready(std::int64_t workflow_id,
                                           std::span<std::int64_t const> ids)
{
    if (ids.empty()) return {};
    api_.notify(workflow_id);
    return count_triggers(workflow_id, "on_jobs_ready", ids);
}

api_result<void> job_changes::count_triggers(std::int64_t workflow_id,
                                             std::string_view trigger_type,
                                             std::span<std::int64_t const> ids)
{
    auto& db = this->db().db();
    auto select = db.cached("SELECT id, job_ids FROM workflow_action WHERE workflow_id = ? AND "
                            "trigger_type = ? AND trigger_count < required_triggers");
    if (!select) return to_api_error(select.error(), source_);
    (*select)->bind(1, workflow_id).bind(2, trigger_type);
    std::vector<std::pair<std::int64_t, std::int64_t>> increments;
    while (true) {
        auto row = (*select)->step();
        if (!row) return to_api_error(row.error(), source_);
        if (!*row) break;
        auto const n = overlap(read_cell(**select, 1), ids);
        if (n > 0) increments.emplace_back((*select)->int64(0), n);
    }
    auto update =
        db.cached("UPDATE workflow_action SET trigger_count = trigger_count + ? WHERE id = ?");
    if (!update) return to_api_error(update.error(), source_);
    for (auto [id, n] : increments) {
        (*update)->reset();
        (*update)->bind(1, n).bind(2, id);
        if (auto done = (*update)->run(); !done) return to_api_error(done.error(), source_);
    }
    return {};
}

api_result<void> job_changes::check_workflow_complete(std::int64_t workflow_id)
{
    auto waiting = scalar(db().db(),
                          "SELECT 1 FROM workflow_action WHERE workflow_id = ? AND trigger_type = "
                          "'on_workflow_complete' AND trigger_count < required_triggers LIMIT 1",
                          {workflow_id}, source_);
    if (!waiting) return waiting.error();
    if (!*waiting) return {};  // the common case: nothing to trigger, no counting
    auto flags = this->flags(workflow_id);
    if (!flags) return flags.error();
    auto unfinished = has_unfinished_jobs(workflow_id);
    if (!unfinished) return unfinished.error();
    auto const answer = core::is_complete(*flags, *unfinished);
    if (!answer.is_complete || answer.is_canceled) return {};
    auto done = scalar(db().db(),
                       "UPDATE workflow_action SET trigger_count = required_triggers WHERE "
                       "workflow_id = ? AND trigger_type = 'on_workflow_complete'",
                       {workflow_id}, source_);
    if (!done) return done.error();
    return {};
}

api::response job_reply(store& db, std::int64_t job_id, std::string_view what)
{
    return reply(db.get_job(job_id, what), api::job_model);
}

api_result<bool> flag_param(api::request const& req, std::string_view name, bool fallback,
                            std::string_view what)
{
    auto value = api::query_value(req, {name, api::param_kind::boolean}, what);
    if (!value) return value.error();
    if (!*value) return fallback;
    return std::get<std::int64_t>(**value) != 0;
}

}  // namespace torcrun::io::detail
