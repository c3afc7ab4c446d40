// The HTTP server over loopback with a fake handler: routing and query decoding, keep-alive,
// the server's own 4xx/5xx answers, Basic auth, long polls (woken, timed out, not blocking
// others), 100 parallel clients, graceful stop, FD_CLOEXEC, and run_http_server's signals.
#include "torcrun/server/io/http_server.hpp"

#include "loopback.hpp"
#include "run_coro.hpp"
#include "server_fixture.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/common/io/net.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>


namespace io = torcrun::io;
namespace test = torcrun::test;
namespace net = boost::asio;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;

using test::loopback_settings;
using test::server_fixture;

BOOST_AUTO_TEST_SUITE(http_server)

using pairs = std::vector<std::string>;  // "key=value", in the multimap's order

pairs flatten(std::multimap<std::string, std::string> const& query) {
    pairs out;
    for (auto const& [k, v] : query) out.push_back(k + "=" + v);
    return out;
}

struct route_case {
    std::string method;
    std::string target;
    std::string body;
    std::string path;
    pairs query;
};
std::ostream& operator<<(std::ostream& os, route_case const& c) { return os << c.target; }

std::vector<route_case> const routes{
    {"GET", "/torc-service/v1/workflows?offset=0&limit=10", "", "/workflows",
     {"limit=10", "offset=0"}},
    {"POST", "/torc-service/v1/workflows/3/claim_next_jobs?limit=5", R"({"a":1})",
     "/workflows/3/claim_next_jobs", {"limit=5"}},
    {"PUT", "/torc-service/v1/jobs/7?status=a%20b&status=c+d", "{}", "/jobs/7",
     {"status=a b", "status=c d"}},
    {"DELETE", "/torc-service/v1/workflows/9", "", "/workflows/9", {}},
    {"PATCH", "/torc-service/v1/x?k=%E2%9C%93&empty=", "{}", "/x", {"empty=", "k=\xe2\x9c\x93"}},
    {"GET", "/torc-service/v1", "", "/", {}},
    {"GET", "/torc-service/v1/", "", "/", {}},
};

BOOST_DATA_TEST_CASE(routes_path_query_and_body_to_the_handler, bdata::make(routes), c) {
    server_fixture f;
    io::http_client client(f.ioc, f.client(""));
    auto reply = f.call(client, c.method, c.target, c.body);
    BOOST_REQUIRE(!reply);  // the fake answers unknown paths with its own 404
    BOOST_TEST(reply.error().body == R"({"message":"fake: no route"})");
    BOOST_REQUIRE(f.handler.seen.size() == 1U);
    auto const& req = f.handler.seen[0];
    BOOST_TEST(req.method == c.method);
    BOOST_TEST(req.path == c.path);
    BOOST_TEST(req.body == c.body);
    BOOST_TEST(req.may_wait);
    BOOST_TEST(!req.user.has_value());
    pairs got = flatten(req.query);
    BOOST_TEST(got == c.query, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(answers_with_the_handlers_json) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    auto reply = f.call(client, "POST", "/echo?a=1", R"({"x":true})");
    BOOST_REQUIRE(reply);
    BOOST_TEST(reply->status == 200U);
    BOOST_TEST(reply->content_type == "application/json");
    BOOST_TEST(reply->body ==
               R"({"method":"POST","path":"/echo","query":[["a","1"]],"body":"{\"x\":true}",)"
               R"("may_wait":true,"user":null})");
}

BOOST_AUTO_TEST_CASE(keeps_one_connection_alive_across_requests) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    for (int i = 0; i < 3; ++i) BOOST_TEST(f.call(client, "GET", "/echo").has_value());
    BOOST_TEST(client.connections_opened() == 1U);
    BOOST_TEST(f.server->open_connections() == 1U);
    BOOST_TEST(f.handler.seen.size() == 3U);
}

struct close_case {
    std::string request;
    std::string status_line;
};
std::ostream& operator<<(std::ostream& os, close_case const& c) { return os << c.status_line; }

std::vector<close_case> const closing{
    {"GET /torc-service/v1/echo HTTP/1.0\r\n\r\n", "HTTP/1.0 200 OK\r\n"},
    {"GET /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
     "HTTP/1.1 200 OK\r\n"},
};

// raw_exchange reads until the server closes, so returning at all shows the close.
BOOST_DATA_TEST_CASE(closes_when_the_client_does_not_keep_alive, bdata::make(closing), c) {
    server_fixture f;
    auto answer = f.raw(c.request);
    BOOST_TEST(answer.starts_with(c.status_line));
    BOOST_TEST(answer.find("Content-Type: application/json\r\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(answers_head_without_a_body) {
    server_fixture f;
    auto answer =
        f.raw("HEAD /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    BOOST_TEST(answer.starts_with("HTTP/1.1 200 OK\r\n"));
    std::string const body =
        R"({"method":"HEAD","path":"/echo","query":[],"body":"","may_wait":true,"user":null})";
    BOOST_TEST(answer.find("\r\nContent-Length: " + std::to_string(body.size()) + "\r\n") !=
               std::string::npos);
    BOOST_TEST(answer.ends_with("\r\n\r\n"));
}

struct refusal_case {
    std::string target;
    unsigned status;
    std::string body;
};
std::ostream& operator<<(std::ostream& os, refusal_case const& c) { return os << c.target; }

std::vector<refusal_case> const refusals{
    {"/", 404, R"({"message":"not found: \"/\" is not under /torc-service/v1"})"},
    {"/other/ping", 404,
     R"({"message":"not found: \"/other/ping\" is not under /torc-service/v1"})"},
    {"/torc-service/v10/ping", 404,
     R"({"message":"not found: \"/torc-service/v10/ping\" is not under /torc-service/v1"})"},
    {"/torc-service/v1/throw", 500,
     R"({"message":"internal error: GET /throw failed in the server; see its log"})"},
    {"/torc-service/v1/wait_forever", 500,
     R"({"message":"internal error: GET /wait_forever asked to wait again )"
     R"(after its wait ran out"})"},
    {"/torc-service/v1/status/1000", 500,
     R"({"message":"internal error: the handler answered with status 1000"})"},
    {"/torc-service/v1/status/409", 409, R"({"message":"status 409"})"},
};

BOOST_DATA_TEST_CASE(answers_what_the_handler_cannot, bdata::make(refusals), c) {
    server_fixture f;
    io::http_client client(f.ioc, f.client(""));
    auto reply = f.call(client, "GET", c.target);
    BOOST_REQUIRE(!reply);
    BOOST_TEST(reply.error().status == c.status);
    BOOST_TEST(reply.error().body == c.body);
    // The connection stays usable after an error answer.
    BOOST_TEST(f.call(client, "GET", "/torc-service/v1/echo").has_value());
    BOOST_TEST(client.connections_opened() == 1U);
}

BOOST_AUTO_TEST_CASE(logs_a_handler_exception) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    BOOST_TEST(!f.call(client, "GET", "/throw"));
    BOOST_TEST(f.log.contains("err http: handler failed method=GET path=/throw error=boom"));
}

struct limit_case {
    std::uint64_t limit;
    std::size_t body_size;
    unsigned status;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, limit_case const& c) {
    return os << c.limit << "/" << c.body_size;
}

std::vector<limit_case> const limits{
    {16 * 1024 * 1024, 16 * 1024 * 1024 + 1, 413,
     R"({"message":"request body is larger than 16777216 bytes"})"},
    {1024, 1025, 413, R"({"message":"request body is larger than 1024 bytes"})"},
    {1024, 1024, 200, ""},
};

BOOST_DATA_TEST_CASE(limits_the_request_body, bdata::make(limits), c) {
    auto settings = loopback_settings();
    settings.max_body_bytes = c.limit;
    server_fixture f(settings);
    io::http_client client(f.ioc, f.client());
    auto reply = f.call(client, "POST", "/echo", std::string(c.body_size, 'x'));
    BOOST_TEST(reply.has_value() == (c.status == 200));
    if (!reply) {
        BOOST_TEST(reply.error().status == c.status);
        BOOST_TEST(reply.error().body == c.message);
    }
    BOOST_TEST(f.call(client, "GET", "/echo").has_value());  // on a new connection after a 413
}

BOOST_AUTO_TEST_CASE(limits_a_chunked_body_too) {
    auto settings = loopback_settings();
    settings.max_body_bytes = 10;
    server_fixture f(settings);
    auto answer = f.raw(
        "POST /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        "8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n");
    BOOST_TEST(answer.starts_with("HTTP/1.1 413 Payload Too Large\r\n"));
    BOOST_TEST(answer.ends_with(R"({"message":"request body is larger than 10 bytes"})"));
    BOOST_TEST(f.handler.seen.empty());
}

BOOST_AUTO_TEST_CASE(answers_a_malformed_request_with_400) {
    server_fixture f;
    auto answer = f.raw("GET /torc-service/v1/echo HTTP/9.9\r\nHost: h\r\n\r\n");
    BOOST_TEST(answer.starts_with("HTTP/1.1 400 Bad Request\r\n"));
    BOOST_TEST(answer.ends_with(R"({"message":"bad request: bad version"})"));
    auto target =
        f.raw("GET /torc-service/v1/%zz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    BOOST_TEST(target.ends_with(
        R"({"message":"request target: \"/torc-service/v1/%zz\" )"
        R"(is not a path with an optional query"})"));
    BOOST_TEST(f.handler.seen.empty());
}

net::awaitable<std::string> expect_continue(std::uint16_t port) {
    net::ip::tcp::socket socket(co_await net::this_coro::executor);
    auto [cec] = co_await socket.async_connect({net::ip::make_address("127.0.0.1"), port},
                                               io::use_nothrow);
    if (cec) throw std::runtime_error("connect: " + cec.message());
    std::string head =
        "POST /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n"
        "Expect: 100-continue\r\nConnection: close\r\n\r\n";
    [[maybe_unused]] auto [w1, n1] =
        co_await net::async_write(socket, net::buffer(head), io::use_nothrow);
    std::string got;
    [[maybe_unused]] auto [r1, n2] = co_await net::async_read_until(
        socket, net::dynamic_buffer(got), "\r\n\r\n", io::use_nothrow);
    std::string body = "{}";
    [[maybe_unused]] auto [w2, n3] =
        co_await net::async_write(socket, net::buffer(body), io::use_nothrow);
    [[maybe_unused]] auto [r2, n4] =
        co_await net::async_read(socket, net::dynamic_buffer(got), io::use_nothrow);
    co_return got;
}

BOOST_AUTO_TEST_CASE(sends_100_continue_before_reading_the_body) {
    server_fixture f;
    auto got = test::run_coro(f.ioc, expect_continue(f.port));
    BOOST_TEST(got.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"));
    BOOST_REQUIRE(f.handler.seen.size() == 1U);
    BOOST_TEST(f.handler.seen[0].body == "{}");
}

struct auth_case {
    std::optional<std::string> user;
    std::optional<std::string> password;
    bool anonymous;
    unsigned status;  // 200: admitted
    std::string body;
};
std::ostream& operator<<(std::ostream& os, auth_case const& c) {
    return os << c.user.value_or("-") << "/" << c.password.value_or("-") << "/" << c.anonymous;
}

std::string const missing =
    R"({"message":"unauthorized: this server requires HTTP Basic credentials"})";
std::string const wrong = R"({"message":"unauthorized: wrong user name or password"})";

std::vector<auth_case> const auth_cases{
    {std::nullopt, std::nullopt, false, 401, missing},
    {"alice", "Secret", false, 401, wrong},
    {"bob", "secret", false, 401, wrong},
    {"alice", "secret", false, 200, "alice"},
    {std::nullopt, std::nullopt, true, 200, ""},
    {"alice", "wrong", true, 401, wrong},
    {"alice", "secret", true, 200, "alice"},
};

BOOST_DATA_TEST_CASE(checks_basic_auth_against_htpasswd, bdata::make(auth_cases), c) {
    auto settings = loopback_settings();
    settings.htpasswd_file = test::write_temp_file("server.htpasswd",
                                                   "alice:" + test::bcrypt_hash("secret") + "\n");
    settings.allow_anonymous = c.anonymous;
    server_fixture f(settings);
    auto client_settings = f.client();
    client_settings.user = c.user;
    client_settings.password = c.password;
    io::http_client client(f.ioc, client_settings);
    auto reply = f.call(client, "GET", "/echo");
    BOOST_TEST(reply.has_value() == (c.status == 200));
    if (!reply) {
        BOOST_TEST(reply.error().status == c.status);
        BOOST_TEST(reply.error().body == c.body);
        BOOST_TEST(f.handler.seen.empty());
    } else {
        BOOST_REQUIRE(f.handler.seen.size() == 1U);
        BOOST_TEST(f.handler.seen[0].user.value_or("") == c.body);
    }
}

BOOST_AUTO_TEST_CASE(challenges_with_www_authenticate) {
    auto settings = loopback_settings();
    settings.htpasswd_file = test::write_temp_file("challenge.htpasswd",
                                                   "alice:" + test::bcrypt_hash("secret") + "\n");
    server_fixture f(settings);
    auto answer =
        f.raw("GET /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    BOOST_TEST(answer.starts_with("HTTP/1.1 401 Unauthorized\r\n"));
    BOOST_TEST(answer.find("\r\nWWW-Authenticate: Basic realm=\"torcrun\"\r\n") !=
               std::string::npos);
    BOOST_TEST(f.log.contains("info http: listening host=127.0.0.1 port=" + std::to_string(f.port) +
                              " tls=off auth=basic max_connections=" +
                              std::to_string(f.server->max_connections())));
}

BOOST_AUTO_TEST_SUITE_END()
