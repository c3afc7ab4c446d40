// The SQLite wrapper of sqlite.hpp. Every connection is configured the same way on open: WAL,
// synchronous=NORMAL, foreign keys on, busy timeout.
#include "torcrun/common/io/sqlite.hpp"

#include <boost/assert.hpp>

#include <sqlite3.h>

#include <stdexcept>

namespace torcrun::io::sqlite {
namespace {

failure make_failure(sqlite3* db, int rc, std::string_view sql)
{
    failure f;
    f.extended_code = db != nullptr ? sqlite3_extended_errcode(db) : rc;
    f.code = f.extended_code & 0xFF;
    std::string const text = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    f.message = "sqlite: " + text;
    if (!sql.empty()) f.message += " [" + std::string(sql) + "]";
    return f;
}

}  // namespace

void throw_exception_from_error(failure const& f, boost::source_location const&)
{
    throw std::runtime_error(f.message);
}

// ---- statement -----------------------------------------------------------------------------

statement::statement(statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), db_(std::exchange(other.db_, nullptr))
{
}

statement& statement::operator=(statement&& other) noexcept
{
    if (this != &other) {
        sqlite3_finalize(stmt_);
        stmt_ = std::exchange(other.stmt_, nullptr);
        db_ = std::exchange(other.db_, nullptr);
    }
    return *this;
}

statement::~statement() { sqlite3_finalize(stmt_); }

statement& statement::bind(int index, std::int64_t value)
{
    [[maybe_unused]] int const rc = sqlite3_bind_int64(stmt_, index, value);
    BOOST_ASSERT(rc == SQLITE_OK);
    return *this;
}

statement& statement::bind(int index, double value)
{
    [[maybe_unused]] int const rc = sqlite3_bind_double(stmt_, index, value);
    BOOST_ASSERT(rc == SQLITE_OK);
    return *this;
}

statement& statement::bind(int index, std::string_view value)
{
    [[maybe_unused]] int const rc = sqlite3_bind_text64(stmt_, index, value.data(), value.size(),
                                                        SQLITE_TRANSIENT, SQLITE_UTF8);
    BOOST_ASSERT(rc == SQLITE_OK);
    return *this;
}

statement& statement::bind_null(int index)
{
    [[maybe_unused]] int const rc = sqlite3_bind_null(stmt_, index);
    BOOST_ASSERT(rc == SQLITE_OK);
    return *this;
}

result<bool> statement::step()
{
    int const rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    auto f = fail(rc);
    sqlite3_reset(stmt_);
    return f;
}

result<void> statement::run()
{
    while (true) {
        auto more = step();
        if (!more) return more.error();
        if (!*more) return {};
    }
}

void statement::reset()
{
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

int statement::column_count() const { return sqlite3_column_count(stmt_); }
bool statement::is_null(int column) const
{
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}
bool statement::is_integer(int column) const
{
    return sqlite3_column_type(stmt_, column) == SQLITE_INTEGER;
}
bool statement::is_real(int column) const
{
    return sqlite3_column_type(stmt_, column) == SQLITE_FLOAT;
}
std::int64_t statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }
double statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string statement::text(int column) const
{
    auto const* data = sqlite3_column_text(stmt_, column);
    auto const size = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
    return data == nullptr ? std::string() : std::string(reinterpret_cast<char const*>(data), size);
}

std::string statement::sql() const
{
    auto const* text = sqlite3_sql(stmt_);
    return text == nullptr ? std::string() : std::string(text);
}

failure statement::fail(int rc) const { return make_failure(db_, rc, sql()); }

// ---- connection ----------------------------------------------------------------------------

result<connection> connection::open(std::string const& path, open_options const& options)
{
    sqlite3* db = nullptr;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    if (options.create) flags |= SQLITE_OPEN_CREATE;
    int const rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    connection conn(db);
    if (rc != SQLITE_OK) {
        auto f = make_failure(db, rc, {});
        f.message += " (opening \"" + path + "\")";
        return f;
    }
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, options.busy_timeout_ms);
    for (auto const* pragma :
         {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"}) {
        if (auto done = conn.exec(pragma); !done) return done.error();
    }
    return conn;
}

connection::connection(connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), cache_(std::move(other.cache_))
{
}

connection& connection::operator=(connection&& other) noexcept
{
    if (this != &other) {
        close();
        db_ = std::exchange(other.db_, nullptr);
        cache_ = std::move(other.cache_);
    }
    return *this;
}

connection::~connection() { close(); }

void connection::close()
{
    cache_.clear();  // statements first: sqlite3_close refuses while any is unfinalized
    if (db_ != nullptr) sqlite3_close(db_);
    db_ = nullptr;
}

result<void> connection::exec(std::string_view sql)
{
    std::string const text(sql);
    char* error = nullptr;
    int const rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
    sqlite3_free(error);
    if (rc != SQLITE_OK) return make_failure(db_, rc, sql);
    return {};
}

result<statement> connection::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    int const rc =
        sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) return make_failure(db_, rc, sql);
    return statement(stmt, db_);
}

result<statement*> connection::cached(std::string_view sql)
{
    if (auto it = cache_.find(sql); it != cache_.end()) {
        it->second->reset();
        return it->second.get();
    }
    auto stmt = prepare(sql);
    if (!stmt) return stmt.error();
    auto& slot = cache_[std::string(sql)];
    slot = std::make_unique<statement>(std::move(*stmt));
    return slot.get();
}

std::int64_t connection::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
std::int64_t connection::changes() const { return sqlite3_changes64(db_); }

// ---- transaction ---------------------------------------------------------------------------

result<transaction> transaction::begin(connection& db, kind k)
{
    auto done = db.exec(k == kind::immediate ? "BEGIN IMMEDIATE" : "BEGIN");
    if (!done) return done.error();
    return transaction(&db);
}

transaction::~transaction() { rollback(); }

result<void> transaction::commit()
{
    if (db_ == nullptr) return failure{0, 0, "sqlite: commit without an open transaction"};
    auto done = db_->exec("COMMIT");
    if (!done) return done;
    db_ = nullptr;
    return {};
}

void transaction::rollback()
{
    if (db_ == nullptr) return;
    // A failed COMMIT leaves the transaction open; ROLLBACK then undoes it. Its own failure
    // (no transaction active after an automatic rollback) leaves nothing to undo.
    (void)db_->exec("ROLLBACK");
    db_ = nullptr;
}

}  // namespace torcrun::io::sqlite
