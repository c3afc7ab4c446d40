// The SQLite wrapper: errors carry SQLite's text and the SQL, values round-trip, transactions
// roll back unless committed, every connection has WAL / synchronous=NORMAL / foreign keys /
// busy timeout, every file SQLite opens is close-on-exec, and a commit survives kill -9.
#include "torcrun/common/io/sqlite.hpp"

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <filesystem>
#include <limits>
#include <string>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sqlite = torcrun::io::sqlite;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(sqlite_wrapper)

struct temp_dir {
    fs::path path;
    temp_dir()
    {
        std::string pattern = (fs::temp_directory_path() / "torcrun-sqlite-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~temp_dir() { fs::remove_all(path); }
};

std::int64_t pragma(sqlite::connection& db, std::string const& name)
{
    auto stmt = db.prepare("PRAGMA " + name).value();
    BOOST_TEST_REQUIRE(stmt.step().value());
    return stmt.int64(0);
}

BOOST_AUTO_TEST_CASE(errors_name_the_sql)
{
    auto db = sqlite::connection::open(":memory:").value();
    auto bad = db.prepare("SELECT * FROM nope");
    BOOST_TEST_REQUIRE(bad.has_error());
    BOOST_TEST(bad.error().message == "sqlite: no such table: nope [SELECT * FROM nope]");
    BOOST_TEST(bad.error().code == 1);
    auto exec = db.exec("CREATE TABLE");
    BOOST_TEST_REQUIRE(exec.has_error());
    BOOST_TEST(exec.error().message == "sqlite: incomplete input [CREATE TABLE]");
}

BOOST_AUTO_TEST_CASE(constraint_failures_keep_their_codes)
{
    auto db = sqlite::connection::open(":memory:").value();
    BOOST_TEST_REQUIRE(db.exec("CREATE TABLE t (name TEXT UNIQUE)").has_value());
    BOOST_TEST_REQUIRE(db.exec("INSERT INTO t VALUES ('a')").has_value());
    auto stmt = db.prepare("INSERT INTO t VALUES (?)").value();
    stmt.bind(1, std::string_view("a"));
    auto done = stmt.run();
    BOOST_TEST_REQUIRE(done.has_error());
    BOOST_TEST(done.error().code == 19);             // SQLITE_CONSTRAINT
    BOOST_TEST(done.error().extended_code == 2067);  // SQLITE_CONSTRAINT_UNIQUE
    BOOST_TEST(done.error().message ==
               "sqlite: UNIQUE constraint failed: t.name [INSERT INTO t VALUES (?)]");
}

BOOST_AUTO_TEST_CASE(values_round_trip)
{
    auto db = sqlite::connection::open(":memory:").value();
    BOOST_TEST_REQUIRE(db.exec("CREATE TABLE t (i INTEGER, r REAL, s TEXT, n TEXT)").has_value());
    auto insert = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)").value();
    std::string const text("a\0b \xc3\xa9", 6);
    insert.bind(1, std::numeric_limits<std::int64_t>::min())
        .bind(2, 0.1)
        .bind(3, std::string_view(text))
        .bind_null(4);
    BOOST_TEST_REQUIRE(insert.run().has_value());
    BOOST_TEST(db.last_insert_rowid() == 1);
    BOOST_TEST(db.changes() == 1);
    auto select = db.prepare("SELECT i, r, s, n FROM t").value();
    BOOST_TEST_REQUIRE(select.step().value());
    BOOST_TEST(select.column_count() == 4);
    BOOST_TEST(select.is_integer(0));
    BOOST_TEST(select.int64(0) == std::numeric_limits<std::int64_t>::min());
    BOOST_TEST(select.is_real(1));
    BOOST_TEST(select.real(1) == 0.1);
    BOOST_TEST(select.text(2) == text);
    BOOST_TEST(select.is_null(3));
    BOOST_TEST(!select.step().value());
}

BOOST_AUTO_TEST_CASE(cached_statements_come_back_reset)
{
    auto db = sqlite::connection::open(":memory:").value();
    auto first = db.cached("SELECT ? + 1").value();
    first->bind(1, std::int64_t{41});
    BOOST_TEST_REQUIRE(first->step().value());
    BOOST_TEST(first->int64(0) == 42);
    auto again = db.cached("SELECT ? + 1").value();
    BOOST_TEST(again == first);
    BOOST_TEST_REQUIRE(again->step().value());
    BOOST_TEST(again->is_null(0));  // bindings were cleared
}

BOOST_AUTO_TEST_CASE(transactions_roll_back_unless_committed)
{
    auto db = sqlite::connection::open(":memory:").value();
    BOOST_TEST_REQUIRE(db.exec("CREATE TABLE t (x INTEGER)").has_value());
    {
        auto tx = sqlite::transaction::begin(db).value();
        BOOST_TEST_REQUIRE(db.exec("INSERT INTO t VALUES (1)").has_value());
    }
    {
        auto tx = sqlite::transaction::begin(db, sqlite::transaction::kind::deferred).value();
        BOOST_TEST_REQUIRE(db.exec("INSERT INTO t VALUES (2)").has_value());
        BOOST_TEST_REQUIRE(tx.commit().has_value());
        BOOST_TEST(tx.commit().has_error());  // nothing left to commit
    }
    auto stmt = db.prepare("SELECT group_concat(x) FROM t").value();
    BOOST_TEST_REQUIRE(stmt.step().value());
    BOOST_TEST(stmt.text(0) == "2");
}

BOOST_AUTO_TEST_CASE(file_connections_are_configured)
{
    temp_dir dir;
    auto db = sqlite::connection::open((dir.path / "t.db").string()).value();
    auto mode = db.prepare("PRAGMA journal_mode").value();
    BOOST_TEST_REQUIRE(mode.step().value());
    BOOST_TEST(mode.text(0) == "wal");
    BOOST_TEST(pragma(db, "synchronous") == 1);  // NORMAL
    BOOST_TEST(pragma(db, "foreign_keys") == 1);
    BOOST_TEST(pragma(db, "busy_timeout") == 5000);
}

BOOST_AUTO_TEST_CASE(open_failures_name_the_path)
{
    sqlite::open_options options;
    options.create = false;
    auto db = sqlite::connection::open("/nonexistent/dir/t.db", options);
    BOOST_TEST_REQUIRE(db.has_error());
    BOOST_TEST(db.error().message ==
               "sqlite: unable to open database file (opening \"/nonexistent/dir/t.db\")");
}

BOOST_AUTO_TEST_CASE(a_second_writer_waits_then_reports_busy)
{
    temp_dir dir;
    auto const path = (dir.path / "t.db").string();
    auto first = sqlite::connection::open(path).value();
    sqlite::open_options quick;
    quick.busy_timeout_ms = 50;
    auto second = sqlite::connection::open(path, quick).value();
    auto held = sqlite::transaction::begin(first).value();
    auto blocked = sqlite::transaction::begin(second);
    BOOST_TEST_REQUIRE(blocked.has_error());
    BOOST_TEST(blocked.error().code == 5);  // SQLITE_BUSY
    BOOST_TEST_REQUIRE(held.commit().has_value());
    BOOST_TEST(sqlite::transaction::begin(second).has_value());
}

// SQLite opens the database, -wal and -shm files with O_CLOEXEC: a child the daemon starts must
// not inherit them.
BOOST_AUTO_TEST_CASE(every_file_is_close_on_exec)
{
    temp_dir dir;
    auto db = sqlite::connection::open((dir.path / "t.db").string()).value();
    BOOST_TEST_REQUIRE(db.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)").has_value());
    int seen = 0;
    for (auto const& entry : fs::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        auto const target = fs::read_symlink(entry.path(), ec);
        if (ec || target.string().rfind(dir.path.string(), 0) != 0) continue;
        int const fd = std::stoi(entry.path().filename().string());
        BOOST_TEST((::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, target << " is inherited by children");
        ++seen;
    }
    BOOST_TEST(seen >= 3);  // t.db, t.db-wal, t.db-shm
}

// An acknowledged commit is in the WAL before COMMIT returns; kill -9 right after it loses
// nothing.
BOOST_AUTO_TEST_CASE(a_commit_survives_kill_9)
{
    temp_dir dir;
    auto const path = (dir.path / "t.db").string();
    pid_t const child = ::fork();
    BOOST_TEST_REQUIRE(child >= 0);
    if (child == 0) {
        auto db = sqlite::connection::open(path);
        bool ok = db && db->exec("CREATE TABLE t (x)").has_value();
        if (ok) {
            auto tx = sqlite::transaction::begin(*db);
            ok =
                tx && db->exec("INSERT INTO t VALUES (42)").has_value() && tx->commit().has_value();
        }
        if (!ok) ::_exit(3);
        ::raise(SIGKILL);
        ::_exit(4);
    }
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(child, &status, 0) == child);
    BOOST_TEST_REQUIRE(WIFSIGNALED(status));
    BOOST_TEST(WTERMSIG(status) == SIGKILL);
    BOOST_TEST(fs::file_size(path + "-wal") > 0u);  // the row was only in the WAL
    auto db = sqlite::connection::open(path).value();
    auto stmt = db.prepare("SELECT x FROM t").value();
    BOOST_TEST_REQUIRE(stmt.step().value());
    BOOST_TEST(stmt.int64(0) == 42);
}

BOOST_AUTO_TEST_SUITE_END()
