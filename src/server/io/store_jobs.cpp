// Jobs, their five link tables and the workflow's listings of those links. A job is created
// uninitialized, pointing at the workflow's `default` resource requirements unless it names
// others; GET returns the links in the order they were sent (duplicates dropped). Updates follow
// Torc's update_job rules (store.hpp).
#include "store_detail.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace torcrun::io {

using api::record;
using detail::to_api_error;

namespace {

struct link_table {
    std::string_view field;
    std::string_view table;
    std::string_view column;
};

constexpr std::array<link_table, 5> link_tables{{
    {"depends_on_job_ids", "job_depends_on", "depends_on_job_id"},
    {"input_file_ids", "job_input_file", "file_id"},
    {"output_file_ids", "job_output_file", "file_id"},
    {"input_user_data_ids", "job_input_user_data", "user_data_id"},
    {"output_user_data_ids", "job_output_user_data", "user_data_id"},
}};

constexpr std::int64_t uninitialized = 0;
constexpr std::int64_t disabled = 9;
constexpr std::size_t max_batch = 10000;

api::id_list sorted(api::id_list ids)
{
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

// `ids` in their order, each only the first time it appears; empty for none.
api::id_list in_order_unique(api::id_list const* ids)
{
    api::id_list out;
    if (ids == nullptr) return out;
    std::unordered_set<std::int64_t> seen;
    seen.reserve(ids->size());
    for (auto id : *ids) {
        if (seen.insert(id).second) out.push_back(id);
    }
    return out;
}

std::string field_prefix(std::string_view what, std::string_view field)
{
    return std::string(what) + ": field \"" + std::string(field) + "\": ";
}

}  // namespace

api_result<void> store::insert_links(std::int64_t job_id, record const& fields,
                                     std::string_view what, job_edges* edges)
{
    for (auto const& link : link_tables) {
        auto const* ids = fields.ids(link.field);
        if (ids == nullptr) continue;
        if (edges != nullptr && link.table == "job_depends_on") {
            for (auto id : *ids) edges->emplace_back(job_id, id);
            continue;
        }
        auto stmt = db_.cached("INSERT OR IGNORE INTO " + std::string(link.table) + " (job_id, " +
                               std::string(link.column) + ") VALUES (?, ?)");
        if (!stmt) return to_api_error(stmt.error(), what);
        for (auto id : *ids) {
            (*stmt)->reset();
            (*stmt)->bind(1, job_id).bind(2, id);
            if (auto done = (*stmt)->run(); !done) return to_api_error(done.error(), what);
        }
    }
    return {};
}

namespace {

// Edges per multi-row insert: the statement's fixed costs (its cursors on the table and its two
// indexes, the foreign-key set-up, the halt) shared by this many rows; 256 parameters.
constexpr std::size_t edges_per_insert = 128;

std::string edges_insert(std::size_t rows)
{
    std::string sql = "INSERT OR IGNORE INTO job_depends_on (job_id, depends_on_job_id) VALUES (?, ?)";
    for (std::size_t i = 1; i < rows; ++i) sql += ", (?, ?)";
    return sql;
}

}  // namespace

api_result<void> store::insert_edges(job_edges const& edges, std::string_view what)
{
    static std::string const many = edges_insert(edges_per_insert);
    static std::string const one = edges_insert(1);
    std::size_t done = 0;
    while (done < edges.size()) {
        std::size_t const rows = edges.size() - done >= edges_per_insert ? edges_per_insert : 1;
        auto stmt = db_.cached(rows == 1 ? one : many);
        if (!stmt) return to_api_error(stmt.error(), what);
        (*stmt)->reset();
        int index = 1;
        for (std::size_t k = done; k < done + rows; ++k, index += 2)
            (*stmt)->bind(index, edges[k].first).bind(index + 1, edges[k].second);
        if (auto ran = (*stmt)->run(); !ran) {
            // Ownership was checked before; a blocker at a reserved id with no job yet (a batch
            // sent before the one holding its blockers) is what remains.
            if (ran.error().extended_code == SQLITE_CONSTRAINT_FOREIGNKEY) {
                return api::unprocessable(std::string(what) +
                                          ": a dependency names a reserved job id that no job "
                                          "has yet (send the batches in order)");
            }
            return to_api_error(ran.error(), what);
        }
        done += rows;
    }
    return {};
}

api_result<void> store::attach_links(record& job)
{
    auto const id = *job.int64("id");
    for (auto const& link : link_tables) {
        auto stmt = db_.cached("SELECT " + std::string(link.column) + " FROM " +
                               std::string(link.table) + " WHERE job_id = ? ORDER BY rowid");
        if (!stmt) return to_api_error(stmt.error(), "jobs");
        (*stmt)->bind(1, id);
        api::id_list ids;
        while (true) {
            auto row = (*stmt)->step();
            if (!row) return to_api_error(row.error(), "jobs");
            if (!*row) break;
            ids.push_back((*stmt)->int64(0));
        }
        job.set(link.field, std::move(ids));
    }
    return {};
}

api_result<record> store::create_job(record fields, std::string_view what)
{
    auto sp = detail::savepoint::begin(db_, what);
    if (!sp) return sp.error();
    auto job = insert_job(std::move(fields), what);
    if (!job) return job.error();
    if (auto done = sp->commit(what); !done) return done.error();
    return job;
}

api_result<record> store::insert_job(record fields, std::string_view what, job_edges* edges)
{
    fields.set("status", uninitialized);
    if (!fields.has_value("resource_requirements_id")) {
        auto rr = detail::scalar(
            db_, "SELECT id FROM resource_requirements WHERE workflow_id = ? AND name = 'default'",
            {*fields.int64("workflow_id")}, what);
        if (!rr) return rr.error();
        if (*rr) fields.set("resource_requirements_id", **rr);
    }
    auto job = insert(api::job_model, fields, what);
    if (!job) return job.error();
    auto const id = *job->int64("id");
    if (auto linked = insert_links(id, fields, what, edges); !linked) return linked.error();
    // The links as attach_links would read them back from a new job's rows: in the order sent,
    // later duplicates dropped (INSERT OR IGNORE keeps the first), without reading them again.
    for (auto const& link : link_tables)
        job->set(link.field, in_order_unique(fields.ids(link.field)));
    return job;
}

api_result<std::vector<record>> store::create_jobs(std::vector<record> jobs, std::string_view what)
{
    if (jobs.size() > max_batch) {
        return api::unprocessable(std::string(what) + ": " + std::to_string(jobs.size()) +
                                  " jobs in one request; at most 10000 are allowed");
    }
    std::vector<record> out;
    if (jobs.empty()) return out;
    auto const workflow_id = *jobs.front().int64("workflow_id");
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        auto const wf = *jobs[i].int64("workflow_id");
        if (wf != workflow_id) {
            return api::unprocessable(std::string(what) + ": jobs[" + std::to_string(i) +
                                      "]: field \"workflow_id\": " + std::to_string(wf) +
                                      " differs from the batch's workflow " +
                                      std::to_string(workflow_id));
        }
    }
    auto sp = detail::savepoint::begin(db_, what);
    if (!sp) return sp.error();
    std::set<std::pair<std::string_view, std::int64_t>> owned;
    struct forget_owned {
        decltype(batch_owned_)& slot;
        ~forget_owned() { slot = nullptr; }
    } const forget{batch_owned_};
    batch_owned_ = &owned;
    // One savepoint for the batch, none per job: a savepoint journals the original of every page
    // it first touches, so one per job would copy each job's pages once more.
    out.reserve(jobs.size());
    job_edges edges;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        auto job = insert_job(std::move(jobs[i]),
                              std::string(what) + ": jobs[" + std::to_string(i) + "]", &edges);
        if (!job) return job.error();
        out.push_back(std::move(*job));
    }
    if (auto linked = insert_edges(edges, what); !linked) return linked.error();
    if (auto done = sp->commit(what); !done) return done.error();
    return out;
}

api_result<record> store::get_job(std::int64_t id, std::string_view what)
{
    auto job = get(api::job_model, id, what);
    if (!job) return job.error();
    if (auto linked = attach_links(*job); !linked) return linked.error();
    return job;
}

namespace {

// get_jobs reads up to this many jobs per statement: `IN (?1, ..., ?32)`, the parameters past the
// last id left NULL (which matches nothing), so one prepared statement serves every count.
constexpr std::size_t ids_per_read = 32;

std::string id_params()
{
    std::string out = "(";
    for (std::size_t i = 1; i <= ids_per_read; ++i)
        out += (i > 1 ? ", ?" : "?") + std::to_string(i);
    return out + ")";
}

// The job rows and each link table's ids of a chunk of jobs; the links in rowid order per job, as
// attach_links reads them.
struct chunk_sql {
    std::string jobs;
    std::array<std::string, link_tables.size()> links;
};

chunk_sql const& chunk_reads()
{
    static chunk_sql const sql = [] {
        chunk_sql out;
        auto const in = id_params();
        out.jobs = "SELECT " + detail::column_list(api::job_model) + " FROM job WHERE id IN " + in;
        for (std::size_t k = 0; k < link_tables.size(); ++k) {
            out.links[k] = "SELECT job_id, " + std::string(link_tables[k].column) + " FROM " +
                           std::string(link_tables[k].table) + " WHERE job_id IN " + in +
                           " ORDER BY job_id, rowid";
        }
        return out;
    }();
    return sql;
}

}  // namespace

api_result<std::vector<record>> store::get_jobs(std::span<std::int64_t const> ids,
                                                std::string_view what)
{
    std::vector<std::optional<record>> found(ids.size());
    std::unordered_map<std::int64_t, std::size_t> position;
    position.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) position.emplace(ids[i], i);
    auto const& sql = chunk_reads();
    auto bind_chunk = [&](sqlite::statement& stmt, std::size_t from) {
        auto const n = std::min(ids_per_read, ids.size() - from);
        for (std::size_t i = 0; i < n; ++i) stmt.bind(static_cast<int>(i + 1), ids[from + i]);
    };
    for (std::size_t from = 0; from < ids.size(); from += ids_per_read) {
        auto stmt = db_.cached(sql.jobs);
        if (!stmt) return to_api_error(stmt.error(), what);
        bind_chunk(**stmt, from);
        while (true) {
            auto row = (*stmt)->step();
            if (!row) return to_api_error(row.error(), what);
            if (!*row) break;
            auto job = detail::read_record(**stmt, api::job_model);
            auto const at = position.find(job.int64("id").value_or(0));
            if (at == position.end() || at->second < from || at->second >= from + ids_per_read)
                continue;  // an id sent twice: the first one's chunk reads it
            found[at->second] = std::move(job);
        }
        for (std::size_t k = 0; k < link_tables.size(); ++k) {
            auto links = db_.cached(sql.links[k]);
            if (!links) return to_api_error(links.error(), what);
            bind_chunk(**links, from);
            std::vector<api::id_list> lists(std::min(ids_per_read, ids.size() - from));
            while (true) {
                auto row = (*links)->step();
                if (!row) return to_api_error(row.error(), what);
                if (!*row) break;
                auto const at = position.find((*links)->int64(0));
                if (at == position.end() || at->second < from || at->second >= from + lists.size())
                    continue;
                lists[at->second - from].push_back((*links)->int64(1));
            }
            for (std::size_t i = 0; i < lists.size(); ++i) {
                if (found[from + i]) found[from + i]->set(link_tables[k].field, std::move(lists[i]));
            }
        }
    }
    std::vector<record> out;
    out.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!found[i]) {  // missing (its 404, worded as get_job words it) or an id sent twice
            auto job = get_job(ids[i], what);
            if (!job) return job.error();
            found[i] = std::move(*job);
        }
        out.push_back(std::move(*found[i]));
    }
    return out;
}

api_result<page_rows> store::list_jobs(list_query const& query, bool with_links,
                                       std::string_view what)
{
    auto page = list(api::job_model, query, what);
    if (!page || !with_links) return page;
    for (auto& job : page->items) {
        if (auto linked = attach_links(job); !linked) return linked.error();
    }
    return page;
}

api_result<void> store::replace_dependencies(std::int64_t job_id, api::id_list const& ids,
                                             std::string_view what)
{
    auto const prefix = field_prefix(what, "depends_on_job_ids");
    for (auto id : ids) {
        if (id == job_id) {
            return api::unprocessable(prefix + "job " + std::to_string(id) +
                                      " cannot depend on itself");
        }
        auto cycle = detail::scalar(
            db_,
            "WITH RECURSIVE up(id) AS (SELECT ? UNION SELECT d.depends_on_job_id "
            "FROM job_depends_on d JOIN up ON d.job_id = up.id) SELECT 1 FROM up WHERE id = ?",
            {id, job_id}, what);
        if (!cycle) return cycle.error();
        if (*cycle) {
            return api::unprocessable(prefix + "job " + std::to_string(id) + " depends on job " +
                                      std::to_string(job_id) + ", so job " +
                                      std::to_string(job_id) + " cannot depend on it (a cycle)");
        }
    }
    auto clear = db_.cached("DELETE FROM job_depends_on WHERE job_id = ?");
    if (!clear) return to_api_error(clear.error(), what);
    (*clear)->bind(1, job_id);
    if (auto done = (*clear)->run(); !done) return to_api_error(done.error(), what);
    record links;
    links.set("depends_on_job_ids", ids);
    return insert_links(job_id, links, what);
}

namespace {

// Torc's update_job rules; true when depends_on_job_ids is to be replaced.
api_result<bool> check_job_update(record const& existing, record const& fields,
                                  std::string_view what)
{
    auto const status = *existing.int64("status");
    std::string changed;
    auto note = [&](std::string_view name) {
        changed += (changed.empty() ? "" : ", ") + std::string(name);
    };
    for (auto name : {"name", "command"}) {
        auto const* now = fields.text(name);
        if (now != nullptr && *now != *existing.text(name)) note(name);
    }
    auto const new_status = fields.int64("status");
    if (new_status && *new_status != status) note("status");
    bool deps_changed = false;
    for (auto const& link : link_tables) {
        auto const* ids = fields.ids(link.field);
        if (ids == nullptr || sorted(*ids) == sorted(*existing.ids(link.field))) continue;
        if (link.field != "depends_on_job_ids") {
            return api::unprocessable(field_prefix(what, link.field) +
                                      "cannot change after the job is created");
        }
        deps_changed = true;
        note(link.field);
    }
    if (status != uninitialized && !changed.empty()) {
        return api::unprocessable(std::string(what) + ": job " +
                                  std::to_string(*existing.int64("id")) + " is " +
                                  std::string(api::job_status_name(status)) +
                                  "; after initialization only resource_requirements_id and "
                                  "scheduler_id may change (changed: " +
                                  changed + ")");
    }
    if (new_status && *new_status != status && *new_status != disabled) {
        return api::unprocessable(field_prefix(what, "status") +
                                  "may only change to disabled, not \"" +
                                  std::string(api::job_status_name(*new_status)) + "\"");
    }
    return deps_changed;
}

}  // namespace

api_result<record> store::update_job(std::int64_t id, record const& fields, std::string_view what)
{
    auto existing = get_job(id, what);
    if (!existing) return existing.error();
    auto deps_changed = check_job_update(*existing, fields, what);
    if (!deps_changed) return deps_changed.error();
    auto sp = detail::savepoint::begin(db_, what);
    if (!sp) return sp.error();
    if (*deps_changed) {
        auto const& ids = *fields.ids("depends_on_job_ids");
        record deps;
        deps.set("depends_on_job_ids", ids);
        auto const wf = *existing->int64("workflow_id");
        if (auto ok = check_references(api::job_model, deps, wf, what); !ok) return ok.error();
        if (auto replaced = replace_dependencies(id, ids, what); !replaced) return replaced.error();
    }
    record scalars = fields;
    for (auto const& link : link_tables) scalars.erase(link.field);
    auto updated = update(api::job_model, id, scalars, what);
    if (!updated) return updated.error();
    if (auto done = sp->commit(what); !done) return done.error();
    return get_job(id, what);
}

api_result<api::id_list> store::job_ids(std::int64_t workflow_id)
{
    auto stmt = db_.cached("SELECT id FROM job WHERE workflow_id = ? ORDER BY id");
    if (!stmt) return to_api_error(stmt.error(), "job_ids");
    (*stmt)->bind(1, workflow_id);
    api::id_list ids;
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), "job_ids");
        if (!*row) break;
        ids.push_back((*stmt)->int64(0));
    }
    return ids;
}

api_result<void> store::link_user_data(std::int64_t user_data_id, std::int64_t job_id,
                                       bool produced, std::string_view what)
{
    auto data = get(api::user_data_model, user_data_id, what);
    if (!data) return data.error();
    auto const context = std::string(what);
    if (auto ok = check_owner("job", job_id, *data->int64("workflow_id"), context); !ok) return ok;
    record link;
    link.set(produced ? "output_user_data_ids" : "input_user_data_ids", api::id_list{user_data_id});
    return insert_links(job_id, link, what);
}

// The relationship listings of a workflow: job -> job edges, and each file or user-data row
// with its producing and consuming jobs (one row per producer x consumer pair; a missing side
// is left out of the JSON, as Torc's Option fields are).
api_result<page_rows> store::query_page(std::string const& select, std::string const& count,
                                        std::int64_t workflow_id, api::paging const& page,
                                        api::model_spec const& model)
{
    auto const what = std::string(model.name);
    page_rows out;
    auto stmt = db_.prepare(select + " LIMIT ? OFFSET ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    stmt->bind(1, workflow_id);
    stmt->bind(2, page.limit);
    stmt->bind(3, page.offset);
    while (true) {
        auto row = stmt->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) break;
        out.items.push_back(detail::read_record(*stmt, model));
    }
    auto total = detail::scalar(db_, count, {workflow_id}, what);
    if (!total) return total.error();
    out.total_count = *total ? std::get<std::int64_t>(**total) : 0;
    return out;
}

api_result<page_rows> store::job_dependencies(std::int64_t workflow_id, api::paging const& page)
{
    return query_page("SELECT d.job_id, j.name, d.depends_on_job_id, u.name, j.workflow_id "
                      "FROM job_depends_on d JOIN job j ON j.id = d.job_id "
                      "JOIN job u ON u.id = d.depends_on_job_id "
                      "WHERE j.workflow_id = ? ORDER BY d.job_id, d.rowid",
                      "SELECT COUNT(*) FROM job_depends_on d JOIN job j ON j.id = d.job_id "
                      "WHERE j.workflow_id = ?",
                      workflow_id, page, api::job_dependency_model);
}

api_result<page_rows> store::job_file_relationships(std::int64_t workflow_id,
                                                    api::paging const& page)
{
    std::string const from =
        " FROM file f "
        "LEFT JOIN job_output_file p ON p.file_id = f.id LEFT JOIN job pj ON pj.id = p.job_id "
        "LEFT JOIN job_input_file c ON c.file_id = f.id LEFT JOIN job cj ON cj.id = c.job_id "
        "WHERE f.workflow_id = ?";
    return query_page(
        "SELECT f.id, f.name, f.path, p.job_id, pj.name, c.job_id, cj.name, f.workflow_id" + from +
            " ORDER BY f.id, p.job_id, c.job_id",
        "SELECT COUNT(*)" + from, workflow_id, page, api::job_file_relationship_model);
}

api_result<page_rows> store::job_user_data_relationships(std::int64_t workflow_id,
                                                         api::paging const& page)
{
    std::string const from = " FROM user_data u "
                             "LEFT JOIN job_output_user_data p ON p.user_data_id = u.id "
                             "LEFT JOIN job pj ON pj.id = p.job_id "
                             "LEFT JOIN job_input_user_data c ON c.user_data_id = u.id "
                             "LEFT JOIN job cj ON cj.id = c.job_id "
                             "WHERE u.workflow_id = ?";
    return query_page("SELECT u.id, u.name, p.job_id, pj.name, c.job_id, cj.name, u.workflow_id" +
                          from + " ORDER BY u.id, p.job_id, c.job_id",
                      "SELECT COUNT(*)" + from, workflow_id, page,
                      api::job_user_data_relationship_model);
}

}  // namespace torcrun::io
