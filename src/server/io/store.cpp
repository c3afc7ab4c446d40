// The store: opening the database, the generic operations every plain resource uses, and
// creating a workflow. SQL is built only from the model tables' names (never from request text);
// values are always bound.
//
// Also the small pieces every store operation is built from (store_detail.hpp): cells in and out
// of SQLite statements, failures as HTTP answers, savepoints.
#include "ready_jobs.hpp"
#include "store_detail.hpp"

#include "torcrun/server/model_json.hpp"

#include <sqlite3.h>

#include <unordered_map>

namespace torcrun::io::detail {

api::api_error to_api_error(sqlite::failure const& f, std::string_view what)
{
    auto const prefix = std::string(what) + ": ";
    switch (f.extended_code) {
    case SQLITE_CONSTRAINT_FOREIGNKEY:
        return api::conflict(prefix + "other records still refer to it (" + f.message + ")");
    default:
        break;
    }
    if (f.code == SQLITE_CONSTRAINT) return api::unprocessable(prefix + f.message);
    if (f.code == SQLITE_BUSY || f.code == SQLITE_LOCKED) {
        return api::api_error{503, prefix + "the database is busy, try again (" + f.message + ")"};
    }
    return api::internal_error(prefix + f.message);
}

void bind_cell(sqlite::statement& stmt, int index, api::cell const& value)
{
    std::visit(
        [&](auto const& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                stmt.bind_null(index);
            } else if constexpr (std::is_same_v<T, api::id_list>) {
                stmt.bind(index, std::string_view(api::json_ids(v)));
            } else if constexpr (std::is_same_v<T, std::string>) {
                stmt.bind(index, std::string_view(v));
            } else {
                stmt.bind(index, v);
            }
        },
        value);
}

api::cell read_cell(sqlite::statement const& stmt, int column)
{
    if (stmt.is_null(column)) return std::monostate{};
    if (stmt.is_integer(column)) return stmt.int64(column);
    if (stmt.is_real(column)) return stmt.real(column);
    return stmt.text(column);
}

std::vector<std::string_view> columns(api::model_spec const& model)
{
    std::vector<std::string_view> out;
    for (auto const& f : model.fields) {
        if (f.storage != api::field_storage::link) out.push_back(f.name);
    }
    return out;
}

std::vector<std::string_view> writable_columns(api::model_spec const& model)
{
    std::vector<std::string_view> out;
    for (auto const& f : model.fields) {
        if (f.storage == api::field_storage::column && f.name != "id") out.push_back(f.name);
    }
    out.insert(out.end(), model.hidden_columns.begin(), model.hidden_columns.end());
    return out;
}

std::string column_list(api::model_spec const& model)
{
    std::string out;
    for (auto const& f : model.fields) {
        if (f.storage == api::field_storage::link) continue;
        if (!out.empty()) out += ", ";
        if (!f.sql.empty()) out += std::string(f.sql) + " AS ";
        out += f.name;
    }
    return out;
}

api::record read_record(sqlite::statement const& stmt, api::model_spec const& model)
{
    api::record row;
    int i = 0;
    for (auto name : columns(model)) row.set(name, read_cell(stmt, i++));
    return row;
}

sqlite::result<void> run_prepared(sqlite::connection& db, std::string const& sql)
{
    auto stmt = db.cached(sql);
    if (!stmt) return stmt.error();
    auto done = (*stmt)->run();
    (*stmt)->reset();
    return done;
}

namespace {

std::string const savepoint_sql = "SAVEPOINT store_op";
std::string const rollback_sql = "ROLLBACK TO store_op";
std::string const release_sql = "RELEASE store_op";

}  // namespace

api_result<savepoint> savepoint::begin(sqlite::connection& db, std::string_view what)
{
    if (auto done = run_prepared(db, savepoint_sql); !done) return to_api_error(done.error(), what);
    return savepoint(&db);
}

savepoint::~savepoint()
{
    if (db_ == nullptr) return;
    (void)run_prepared(*db_, rollback_sql);
    (void)run_prepared(*db_, release_sql);
}

api_result<void> savepoint::commit(std::string_view what)
{
    auto done = run_prepared(*db_, release_sql);
    if (!done) return to_api_error(done.error(), what);
    db_ = nullptr;
    return {};
}

api_result<std::optional<api::cell>> scalar(sqlite::connection& db, std::string const& sql,
                                            std::vector<api::cell> const& args,
                                            std::string_view what)
{
    auto stmt = db.cached(sql);
    if (!stmt) return to_api_error(stmt.error(), what);
    int index = 1;
    for (auto const& a : args) bind_cell(**stmt, index++, a);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), what);
    std::optional<api::cell> out;
    if (*row) out = read_cell(**stmt, 0);
    (*stmt)->reset();
    return out;
}

}  // namespace torcrun::io::detail

namespace torcrun::io {

using api::api_error;
using api::record;
using detail::to_api_error;

namespace {

std::string where_clause(std::vector<sql_filter> const& filters)
{
    std::string out;
    for (auto const& f : filters) out += (out.empty() ? " WHERE (" : " AND (") + f.condition + ")";
    return out;
}

void bind_filters(sqlite::statement& stmt, std::vector<sql_filter> const& filters, int& index)
{
    for (auto const& f : filters) {
        if (!std::holds_alternative<std::monostate>(f.value))
            detail::bind_cell(stmt, index++, f.value);
    }
}

void bind_or_null(sqlite::statement& stmt, int index, api::cell const* value)
{
    if (value == nullptr) {
        stmt.bind_null(index);
    } else {
        detail::bind_cell(stmt, index, *value);
    }
}

std::string no_row(std::string_view what, std::string_view table, std::int64_t id)
{
    return std::string(what) + ": no " + std::string(table) + " with id " + std::to_string(id);
}

// A second row with the same (workflow_id, name) is the client's mistake, named as such.
api_error insert_failure(sqlite::failure const& f, record const& fields, std::string_view what)
{
    auto const* name = fields.text("name");
    auto const wf = fields.int64("workflow_id");
    if (f.extended_code == SQLITE_CONSTRAINT_UNIQUE && name != nullptr && wf) {
        return api::unprocessable(std::string(what) + ": field \"name\": \"" + *name +
                                  "\" already exists in workflow " + std::to_string(*wf));
    }
    return to_api_error(f, what);
}

}  // namespace

core::result<store> store::open(std::string const& path)
{
    auto db = sqlite::connection::open(path);
    if (!db) return core::error{"store: " + db.error().message};
    // A page cache of up to 64 MiB (SQLite's default is 2 MiB, filled only as pages are read):
    // a workflow of 100,000 jobs and its indexes outgrow 2 MiB, and then every claim and every
    // transition reads its pages back from the OS, and a large creation batch spills its dirty
    // pages into the WAL and writes them again at commit. Durability is unchanged.
    if (auto done = db->exec("PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY"); !done)
        return core::error{"store: " + done.error().message};
    if (auto migrated = detail::migrate(*db); !migrated) return migrated.error();
    store out(std::move(*db));
    auto ready = detail::ready_jobs::attach(out.db_);
    if (!ready) return ready.error();
    out.ready_ = std::move(*ready);
    return out;
}

store::store(sqlite::connection db) : db_(std::move(db)) {}

store::store(store&& other) noexcept
    : db_(std::move(other.db_)),
      ready_(std::move(other.ready_)),
      batch_owned_(other.batch_owned_),
      reserved_jobs_(other.reserved_jobs_)
{
    if (ready_) ready_->rebind(db_);
}

store& store::operator=(store&& other) noexcept
{
    if (this == &other) return *this;
    ready_.reset();  // its hooks and triggers leave this connection before it closes
    db_ = std::move(other.db_);
    ready_ = std::move(other.ready_);
    batch_owned_ = other.batch_owned_;
    reserved_jobs_ = other.reserved_jobs_;
    if (ready_) ready_->rebind(db_);
    return *this;
}

store::~store() { ready_.reset(); }

api_result<void> store::require_workflow(std::int64_t id, std::string_view what)
{
    auto found = detail::scalar(db_, "SELECT 1 FROM workflow WHERE id = ?", {id}, what);
    if (!found) return found.error();
    if (!*found) return api::not_found(no_row(what, "workflow", id));
    return {};
}

api_result<void> store::check_owner(std::string_view table, std::int64_t id,
                                    std::int64_t workflow_id, std::string const& context)
{
    if (table == "workflow") return require_workflow(id, context);
    if (reserved_jobs_ && table == "job" && reserved_jobs_->holds(id)) return {};
    if (batch_owned_ && batch_owned_->contains({table, id})) return {};
    auto owner = detail::scalar(
        db_, "SELECT workflow_id FROM " + std::string(table) + " WHERE id = ?", {id}, context);
    if (!owner) return owner.error();
    if (!*owner) return api::not_found(no_row(context, table, id));
    auto const owner_id = std::get<std::int64_t>(**owner);
    if (owner_id != workflow_id) {
        return api::unprocessable(context + ": " + std::string(table) + " " + std::to_string(id) +
                                  " belongs to workflow " + std::to_string(owner_id) + ", not " +
                                  std::to_string(workflow_id));
    }
    if (batch_owned_) batch_owned_->emplace(table, id);
    return {};
}

api_result<void> store::check_references(api::model_spec const& model, record const& fields,
                                         std::int64_t workflow_id, std::string_view what)
{
    for (auto const& f : model.fields) {
        if (f.references.empty() || !fields.has_value(f.name)) continue;
        api::id_list ids;
        if (auto const* list = fields.ids(f.name)) ids = *list;
        if (auto one = fields.int64(f.name)) ids.push_back(*one);
        auto const context = std::string(what) + ": field \"" + std::string(f.name) + "\"";
        for (auto id : ids) {
            if (auto ok = check_owner(f.references, id, workflow_id, context); !ok) return ok;
        }
    }
    return {};
}

namespace {

// The SQL text of a model's insert and of its read by id, built once per model (the model tables
// are constants, so the text never changes) instead of on every call.
struct model_sql {
    std::vector<std::string_view> writable;
    std::string insert;
    std::string insert_with_id;  // the same with the row's id given (jobs at reserved ids)
    std::string get;
};

model_sql const& sql_of(api::model_spec const& model)
{
    static std::unordered_map<api::model_spec const*, model_sql> built;
    auto [it, fresh] = built.try_emplace(&model);
    if (!fresh) return it->second;
    auto& out = it->second;
    // One statement per model, every writable column bound (NULL when absent), so the cache of
    // prepared statements cannot grow with the shapes of request bodies.
    std::string names, marks;
    out.writable = detail::writable_columns(model);
    for (auto name : out.writable) {
        names += (names.empty() ? "" : ", ") + std::string(name);
        marks += marks.empty() ? "?" : ", ?";
    }
    out.insert = "INSERT INTO " + std::string(model.table) + " (" + names + ") VALUES (" + marks + ")";
    out.insert_with_id = "INSERT INTO " + std::string(model.table) + " (id, " + names +
                         ") VALUES (?, " + marks + ")";
    out.get = "SELECT " + detail::column_list(model) + " FROM " + std::string(model.table) +
              " WHERE id = ?";
    return out;
}

}  // namespace

api_result<std::int64_t> store::insert_row(api::model_spec const& model, record const& fields,
                                           std::string_view what, std::optional<std::int64_t> id,
                                           bool references_checked)
{
    if (auto wf = fields.int64("workflow_id"); wf && !references_checked) {
        if (auto ok = check_references(model, fields, *wf, what); !ok) return ok.error();
    }
    auto const& sql = sql_of(model);
    auto stmt = db_.cached(id ? sql.insert_with_id : sql.insert);
    if (!stmt) return to_api_error(stmt.error(), what);
    int index = 1;
    if (id) (*stmt)->bind(index++, *id);
    for (auto name : sql.writable) bind_or_null(**stmt, index++, fields.find(name));
    if (auto done = (*stmt)->run(); !done) return insert_failure(done.error(), fields, what);
    return db_.last_insert_rowid();
}

api_result<record> store::insert(api::model_spec const& model, record const& fields,
                                 std::string_view what)
{
    auto id = insert_row(model, fields, what);
    if (!id) return id.error();
    return get(model, *id, what);
}

api_result<record> store::get(api::model_spec const& model, std::int64_t id, std::string_view what)
{
    auto stmt = db_.cached(sql_of(model).get);
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, id);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), what);
    if (!*row) return api::not_found(no_row(what, model.table, id));
    auto out = detail::read_record(**stmt, model);
    (*stmt)->reset();
    return out;
}

api_result<page_rows> store::list(api::model_spec const& model, list_query const& query,
                                  std::string_view what)
{
    auto const table = std::string(model.table);
    auto const where = where_clause(query.where);
    auto const direction = query.page.reverse_sort ? " DESC" : " ASC";
    auto order = " ORDER BY " + query.page.sort_by.value_or("id") + direction;
    if (query.page.sort_by && *query.page.sort_by != "id") order += std::string(", id") + direction;

    page_rows out;
    auto stmt = db_.prepare("SELECT " + detail::column_list(model) + " FROM " + table + where +
                            order + " LIMIT ? OFFSET ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    int index = 1;
    bind_filters(*stmt, query.where, index);
    stmt->bind(index, query.page.limit);
    stmt->bind(index + 1, query.page.offset);
    while (true) {
        auto row = stmt->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) break;
        out.items.push_back(detail::read_record(*stmt, model));
    }
    auto count = db_.prepare("SELECT COUNT(*) FROM " + table + where);
    if (!count) return to_api_error(count.error(), what);
    index = 1;
    bind_filters(*count, query.where, index);
    auto row = count->step();
    if (!row) return to_api_error(row.error(), what);
    out.total_count = count->int64(0);
    return out;
}

api_result<record> store::update(api::model_spec const& model, std::int64_t id,
                                 record const& fields, std::string_view what)
{
    auto existing = get(model, id, what);
    if (!existing) return existing.error();
    auto const old_wf = existing->int64("workflow_id");
    auto const new_wf = fields.int64("workflow_id");
    if (old_wf && new_wf && *old_wf != *new_wf) {
        return api::unprocessable(std::string(what) + ": field \"workflow_id\": cannot move " +
                                  std::string(model.table) + " " + std::to_string(id) +
                                  " from workflow " + std::to_string(*old_wf) + " to workflow " +
                                  std::to_string(*new_wf));
    }
    if (old_wf) {
        if (auto ok = check_references(model, fields, *old_wf, what); !ok) return ok.error();
    }
    // NULL keeps the stored value: a PUT writes the fields it carries (decode drops nulls).
    std::string sets;
    auto const writable = detail::writable_columns(model);
    for (auto name : writable) {
        sets += (sets.empty() ? "" : ", ") + std::string(name) + " = COALESCE(?, " +
                std::string(name) + ")";
    }
    auto stmt = db_.cached("UPDATE " + std::string(model.table) + " SET " + sets + " WHERE id = ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    int index = 1;
    for (auto name : writable) bind_or_null(**stmt, index++, fields.find(name));
    (*stmt)->bind(index, id);
    record named = fields;
    if (old_wf) named.set("workflow_id", *old_wf);
    if (auto done = (*stmt)->run(); !done) return insert_failure(done.error(), named, what);
    return get(model, id, what);
}

api_result<record> store::remove(api::model_spec const& model, std::int64_t id,
                                 std::string_view what)
{
    auto existing = get(model, id, what);
    if (!existing) return existing.error();
    auto stmt = db_.cached("DELETE FROM " + std::string(model.table) + " WHERE id = ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, id);
    if (auto done = (*stmt)->run(); !done) return to_api_error(done.error(), what);
    return existing;
}

api_result<std::int64_t> store::remove_all(api::model_spec const& model, std::int64_t workflow_id,
                                           std::string_view what)
{
    auto stmt = db_.cached("DELETE FROM " + std::string(model.table) + " WHERE workflow_id = ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, workflow_id);
    if (auto done = (*stmt)->run(); !done) return to_api_error(done.error(), what);
    return db_.changes();
}

// Creating a workflow: its row, its status row and its `default` resource requirements, as Torc's
// POST /workflows does (docs/TORC-COMPATIBILITY.md §2.2, §4.2, §4.9). The status row shares the
// workflow's id (workflow.status_id is generated from id) and starts at run_id 0, as in Torc.
api_result<record> store::create_workflow(record const& fields, std::string const& timestamp,
                                          std::string_view what,
                                          std::vector<std::string> const& access_groups)
{
    auto sp = detail::savepoint::begin(db_, what);
    if (!sp) return sp.error();
    record row = fields;
    row.set("timestamp", timestamp);
    auto workflow = insert(api::workflow_model, row, what);
    if (!workflow) return workflow.error();
    auto const id = *workflow->int64("id");

    auto status = db_.cached("INSERT INTO workflow_status (id, run_id) VALUES (?, 0)");
    if (!status) return to_api_error(status.error(), what);
    (*status)->bind(1, id);
    if (auto done = (*status)->run(); !done) return to_api_error(done.error(), what);

    auto rr = db_.cached(
        "INSERT INTO resource_requirements (workflow_id, name, num_cpus, num_gpus, num_nodes, "
        "memory, runtime, memory_bytes, runtime_s) "
        "VALUES (?, 'default', 1, 0, 1, '1m', 'P0DT1M', 1048576, 60)");
    if (!rr) return to_api_error(rr.error(), what);
    (*rr)->bind(1, id);
    if (auto done = (*rr)->run(); !done) return to_api_error(done.error(), what);

    for (auto const& group : access_groups) {
        auto share = db_.cached(
            "INSERT INTO workflow_access_group (workflow_id, group_id, created_at) "
            "SELECT ?, id, ? FROM access_group WHERE name = ?");
        if (!share) return to_api_error(share.error(), what);
        (*share)->bind(1, id).bind(2, timestamp).bind(3, group);
        if (auto done = (*share)->run(); !done) return to_api_error(done.error(), what);
        if (db_.changes() == 0)  // the savepoint rolls the workflow back
            return api::unprocessable(std::string(what) + ": field \"access_groups\": group " +
                                      api::json_quote(group) +
                                      " does not exist (an admin creates it with POST "
                                      "/access_groups)");
    }

    if (auto done = sp->commit(what); !done) return done.error();
    return get(api::workflow_model, id, what);  // read again: run_id and the flags are there now
}

}  // namespace torcrun::io
