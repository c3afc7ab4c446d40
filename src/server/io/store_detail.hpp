// Helpers shared by the store's translation units. Internal to src/server/io.
#pragma once

#include "torcrun/server/io/store.hpp"

#include <string>
#include <vector>

namespace torcrun::io::detail {

// Applies the schema migrations newer than the database's schema_version.
core::result<void> migrate(sqlite::connection& db);
// The newest schema version this build knows.
int schema_version();

// SQLite failures as HTTP answers: a constraint failure is the client's (409/422), anything
// else is 500; the message starts with `what`.
api::api_error to_api_error(sqlite::failure const& f, std::string_view what);

// Binds a cell; an id list is bound as its JSON text.
void bind_cell(sqlite::statement& stmt, int index, api::cell const& value);
// Column `i` as a cell by its storage type.
api::cell read_cell(sqlite::statement const& stmt, int column);

// The model's columns as SELECT reads them (no links, no hidden columns), in table order.
std::vector<std::string_view> columns(api::model_spec const& model);
// The columns INSERT and UPDATE write: stored fields but id, then the hidden columns.
std::vector<std::string_view> writable_columns(api::model_spec const& model);
std::string column_list(api::model_spec const& model);
// Reads one row of a `SELECT <column_list(model)>` into a record.
api::record read_record(sqlite::statement const& stmt, api::model_spec const& model);

// A SAVEPOINT released on commit() and rolled back otherwise; nests inside transactions.
class savepoint {
public:
    static api_result<savepoint> begin(sqlite::connection& db, std::string_view what);
    savepoint(savepoint&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
    savepoint& operator=(savepoint&&) = delete;
    ~savepoint();
    api_result<void> commit(std::string_view what);

private:
    explicit savepoint(sqlite::connection* db) : db_(db) {}
    sqlite::connection* db_ = nullptr;
};

// Runs a statement without rows (SAVEPOINT, RELEASE, ROLLBACK TO) prepared once, from the
// connection's statement cache, instead of parsed by sqlite3_exec on every use: batch_complete_jobs
// opens a savepoint per completion, the group commit one per request.
sqlite::result<void> run_prepared(sqlite::connection& db, std::string const& sql);

// Runs a statement prepared from `sql` with `args` bound in order and returns the first
// column of the first row, if any row.
api_result<std::optional<api::cell>> scalar(sqlite::connection& db, std::string const& sql,
                                            std::vector<api::cell> const& args,
                                            std::string_view what);

}  // namespace torcrun::io::detail
