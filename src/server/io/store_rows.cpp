// Cells in and out of SQLite statements, failures as HTTP answers, savepoints: the small pieces
// every store operation is built from.
#include "store_detail.hpp"

#include "torcrun/server/model_json.hpp"

#include <sqlite3.h>

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
    for (auto name : columns(model)) {
        if (!out.empty()) out += ", ";
        out += name;
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

api_result<savepoint> savepoint::begin(sqlite::connection& db, std::string_view what)
{
    if (auto done = db.exec("SAVEPOINT store_op"); !done) return to_api_error(done.error(), what);
    return savepoint(&db);
}

savepoint::~savepoint()
{
    if (db_ == nullptr) return;
    (void)db_->exec("ROLLBACK TO store_op");
    (void)db_->exec("RELEASE store_op");
}

api_result<void> savepoint::commit(std::string_view what)
{
    auto done = db_->exec("RELEASE store_op");
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
