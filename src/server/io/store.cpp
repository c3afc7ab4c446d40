// Opening the database and the generic operations every plain resource uses. SQL is built only
// from the model tables' names (never from request text); values are always bound.
#include "store_detail.hpp"

#include <sqlite3.h>

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
    if (auto migrated = detail::migrate(*db); !migrated) return migrated.error();
    return store(std::move(*db));
}

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

api_result<record> store::insert(api::model_spec const& model, record const& fields,
                                 std::string_view what)
{
    if (auto wf = fields.int64("workflow_id")) {
        if (auto ok = check_references(model, fields, *wf, what); !ok) return ok.error();
    }
    // One statement per model, every writable column bound (NULL when absent), so the cache of
    // prepared statements cannot grow with the shapes of request bodies.
    std::string names, marks;
    auto const writable = detail::writable_columns(model);
    for (auto name : writable) {
        names += (names.empty() ? "" : ", ") + std::string(name);
        marks += marks.empty() ? "?" : ", ?";
    }
    auto stmt = db_.cached("INSERT INTO " + std::string(model.table) + " (" + names + ") VALUES (" +
                           marks + ")");
    if (!stmt) return to_api_error(stmt.error(), what);
    int index = 1;
    for (auto name : writable) bind_or_null(**stmt, index++, fields.find(name));
    if (auto done = (*stmt)->run(); !done) return insert_failure(done.error(), fields, what);
    return get(model, db_.last_insert_rowid(), what);
}

api_result<record> store::get(api::model_spec const& model, std::int64_t id, std::string_view what)
{
    auto stmt = db_.cached("SELECT " + detail::column_list(model) + " FROM " +
                           std::string(model.table) + " WHERE id = ?");
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

}  // namespace torcrun::io
