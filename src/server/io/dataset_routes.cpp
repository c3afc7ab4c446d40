// The dataset records of a torcrun server (newer Torc's datasets; docs/TORC-COMPATIBILITY.md §5):
// POST /workflows/{id}/datasets creates one with its producer and consumer jobs, GET
// /workflows/{id}/datasets lists a workflow's, GET /datasets/{id} reads one; and the dataset gate
// of the job life cycle (dataset_gate.hpp).
#include "dataset_gate.hpp"

#include "torcrun/server/dataset_digest.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

namespace torcrun::io {

namespace json = boost::json;

namespace detail {
namespace {

api_result<std::vector<std::int64_t>> ids_of(store& db, std::string const& sql,
                                             std::vector<std::int64_t> const& args,
                                             std::string_view what)
{
    auto stmt = db.db().cached(sql);
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->reset();
    for (std::size_t i = 0; i < args.size(); ++i)
        (*stmt)->bind(static_cast<int>(i + 1), args[i]);
    std::vector<std::int64_t> out;
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) break;
        out.push_back((*stmt)->int64(0));
    }
    (*stmt)->reset();
    return out;
}

// Producer statuses: 5 completed; 5-8 are the ends (completed, failed, canceled, terminated).
constexpr char const* not_all_completed =
    "EXISTS (SELECT 1 FROM job_dataset_output o JOIN job p ON p.id = o.job_id "
    "WHERE o.dataset_id = dataset.id AND p.status != 5)";
constexpr char const* some_unfinished =
    "EXISTS (SELECT 1 FROM job_dataset_output o JOIN job p ON p.id = o.job_id "
    "WHERE o.dataset_id = dataset.id AND p.status NOT IN (5, 6, 7, 8))";

}  // namespace

api_result<std::vector<std::int64_t>> held_by_datasets(store& db,
                                                       std::span<std::int64_t const> ids,
                                                       std::string_view what)
{
    std::vector<std::int64_t> out;
    for (auto id : ids) {
        auto held = scalar(db.db(),
                           "SELECT 1 FROM job_dataset_input i JOIN dataset d ON d.id = "
                           "i.dataset_id WHERE i.job_id = ? AND d.status != 'finalized' LIMIT 1",
                           {id}, what);
        if (!held) return held.error();
        if (*held) out.push_back(id);
    }
    return out;
}

api_result<void> settle_datasets(job_changes& changes, std::int64_t wf)
{
    auto& db = changes.db();
    auto const& what = changes.source();
    auto any = scalar(db.db(), "SELECT 1 FROM dataset WHERE workflow_id = ? LIMIT 1", {wf}, what);
    if (!any) return any.error();
    if (!*any) return {};
    auto reopened = scalar(
        db.db(),
        std::string("UPDATE dataset SET status = 'pending', generation = generation + 1, "
                    "claimed_at = NULL, file_count = NULL, total_size_bytes = NULL, "
                    "manifest_hash = NULL, finalized_at = NULL, error = NULL "
                    "WHERE workflow_id = ? AND (status != 'pending' OR error IS NOT NULL) AND ") +
            not_all_completed,
        {wf}, what);
    if (!reopened) return reopened.error();
    auto claimed = scalar(
        db.db(),
        std::string("UPDATE dataset SET status = 'finalizing', generation = generation + 1, "
                    "claimed_at = ? WHERE workflow_id = ? AND status = 'pending' AND "
                    "error IS NULL AND NOT ") +
            not_all_completed,
        {changes.api().timestamp(), wf}, what);
    if (!claimed) return claimed.error();
    // Consumers of datasets that cannot be finalized: hashing failed, or every producer ended
    // and one did not complete.
    auto doomed = ids_of(
        db,
        std::string("SELECT DISTINCT j.id FROM job j JOIN job_dataset_input i ON i.job_id = j.id "
                    "JOIN dataset ON dataset.id = i.dataset_id WHERE j.workflow_id = ? AND "
                    "j.status = 1 AND dataset.status = 'pending' AND (dataset.error IS NOT NULL "
                    "OR (") +
            not_all_completed + " AND NOT " + some_unfinished + "))",
        {wf}, what);
    if (!doomed) return doomed.error();
    if (doomed->empty()) return {};
    for (auto id : *doomed) {
        if (auto ok = changes.set_status(wf, id, job_status::blocked, job_status::canceled); !ok)
            return ok.error();
    }
    auto cascade = changes.finished(wf, *doomed);
    if (!cascade) return cascade.error();
    return {};
}

api_result<void> promote_consumers(job_changes& changes, std::int64_t wf, std::int64_t dataset_id)
{
    auto ready = ids_of(
        changes.db(),
        "SELECT j.id FROM job j JOIN job_dataset_input i ON i.job_id = j.id "
        "WHERE i.dataset_id = ? AND j.status = 1 AND NOT EXISTS (SELECT 1 FROM job_dataset_input "
        "i2 JOIN dataset d ON d.id = i2.dataset_id WHERE i2.job_id = j.id AND d.status != "
        "'finalized') AND NOT EXISTS (SELECT 1 FROM job_depends_on e JOIN job b ON b.id = "
        "e.depends_on_job_id WHERE e.job_id = j.id AND b.status NOT IN (5, 6, 7, 8))",
        {dataset_id}, changes.source());
    if (!ready) return ready.error();
    for (auto id : *ready) {
        if (auto ok = changes.set_status(wf, id, job_status::blocked, job_status::ready); !ok)
            return ok.error();
    }
    return changes.became_ready(wf, *ready);
}

}  // namespace detail

namespace {

using detail::job_changes;
using detail::scalar;
using detail::to_api_error;

constexpr std::string_view dataset_columns =
    "id, workflow_id, name, path, description, hash_mode, status, claimed_at, file_count, "
    "total_size_bytes, manifest_hash, finalized_at, error";

json::value column_value(sqlite::statement const& s, int c)
{
    if (s.is_null(c)) return nullptr;
    if (s.is_integer(c)) return s.int64(c);
    return json::string(s.text(c));
}

api_result<json::array> job_ids(store& db, std::string_view table, std::int64_t dataset_id,
                                std::string_view what)
{
    auto ids = detail::ids_of(db,
                              "SELECT job_id FROM " + std::string(table) +
                                  " WHERE dataset_id = ? ORDER BY job_id",
                              {dataset_id}, what);
    if (!ids) return ids.error();
    json::array out;
    for (auto id : *ids) out.push_back(id);
    return out;
}

// The workflow's datasets (or the one of `id`) as JSON objects.
api_result<json::array> read_datasets(store& db, std::string const& where, std::int64_t key,
                                      std::string_view what)
{
    auto stmt = db.db().cached("SELECT " + std::string(dataset_columns) + " FROM dataset WHERE " +
                               where + " ORDER BY id");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->reset();
    (*stmt)->bind(1, key);
    static constexpr std::string_view names[] = {
        "id",       "workflow_id", "name",           "path",
        "description", "hash_mode", "status",       "claimed_at",
        "file_count", "total_size_bytes", "manifest_hash", "finalized_at", "error"};
    json::array out;
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) break;
        json::object o;
        for (int c = 0; c < 13; ++c) o[names[c]] = column_value(**stmt, c);
        out.push_back(std::move(o));
    }
    (*stmt)->reset();
    for (auto& v : out) {
        auto& o = v.as_object();
        auto const id = o["id"].as_int64();
        auto producers = job_ids(db, "job_dataset_output", id, what);
        if (!producers) return producers.error();
        auto consumers = job_ids(db, "job_dataset_input", id, what);
        if (!consumers) return consumers.error();
        o["producer_job_ids"] = std::move(*producers);
        o["consumer_job_ids"] = std::move(*consumers);
    }
    return out;
}

api_result<std::vector<std::int64_t>> body_ids(json::object const& body, std::string_view key,
                                               std::string_view what)
{
    std::vector<std::int64_t> out;
    auto const* v = body.if_contains(key);
    if (!v || v->is_null()) return out;
    if (!v->is_array())
        return api::unprocessable(std::string(what) + ": \"" + std::string(key) +
                                  "\" must be an array of job ids");
    for (auto const& e : v->as_array()) {
        if (!e.is_int64())
            return api::unprocessable(std::string(what) + ": \"" + std::string(key) +
                                      "\" holds " + json::serialize(e) + ", not a job id");
        out.push_back(e.as_int64());
    }
    return out;
}

api_result<std::string> body_string(json::object const& body, std::string_view key,
                                    std::string_view what, bool required)
{
    auto const* v = body.if_contains(key);
    if (!v || v->is_null()) {
        if (required)
            return api::unprocessable(std::string(what) + ": \"" + std::string(key) +
                                      "\" is required");
        return std::string();
    }
    if (!v->is_string())
        return api::unprocessable(std::string(what) + ": \"" + std::string(key) +
                                  "\" must be a string");
    return std::string(v->as_string());
}

api::response create(server_api& api, api::request const& req, std::int64_t wf)
{
    constexpr std::string_view what = "datasets";
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    boost::system::error_code ec;
    auto parsed = json::parse(req.body, ec);
    if (ec || !parsed.is_object())
        return api::error_response(api::bad_request("datasets: the body is not a JSON object"));
    auto const& body = parsed.as_object();
    auto name = body_string(body, "name", what, true);
    auto path = body_string(body, "path", what, true);
    auto description = body_string(body, "description", what, false);
    auto mode = body_string(body, "hash_mode", what, false);
    for (auto const* f : {&name, &path, &description, &mode})
        if (!*f) return api::error_response(f->error());
    if (name->empty() || path->empty())
        return api::error_response(api::unprocessable("datasets: \"name\" and \"path\" must not "
                                                      "be empty"));
    if (mode->empty()) *mode = "manifest";
    if (!core::parse_hash_mode(*mode))
        return api::error_response(api::unprocessable(
            "datasets: \"hash_mode\" is \"" + *mode + "\": use manifest, content or none"));
    auto producers = body_ids(body, "producer_job_ids", what);
    if (!producers) return api::error_response(producers.error());
    auto consumers = body_ids(body, "consumer_job_ids", what);
    if (!consumers) return api::error_response(consumers.error());
    for (auto const* list : {&*producers, &*consumers}) {
        for (auto id : *list) {
            auto in = scalar(api.db().db(), "SELECT 1 FROM job WHERE id = ? AND workflow_id = ?",
                             {id, wf}, what);
            if (!in) return api::error_response(in.error());
            if (!*in)
                return api::error_response(api::unprocessable(
                    "datasets: job " + std::to_string(id) + " is not a job of workflow " +
                    std::to_string(wf)));
        }
    }
    auto stmt = api.db().db().cached("INSERT INTO dataset (workflow_id, name, path, description, "
                                     "hash_mode) VALUES (?, ?, ?, ?, ?)");
    if (!stmt) return api::error_response(to_api_error(stmt.error(), what));
    (*stmt)->reset();
    (*stmt)->bind(1, wf).bind(2, std::string_view(*name)).bind(3, std::string_view(*path));
    if (description->empty()) {
        (*stmt)->bind_null(4);
    } else {
        (*stmt)->bind(4, std::string_view(*description));
    }
    (*stmt)->bind(5, std::string_view(*mode));
    if (auto done = (*stmt)->run(); !done)
        return api::error_response(to_api_error(done.error(), what));
    auto const id = api.db().db().last_insert_rowid();
    for (auto [table, list] : {std::pair{"job_dataset_output", &*producers},
                               std::pair{"job_dataset_input", &*consumers}}) {
        for (auto job : *list) {
            auto added = scalar(api.db().db(),
                                "INSERT OR IGNORE INTO " + std::string(table) +
                                    " (job_id, dataset_id) VALUES (?, ?)",
                                {job, id}, what);
            if (!added) return api::error_response(added.error());
        }
    }
    auto rows = read_datasets(api.db(), "id = ?", id, what);
    if (!rows) return api::error_response(rows.error());
    return api::json_response(200, json::serialize(rows->at(0)));
}

api::response list(server_api& api, std::int64_t wf)
{
    constexpr std::string_view what = "datasets";
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto rows = read_datasets(api.db(), "workflow_id = ?", wf, what);
    if (!rows) return api::error_response(rows.error());
    auto const n = static_cast<std::int64_t>(rows->size());
    json::object o{{"items", std::move(*rows)}, {"offset", 0}, {"max_limit", n},
                   {"count", n}, {"total_count", n}, {"has_more", false}};
    return api::json_response(200, json::serialize(o));
}

api::response get_one(server_api& api, std::int64_t id)
{
    constexpr std::string_view what = "datasets";
    auto rows = read_datasets(api.db(), "id = ?", id, what);
    if (!rows) return api::error_response(rows.error());
    if (rows->empty())
        return api::error_response(api::not_found("datasets: no dataset " + std::to_string(id)));
    return api::json_response(200, json::serialize(rows->at(0)));
}

}  // namespace

void add_dataset_routes(server_api& api)
{
    api.add_route("POST", "/workflows/{id}/datasets", api::access::workflow_in_path(),
                  [&api](api::request const& req, api::path_params const& p) {
                      return create(api, req, p.id("id"));
                  });
    api.add_route("GET", "/workflows/{id}/datasets", api::access::workflow_in_path(),
                  [&api](api::request const&, api::path_params const& p) {
                      return list(api, p.id("id"));
                  });
    api.add_route("GET", "/datasets/{id}", api::access::record_in_path("dataset"),
                  [&api](api::request const&, api::path_params const& p) {
                      return get_one(api, p.id("id"));
                  });
}

}  // namespace torcrun::io
