// Claiming jobs: the two claim endpoints and the reads of the ready jobs they choose from.
//
// A claim runs inside the request's BEGIN IMMEDIATE transaction, so claims are serialised and a
// job goes to exactly one claimant: the ready jobs that can be chosen are read through the indexes
// (never every ready job), core::select_claim / select_next_jobs choose, and the chosen rows
// become pending, noted with the claimant when the worker names itself.
//
// Claim and start (extension): with `start=true` (and `compute_node_id`) the chosen jobs become
// running for the claimant in the claim's transaction, as start_job would make them one by one:
// held by that node on their current attempt, which the answer carries, so every later transition
// of the worker is fenced as after start_job. A claim resent under its key answers the jobs the
// first one started that the node still holds running (or pending).
//
// Reading the candidates: jobs that share resource_requirements_id and scheduler_id look the same
// to core::select_claim but for their priorities and ids, and it prefers the higher priority, then
// the lower id, so at most `limit` of each such group (the first in that order) can be chosen. The groups are found by seeking the
// claim index (workflow_id, status, resource_requirements_id, scheduler_id, then the rowid) from
// one group to the next, and each group is read up to `limit` rows in (priority desc, id) order
// from the same index: a claim costs O(groups x limit) instead of O(ready).
//
// Labels (extension): a claim reads only the ready jobs whose label is the claim's `label` query
// parameter, or that have none when it names none (`label IS ?6`, NULL matching NULL). The group
// walk below ignores labels: a group without the claim's label reads as empty.
//
// Long poll (extension): with `wait_seconds` > 0 and nothing claimable, the answer is
// api::wait_for_workflow; the HTTP layer parks the request and calls again when the workflow
// changes (server_api::notify) or the wait runs out (then may_wait is false and the answer is an
// empty claim).
#include "claim_candidates.hpp"
#include "claim_keys.hpp"
#include "lifecycle_detail.hpp"
#include "ready_jobs.hpp"
#include "torcrun/server/claim_selection.hpp"
#include "torcrun/server/job_labels.hpp"
#include "torcrun/server/job_status.hpp"
#include "torcrun/common/units.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace torcrun::io::detail {
namespace {

// Past this many groups one pass over every ready job costs less than seeking each group.
constexpr std::size_t max_group_seeks = 64;

std::string const candidate_sql =
    "SELECT j.id, COALESCE(r.num_cpus, 1), COALESCE(r.num_gpus, 0), COALESCE(r.num_nodes, 1), "
    "COALESCE(r.memory_bytes, 1048576), COALESCE(r.runtime_s, 60), j.scheduler_id, j.priority "
    "FROM job j LEFT JOIN resource_requirements r ON r.id = j.resource_requirements_id "
    "WHERE j.workflow_id = ?1 AND j.status = ?2 AND j.label IS ?6";
std::string const group_sql = candidate_sql +
                              " AND j.resource_requirements_id IS ?3 AND j.scheduler_id IS ?4 "
                              "ORDER BY j.priority DESC, j.id LIMIT ?5";

std::string const key_sql = "SELECT resource_requirements_id, scheduler_id FROM job "
                            "WHERE workflow_id = ?1 AND status = ?2 ";
std::string const first_group_sql =
    key_sql + "ORDER BY resource_requirements_id, scheduler_id LIMIT 1";
std::string const next_scheduler_sql = key_sql +
                                       "AND resource_requirements_id IS ?3 AND scheduler_id > ?4 "
                                       "ORDER BY scheduler_id LIMIT 1";
std::string const next_requirements_sql = key_sql +
                                          "AND resource_requirements_id > ?3 "
                                          "ORDER BY resource_requirements_id, scheduler_id LIMIT 1";

std::int64_t ready() { return core::to_int(core::job_status::ready); }

void bind_label(sqlite::statement& s, int index, std::optional<std::string> const& label)
{
    if (label) s.bind(index, *label);
    else s.bind_null(index);
}

// A job whose requirements row is gone counts with the model defaults (1 CPU, 1m, 1 min).
sqlite::result<void> append_rows(sqlite::statement& s, std::vector<core::claim_candidate>& out)
{
    while (true) {
        auto row = s.step();
        if (!row) return row.error();
        if (!*row) return {};
        auto const u32 = [&](int c) {
            return static_cast<std::uint32_t>(std::max<std::int64_t>(s.int64(c), 0));
        };
        core::claim_candidate c{s.int64(0),
                                {u32(1), u32(2), u32(3),
                                 static_cast<std::uint64_t>(std::max<std::int64_t>(s.int64(4), 0))},
                                s.int64(5),
                                std::nullopt,
                                s.int64(7)};
        if (!s.is_null(6)) c.scheduler_id = s.int64(6);
        out.push_back(c);
    }
}

struct group_key {
    std::optional<std::int64_t> requirements;
    std::optional<std::int64_t> scheduler;
};

void bind_is(sqlite::statement& s, int index, std::optional<std::int64_t> value)
{
    if (value) s.bind(index, *value);
    else s.bind_null(index);
}

// NULL sorts before every value, so the keys after NULL are those above minus infinity.
void bind_after(sqlite::statement& s, int index, std::optional<std::int64_t> value)
{
    if (value) s.bind(index, *value);
    else s.bind(index, -std::numeric_limits<double>::infinity());
}

enum class seek { found, none, odd };

// Steps a key query (?3 and ?4 bound) once and appends the group it finds. A key that is neither
// NULL nor an integer is `odd`: the walk cannot step past it, so the caller reads everything.
sqlite::result<seek> seek_group(sqlite::statement& s, std::int64_t wf,
                                std::vector<group_key>& groups)
{
    s.bind(1, wf).bind(2, ready());
    auto row = s.step();
    if (!row) return row.error();
    if (!*row) return seek::none;
    group_key key;
    for (int c : {0, 1}) {
        if (s.is_null(c)) continue;
        if (!s.is_integer(c)) return seek::odd;
        (c == 0 ? key.requirements : key.scheduler) = s.int64(c);
    }
    groups.push_back(key);
    return seek::found;
}

// The groups of ready jobs in index order; nullopt when reading every ready job is better.
sqlite::result<std::optional<std::vector<group_key>>> ready_groups(sqlite::connection& db,
                                                                   std::int64_t wf)
{
    std::vector<group_key> groups;
    auto first = db.cached(first_group_sql);
    if (!first) return first.error();
    auto found = seek_group(**first, wf, groups);
    while (found && *found == seek::found) {
        if (groups.size() > max_group_seeks) return std::nullopt;
        auto const last = groups.back();
        auto same = db.cached(next_scheduler_sql);
        if (!same) return same.error();
        bind_is(**same, 3, last.requirements);
        bind_after(**same, 4, last.scheduler);
        found = seek_group(**same, wf, groups);
        if (!found || *found != seek::none) continue;
        auto other = db.cached(next_requirements_sql);
        if (!other) return other.error();
        bind_after(**other, 3, last.requirements);
        found = seek_group(**other, wf, groups);
    }
    if (!found) return found.error();
    if (*found == seek::odd) return std::nullopt;
    return groups;
}

}  // namespace

api_result<std::vector<core::claim_candidate>> all_claim_candidates(
    store& db, std::int64_t wf, std::optional<std::string> const& label, std::string_view what)
{
    auto stmt = db.db().cached(candidate_sql);
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, ready());
    bind_label(**stmt, 6, label);
    std::vector<core::claim_candidate> out;
    if (auto read = append_rows(**stmt, out); !read) return to_api_error(read.error(), what);
    return out;
}

api_result<std::vector<core::claim_candidate>> claim_candidates_by_sql(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what)
{
    if (limit <= 0) return std::vector<core::claim_candidate>{};  // select_claim chooses none
    auto groups = ready_groups(db.db(), wf);
    if (!groups) return to_api_error(groups.error(), what);
    if (!*groups) return all_claim_candidates(db, wf, label, what);
    std::vector<core::claim_candidate> out;
    for (auto const& g : **groups) {
        auto stmt = db.db().cached(group_sql);
        if (!stmt) return to_api_error(stmt.error(), what);
        (*stmt)->bind(1, wf).bind(2, ready());
        bind_is(**stmt, 3, g.requirements);
        bind_is(**stmt, 4, g.scheduler);
        (*stmt)->bind(5, limit);
        bind_label(**stmt, 6, label);
        if (auto read = append_rows(**stmt, out); !read) return to_api_error(read.error(), what);
    }
    return out;
}

api_result<std::vector<core::next_candidate>> next_candidates_by_sql(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what)
{
    std::vector<core::next_candidate> out;
    if (limit <= 0) return out;  // SQLite reads a negative LIMIT as none
    auto stmt = db.db().cached(
        "SELECT id, priority FROM job WHERE workflow_id = ?1 AND status = ?2 AND label IS ?4 "
        "ORDER BY priority DESC, id LIMIT ?3");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, ready()).bind(3, limit);
    bind_label(**stmt, 4, label);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) return out;
        out.push_back({(*stmt)->int64(0), (*stmt)->int64(1)});
    }
}

namespace {

// A group's requirements as the SQL read gives them: a missing row (or none named) counts with
// the model defaults.
sqlite::result<core::job_requirement> group_need(sqlite::connection& db,
                                                 std::optional<std::int64_t> requirements,
                                                 std::int64_t& runtime)
{
    core::job_requirement need{1, 0, 1, 1048576};
    runtime = 60;
    if (!requirements) return need;
    auto stmt = db.cached("SELECT COALESCE(num_cpus, 1), COALESCE(num_gpus, 0), "
                          "COALESCE(num_nodes, 1), COALESCE(memory_bytes, 1048576), "
                          "COALESCE(runtime_s, 60) FROM resource_requirements WHERE id = ?");
    if (!stmt) return stmt.error();
    (*stmt)->bind(1, *requirements);
    auto row = (*stmt)->step();
    if (!row) return row.error();
    if (*row) {
        auto const u32 = [&](int c) {
            return static_cast<std::uint32_t>(std::max<std::int64_t>((*stmt)->int64(c), 0));
        };
        need = {u32(0), u32(1), u32(2),
                static_cast<std::uint64_t>(std::max<std::int64_t>((*stmt)->int64(3), 0))};
        runtime = (*stmt)->int64(4);
    }
    (*stmt)->reset();
    return need;
}

}  // namespace

api_result<std::vector<core::claim_candidate>> claim_candidates(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what)
{
    if (limit <= 0) return std::vector<core::claim_candidate>{};  // select_claim chooses none
    auto index = db.ready_jobs().current(what);
    if (!index) return index.error();
    if (*index == nullptr) return claim_candidates_by_sql(db, wf, limit, label, what);
    std::vector<core::claim_candidate> out;
    for (auto const& g : (*index)->groups(wf, label, limit)) {
        std::int64_t runtime = 0;
        auto need = group_need(db.db(), g.requirements_id, runtime);
        if (!need) return to_api_error(need.error(), what);
        for (auto [id, priority] : g.jobs)
            out.push_back({id, *need, runtime, g.scheduler_id, priority});
    }
    return out;
}

api_result<std::vector<core::next_candidate>> next_candidates(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what)
{
    if (limit <= 0) return std::vector<core::next_candidate>{};
    auto index = db.ready_jobs().current(what);
    if (!index) return index.error();
    if (*index == nullptr) return next_candidates_by_sql(db, wf, limit, label, what);
    std::vector<core::next_candidate> out;
    for (auto [id, priority] : (*index)->first(wf, label, limit)) out.push_back({id, priority});
    return out;
}

}  // namespace torcrun::io::detail

namespace torcrun::io {
namespace {

using api::request;
using core::job_status;
using detail::job_changes;

constexpr double wait_ceiling_seconds = 60;

struct claim_params {
    double wait_seconds = 0;
    std::optional<std::int64_t> claimant;
    std::optional<std::string> key;  // request_key: a retried claim sends the same
    bool start = false;  // start=true: the chosen jobs become running, not pending
};

constexpr std::size_t max_key_bytes = 128;

// request_key: 1 to max_key_bytes bytes, only with compute_node_id (keys are per node).
api_result<std::optional<std::string>> key_param(request const& req, bool has_claimant,
                                                 std::string_view what)
{
    auto text = api::query_value(req, {"request_key", api::param_kind::string}, what);
    if (!text) return text.error();
    if (!*text) return std::optional<std::string>{};
    auto key = std::get<std::string>(**text);
    if (key.empty() || key.size() > max_key_bytes) {
        return api::bad_request(std::string(what) + ": query parameter \"request_key\" must have 1 to " +
                                std::to_string(max_key_bytes) + " bytes, not " +
                                std::to_string(key.size()));
    }
    if (!has_claimant) {
        return api::unprocessable(std::string(what) +
                                  ": query parameter \"request_key\" needs \"compute_node_id\"");
    }
    return std::optional<std::string>{std::move(key)};
}

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
    auto key = key_param(req, node->has_value(), what);
    if (!key) return key.error();
    out.key = std::move(*key);
    auto start = detail::flag_param(req, "start", false, what);
    if (!start) return start.error();
    if (*start && !*node) {
        return api::unprocessable(std::string(what) +
                                  ": query parameter \"start\" needs \"compute_node_id\"");
    }
    out.start = *start;
    if (!*node) return out;
    auto const id = std::get<std::int64_t>(**node);
    if (auto ok = detail::require_active_node(changes.db(), id, wf, what,
                                              "query parameter \"compute_node_id\"");
        !ok)
        return ok.error();
    if (auto renewed = detail::renew_lease(changes.api(), id, false, what); !renewed)
        return renewed.error();
    out.claimant = id;
    return out;
}

api::response job_list(std::vector<api::record> const& rows)
{
    return api::json_response(200, api::encode_wrapped(api::job_model, rows, "jobs"));
}

// A claim sent again under the key of the node's last one: the jobs it handed out that the node
// still holds pending, or with `start` running (none once they moved on); nullopt for a claim not
// seen before.
api_result<std::optional<api::response>> repeated_claim(job_changes& changes,
                                                        claim_params const& params)
{
    if (!params.key || !params.claimant) return std::optional<api::response>{};
    auto const ids =
        detail::claimed_under_key(changes.db().db(), *params.claimant, *params.key, changes.source());
    if (!ids) return ids.error();
    if (!*ids) return std::optional<api::response>{};
    std::vector<api::record> rows;
    for (auto id : **ids) {
        auto job = changes.job_state(id);
        if (!job) return job.error();
        if (!*job || (*job)->holder != params.claimant) continue;
        auto const status = (*job)->status;
        if (status != job_status::pending && !(params.start && status == job_status::running))
            continue;
        auto row = changes.db().get_job(id, changes.source());
        if (!row) return row.error();
        rows.push_back(std::move(*row));
    }
    return std::optional<api::response>{job_list(rows)};
}

// The chosen jobs become pending (running with `start`); the answer lists them as GET /jobs/{id}
// shows them (invocation_script and the five id lists included, which Torc's claims leave out). A
// keyed claim that hands out jobs is remembered for its repeats.
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
    auto const to = params.start ? job_status::running : job_status::pending;
    for (auto id : chosen) {
        auto ok = changes.set_status(wf, id, job_status::ready, to, params.claimant);
        if (!ok) return api::error_response(ok.error());
    }
    // Read back after every change, in a few statements for the whole claim (store::get_jobs).
    auto rows = changes.db().get_jobs(chosen, changes.source());
    if (!rows) return api::error_response(rows.error());
    if (params.key && params.claimant) {
        auto kept = detail::remember_claim(changes.db().db(), *params.claimant, *params.key, chosen,
                                           changes.source());
        if (!kept) return api::error_response(kept.error());
    }
    return job_list(*rows);
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

// The claim's `label` query parameter (api::claim_label).
api_result<std::optional<std::string>> label_param(request const& req, std::string_view what)
{
    auto text = api::query_value(req, {"label", api::param_kind::string}, what);
    if (!text) return text.error();
    std::optional<std::string> value;
    if (*text) value = std::get<std::string>(**text);
    return api::claim_label(value, what);
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
    auto label = label_param(req, what);
    if (!label) return api::error_response(label.error());
    auto params = common_params(changes, req, wf);
    if (!params) return api::error_response(params.error());
    if (*canceled) return **canceled;
    auto repeated = repeated_claim(changes, *params);
    if (!repeated) return api::error_response(repeated.error());
    if (*repeated) return **repeated;
    auto ready = detail::claim_candidates(api.db(), wf, limit, *label, what);
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
    auto label = label_param(req, what);
    if (!label) return api::error_response(label.error());
    auto params = common_params(changes, req, wf);
    if (!params) return api::error_response(params.error());
    if (*canceled) return **canceled;
    auto repeated = repeated_claim(changes, *params);
    if (!repeated) return api::error_response(repeated.error());
    if (*repeated) return **repeated;
    auto const n = *limit ? std::get<std::int64_t>(**limit) : core::default_claim_next_jobs_limit;
    auto ready = detail::next_candidates(api.db(), wf, n, *label, what);
    if (!ready) return api::error_response(ready.error());
    return hand_out(changes, req, wf, core::select_next_jobs(*ready, n), *params);
}

}  // namespace

void add_claim_routes(server_api& api)
{
    api.add_route("POST", "/workflows/{id}/claim_jobs_based_on_resources/{limit}",
                  api::access::workflow_in_path(),
                  [&api](request const& req, api::path_params const& p) {
                      return claim_by_resources(api, req, p.id("id"), p.id("limit"));
                  });
    api.add_route("POST", "/workflows/{id}/claim_next_jobs", api::access::workflow_in_path(),
                  [&api](request const& req, api::path_params const& p) {
                      return claim_next(api, req, p.id("id"));
                  });
}

}  // namespace torcrun::io
