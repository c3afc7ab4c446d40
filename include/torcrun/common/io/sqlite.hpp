// A small RAII layer over the SQLite C API: a connection, prepared statements with typed bind
// and column access, and a transaction guard. Failures are values whose message carries
// SQLite's text and the SQL (`sqlite: UNIQUE constraint failed: t.name [INSERT INTO t ...]`);
// binding to a valid statement cannot fail except by programming error (asserted).
//
// Durability: connections run in WAL mode with synchronous=NORMAL. A commit returns after the
// transaction is appended to the WAL with write(); the kernel keeps those pages when the process
// dies, so an acknowledged commit survives kill -9 (tested). Only an OS crash or power loss can
// lose the last commits before the next checkpoint's fsync. SQLite opens every file (database,
// -wal, -shm) with O_CLOEXEC, so child processes inherit none of them (tested).
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

struct sqlite3;
struct sqlite3_stmt;

namespace torcrun::io::sqlite {

// SQLite's primary result code of the last failure (SQLITE_CONSTRAINT = 19, ...), so callers
// can turn constraint failures into 4xx answers.
struct failure {
    // Not an aggregate, so that result<bool> and result<std::int64_t> convert from values
    // (C++20 parenthesized aggregate init would make them ambiguous).
    failure() = default;
    failure(int c, int ext, std::string m) : code(c), extended_code(ext), message(std::move(m)) {}

    int code = 0;           // primary code
    int extended_code = 0;  // e.g. SQLITE_CONSTRAINT_FOREIGNKEY
    std::string message;    // "sqlite: <errmsg> [<sql>]"
};

template <class T>
using result = boost::system::result<T, failure>;

[[noreturn]] void throw_exception_from_error(failure const& f, boost::source_location const& loc);

class statement {
public:
    statement() = default;
    statement(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) {}
    statement(statement&& other) noexcept;
    statement& operator=(statement&& other) noexcept;
    statement(statement const&) = delete;
    statement& operator=(statement const&) = delete;
    ~statement();

    // Parameters are 1-based, as in SQLite.
    statement& bind(int index, std::int64_t value);
    statement& bind(int index, double value);
    statement& bind(int index, std::string_view value);
    statement& bind_null(int index);

    // true: a row is available; false: done.
    result<bool> step();
    // Steps to the end, for statements that return no rows.
    result<void> run();
    // Back to the start with all parameters NULL, ready for the next bind.
    void reset();

    int column_count() const;
    bool is_null(int column) const;
    bool is_integer(int column) const;
    bool is_real(int column) const;
    std::int64_t int64(int column) const;
    double real(int column) const;
    std::string text(int column) const;

    std::string sql() const;

private:
    failure fail(int rc) const;
    sqlite3_stmt* stmt_ = nullptr;
    sqlite3* db_ = nullptr;
};

struct open_options {
    int busy_timeout_ms = 5000;
    bool create = true;
};

class connection {
public:
    // ":memory:" gives a private in-memory database (WAL does not apply there).
    static result<connection> open(std::string const& path, open_options const& options = {});

    connection() = default;
    connection(connection&& other) noexcept;
    connection& operator=(connection&& other) noexcept;
    ~connection();

    result<void> exec(std::string_view sql);
    result<statement> prepare(std::string_view sql);
    // A statement kept for the connection's lifetime, reset and ready to bind. The reference stays
    // valid until the connection closes; do not interleave two uses of the same SQL.
    // Looked up by the text itself: a literal costs no std::string per call.
    result<statement*> cached(std::string_view sql);

    std::size_t cached_count() const { return cache_.size(); }

    std::int64_t last_insert_rowid() const;
    std::int64_t changes() const;
    sqlite3* native() const { return db_; }

private:
    explicit connection(sqlite3* db) : db_(db) {}
    void close();
    sqlite3* db_ = nullptr;
    // Transparent hash and equality, so that cached(string_view) finds without a copy.
    struct sql_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view sql) const noexcept
        {
            return std::hash<std::string_view>{}(sql);
        }
    };
    std::unordered_map<std::string, std::unique_ptr<statement>, sql_hash, std::equal_to<>> cache_;
};

// BEGIN (deferred) or BEGIN IMMEDIATE on construction; ROLLBACK in the destructor unless
// commit() succeeded. IMMEDIATE takes the write lock up front so two writers never deadlock on
// an upgrade; busy_timeout makes a second writer wait instead of failing.
class transaction {
public:
    enum class kind { deferred, immediate };
    static result<transaction> begin(connection& db, kind k = kind::immediate);

    transaction(transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
    transaction& operator=(transaction&&) = delete;
    ~transaction();

    result<void> commit();
    void rollback();

private:
    explicit transaction(connection* db) : db_(db) {}
    connection* db_ = nullptr;
};

}  // namespace torcrun::io::sqlite
