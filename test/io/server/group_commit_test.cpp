// Group commit (server_api.hpp, group_commits.hpp): requests handled together share one
// transaction, each in its own savepoint; nothing of the group is visible to another connection
// before commit_group(), a failed request leaves no trace while the others commit, a failed
// commit writes nothing and is reported, and over real HTTP no answer leaves the server before
// its change can be read from the database file by another connection.
#include "loopback.hpp"
#include "run_coro.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/common/io/sqlite.hpp"
#include "torcrun/server/io/http_server.hpp"
#include "torcrun/server/io/server_api.hpp"
#include "torcrun/server/io/store.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <stdlib.h>

namespace io = torcrun::io;
namespace api = torcrun::api;
namespace test = torcrun::test;
namespace net = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct temp_dir {
    fs::path path;
    temp_dir()
    {
        std::string pattern = (fs::temp_directory_path() / "torcrun-group-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~temp_dir() { fs::remove_all(path); }
};

struct reported {
    std::uint64_t group = 0;
    std::optional<std::string> failure;
};

// A server_api on a file-backed store with a commit listener, and a second connection to the
// same file that sees only what was committed.
struct grouped_fixture {
    temp_dir dir;
    io::store db = io::store::open((dir.path / "t.db").string()).value();
    io::server_api server{db};
    io::sqlite::connection other =
        io::sqlite::connection::open((dir.path / "t.db").string()).value();
    std::vector<reported> commits;

    grouped_fixture()
    {
        server.set_commit_listener(
            [this](std::uint64_t g, std::optional<std::string> const& f) { commits.push_back({g, f}); });
    }

    api::response call(std::string method, std::string path, std::string body = {})
    {
        api::request req;
        req.method = std::move(method);
        req.path = std::move(path);
        req.body = std::move(body);
        auto out = server.handle_grouped(req);
        BOOST_REQUIRE(std::holds_alternative<api::response>(out));
        return std::get<api::response>(out);
    }

    std::int64_t committed_workflows()
    {
        auto stmt = other.prepare("SELECT COUNT(*) FROM workflow");
        BOOST_REQUIRE(stmt.has_value());
        auto row = stmt->step();
        BOOST_REQUIRE(row.has_value() && *row);
        return stmt->int64(0);
    }
};

std::string workflow_body(std::string const& name)
{
    return R"({"name":")" + name + R"(","user":"u"})";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(group_commit)

BOOST_AUTO_TEST_CASE(requests_share_one_commit_and_a_failed_one_leaves_no_trace)
{
    grouped_fixture f;
    BOOST_TEST(f.call("POST", "/workflows", workflow_body("a")).status == 200u);
    auto const group = f.server.open_group();
    BOOST_TEST(group != 0u);
    BOOST_TEST(f.call("POST", "/workflows", "{not json").status == 400u);
    BOOST_TEST(f.call("POST", "/workflows", workflow_body("b")).status == 200u);
    // A GET while the group is open joins it and reads its writes.
    auto const listed = f.call("GET", "/workflows");
    BOOST_TEST(boost::json::parse(listed.body).at("total_count").as_int64() == 2);
    BOOST_TEST(f.server.open_group() == group);
    BOOST_TEST(f.committed_workflows() == 0);  // nothing is visible before the commit
    BOOST_TEST(f.commits.empty());

    f.server.commit_group();
    BOOST_REQUIRE_EQUAL(f.commits.size(), 1U);
    BOOST_TEST(f.commits[0].group == group);
    BOOST_TEST(!f.commits[0].failure.has_value());
    BOOST_TEST(f.server.open_group() == 0u);
    BOOST_TEST(f.committed_workflows() == 2);

    // A GET with no group open runs alone: nothing to wait for.
    BOOST_TEST(f.call("GET", "/workflows").status == 200u);
    BOOST_TEST(f.server.open_group() == 0u);
    f.server.commit_group();  // nothing open: nothing reported
    BOOST_TEST(f.commits.size() == 1U);
}

BOOST_AUTO_TEST_CASE(a_failed_commit_writes_nothing_and_is_reported)
{
    grouped_fixture f;
    BOOST_TEST(f.call("POST", "/workflows", workflow_body("a")).status == 200u);
    auto const group = f.server.open_group();
    // A row whose foreign key is checked only at COMMIT makes the commit fail.
    auto& db = f.db.db();
    BOOST_REQUIRE(db.exec("PRAGMA defer_foreign_keys=ON").has_value());
    BOOST_REQUIRE(
        db.exec("INSERT INTO file (workflow_id, name, path) VALUES (999999, 'x', 'x')").has_value());
    f.server.commit_group();
    BOOST_REQUIRE_EQUAL(f.commits.size(), 1U);
    BOOST_TEST(f.commits[0].group == group);
    BOOST_REQUIRE(f.commits[0].failure.has_value());
    BOOST_TEST(f.commits[0].failure->find("FOREIGN KEY") != std::string::npos, *f.commits[0].failure);
    BOOST_TEST(f.committed_workflows() == 0);
    BOOST_TEST(f.server.open_group() == 0u);

    // The next request opens a new group that commits.
    BOOST_TEST(f.call("POST", "/workflows", workflow_body("b")).status == 200u);
    BOOST_TEST(f.server.open_group() > group);
    f.server.commit_group();
    BOOST_TEST(!f.commits.back().failure.has_value());
    BOOST_TEST(f.committed_workflows() == 1);
}

BOOST_AUTO_TEST_CASE(handle_commits_an_open_group_before_it_runs)
{
    grouped_fixture f;
    BOOST_TEST(f.call("POST", "/workflows", workflow_body("a")).status == 200u);
    api::request req;
    req.method = "POST";
    req.path = "/workflows";
    req.body = workflow_body("b");
    auto out = f.server.handle(req);
    BOOST_TEST(std::get<api::response>(out).status == 200u);
    BOOST_TEST(f.server.open_group() == 0u);
    BOOST_TEST(f.commits.size() == 1U);
    BOOST_TEST(f.committed_workflows() == 2);
}

namespace {

struct answers {
    int done = 0;
    int ok = 0;
    int refused = 0;
    std::vector<std::string> errors;
};

// POSTs a workflow and, the moment its answer arrives, reads the row from another connection.
net::awaitable<void> create_and_check(std::shared_ptr<io::http_client> client, std::string body,
                                      io::sqlite::connection& other, std::shared_ptr<answers> out)
{
    auto reply = co_await client->request("POST", "/workflows", body);
    ++out->done;
    if (!reply) {
        if (reply.error().status >= 400 && reply.error().status < 500) ++out->refused;
        else out->errors.push_back(reply.error().message);
        co_return;
    }
    auto const id = boost::json::parse(reply->body).at("id").as_int64();
    auto stmt = other.prepare("SELECT COUNT(*) FROM workflow WHERE id = ?");
    if (!stmt) {
        out->errors.push_back(stmt.error().message);
        co_return;
    }
    stmt->bind(1, id);
    auto row = stmt->step();
    if (row && *row && stmt->int64(0) == 1) ++out->ok;
    else out->errors.push_back("workflow " + std::to_string(id) + " answered but not committed");
}

}  // namespace

BOOST_AUTO_TEST_CASE(over_http_every_answer_follows_its_commit)
{
    temp_dir dir;
    auto const path = (dir.path / "t.db").string();
    auto db = io::store::open(path).value();
    io::server_api server(db);
    net::io_context ioc{1};
    io::server_settings s;
    s.port = 0;
    io::http_server http(ioc, s, server, io::logger{});
    auto const port = http.start().value();
    auto other = io::sqlite::connection::open(path).value();

    constexpr int clients = 32;
    auto out = std::make_shared<answers>();
    std::vector<std::shared_ptr<io::http_client>> held;
    for (int i = 0; i < clients; ++i) {
        held.push_back(std::make_shared<io::http_client>(
            ioc, test::client_for(port, "/torc-service/v1", 10s)));
        auto body = i % 8 == 7 ? std::string("{not json") : workflow_body("w" + std::to_string(i));
        net::co_spawn(ioc, create_and_check(held.back(), body, other, out), net::detached);
    }
    BOOST_TEST_REQUIRE(test::run_until(ioc, [&] { return out->done == clients; }, 30s));
    BOOST_TEST(out->errors.empty(), (out->errors.empty() ? "" : out->errors.front()));
    BOOST_TEST(out->ok == clients - clients / 8);
    BOOST_TEST(out->refused == clients / 8);
    http.stop();
    test::run_to_completion(ioc, 5s);
}

namespace {

// server_api whose group commits wait while `hold` is set: what the HTTP server posts is then a
// commit that has not happened yet.
struct held_commits : api::request_handler {
    explicit held_commits(io::server_api& a) : inner(a) {}
    api::outcome handle(api::request const& req) override { return inner.handle(req); }
    api::outcome handle_grouped(api::request const& req) override
    {
        return inner.handle_grouped(req);
    }
    void set_change_listener(std::function<void(std::int64_t)> l) override
    {
        inner.set_change_listener(std::move(l));
    }
    void set_commit_listener(commit_listener l) override { inner.set_commit_listener(std::move(l)); }
    std::uint64_t open_group() const override { return inner.open_group(); }
    void commit_group() override
    {
        if (!hold) inner.commit_group();
    }
    io::server_api& inner;
    bool hold = true;
};

}  // namespace

BOOST_AUTO_TEST_CASE(no_answer_leaves_before_its_group_commits)
{
    temp_dir dir;
    auto const path = (dir.path / "t.db").string();
    auto db = io::store::open(path).value();
    io::server_api server(db);
    held_commits held(server);
    net::io_context ioc{1};
    io::server_settings s;
    s.port = 0;
    io::http_server http(ioc, s, held, io::logger{});
    auto const port = http.start().value();
    auto other = io::sqlite::connection::open(path).value();

    auto out = std::make_shared<answers>();
    auto client =
        std::make_shared<io::http_client>(ioc, test::client_for(port, "/torc-service/v1", 10s));
    net::co_spawn(ioc, create_and_check(client, workflow_body("a"), other, out), net::detached);
    BOOST_TEST(!test::run_until(ioc, [&] { return out->done == 1; }, 300ms));
    BOOST_TEST(server.open_group() != 0u);  // the request ran; its answer waits
    held.hold = false;
    held.commit_group();
    BOOST_TEST_REQUIRE(test::run_until(ioc, [&] { return out->done == 1; }, 10s));
    BOOST_TEST(out->ok == 1);
    BOOST_TEST(out->errors.empty(), (out->errors.empty() ? "" : out->errors.front()));
    http.stop();
    test::run_to_completion(ioc, 5s);
}

BOOST_AUTO_TEST_SUITE_END()
