// The HTTP client against the real server and against scripted raw servers that misbehave:
// connection reuse and reconnects, the request on the wire, and every failure kind with its
// message verbatim.
#include "torcrun/common/io/http_client.hpp"

#include "loopback.hpp"
#include "run_coro.hpp"
#include "io/server/server_fixture.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <thread>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace net = boost::asio;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using test::script_step;
using test::seconds_since;
using test::server_fixture;

namespace {

struct rethrow {
    void operator()(std::exception_ptr e) const {
        if (e) std::rethrow_exception(e);
    }
};

std::string with_port(std::string text, std::uint16_t port) {
    auto at = text.find("{port}");
    if (at != std::string::npos) text.replace(at, 6, std::to_string(port));
    return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_client)

BOOST_AUTO_TEST_CASE(reuses_one_keep_alive_connection) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    for (int i = 0; i < 3; ++i) {
        auto reply = f.call(client, "GET", "/echo");
        BOOST_REQUIRE(reply);
        BOOST_TEST(reply->status == 200U);
    }
    BOOST_TEST(client.connections_opened() == 1U);
    BOOST_TEST(client.idle_connections() == 1U);
    client.close_idle();
    BOOST_TEST(client.idle_connections() == 0U);
    BOOST_TEST(f.call(client, "GET", "/echo").has_value());
    BOOST_TEST(client.connections_opened() == 2U);
}

BOOST_AUTO_TEST_CASE(concurrent_requests_get_their_own_connections) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    auto parked = test::spawn_request(f.ioc, client, "GET", "/claim/4?seconds=10");
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return f.server->parked_requests() == 1; }));
    BOOST_TEST(f.call(client, "GET", "/echo").has_value());
    BOOST_TEST(f.call(client, "POST", "/ready/4").has_value());
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return parked->has_value(); }));
    BOOST_TEST(parked->value()->body == R"({"claimed":true})");
    BOOST_TEST(client.connections_opened() == 2U);
    BOOST_TEST(client.idle_connections() == 2U);
}

BOOST_AUTO_TEST_CASE(reconnects_after_the_server_closed_an_idle_connection) {
    auto settings = test::loopback_settings();
    settings.idle_timeout = 200ms;
    server_fixture f(settings);
    io::http_client client(f.ioc, f.client());
    BOOST_TEST(f.call(client, "GET", "/echo").has_value());
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return f.server->open_connections() == 0; }, 2s));
    BOOST_TEST(f.call(client, "GET", "/echo").has_value());
    BOOST_TEST(client.connections_opened() == 2U);
}

BOOST_AUTO_TEST_CASE(retries_once_when_a_reused_connection_closes_before_answering) {
    net::io_context ioc;
    auto acceptor = test::listen_loopback(ioc);
    std::vector<script_step> steps{
        {true, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", script_step::then::keep},
        {false, "", script_step::then::close},  // reads the request, then hangs up
        {true, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nyes", script_step::then::close},
    };
    net::co_spawn(ioc, test::serve_script(acceptor, steps), rethrow{});
    io::http_client client(ioc, test::client_for(acceptor.local_endpoint().port()));
    auto first = test::run_coro(ioc, client.request("GET", "/ping"));
    BOOST_REQUIRE(first);
    BOOST_TEST(first->body == "ok");
    auto second = test::run_coro(ioc, client.request("POST", "/ping", "{}"));
    BOOST_REQUIRE(second);
    BOOST_TEST(second->body == "yes");
    BOOST_TEST(client.connections_opened() == 2U);
}

BOOST_AUTO_TEST_CASE(sends_host_auth_and_json_headers) {
    net::io_context ioc;
    auto acceptor = test::listen_loopback(ioc);
    auto port = acceptor.local_endpoint().port();
    auto heads = std::make_shared<std::vector<std::string>>();
    std::vector<script_step> steps{{true, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"}};
    net::co_spawn(ioc, test::serve_script(acceptor, steps, heads), rethrow{});
    auto settings = test::client_for(port);
    settings.user = "alice";
    settings.password = "secret";
    io::http_client client(ioc, settings);
    BOOST_TEST(test::run_coro(ioc, client.request("PUT", "/jobs/3?x=1", "{}")).has_value());
    BOOST_REQUIRE(heads->size() == 1U);
    auto const& head = heads->front();
    BOOST_TEST(head.starts_with("PUT /torc-service/v1/jobs/3?x=1 HTTP/1.1\r\n"));
    for (std::string field : {"Host: 127.0.0.1:{port}", "Authorization: Basic YWxpY2U6c2VjcmV0",
                              "Content-Type: application/json", "Content-Length: 2",
                              "Accept: application/json"})
        BOOST_TEST(head.find("\r\n" + with_port(field, port) + "\r\n") != std::string::npos,
                   field);
}

struct script_case {
    std::string name;
    std::vector<script_step> steps;
    io::http_error_kind kind;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, script_case const& c) { return os << c.name; }

std::vector<script_case> const scripts{
    {"closes mid-answer",
     {{true, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc", script_step::then::close}},
     io::http_error_kind::closed,
     "GET /ping: read 127.0.0.1:{port}: partial message"},
    {"closes before answering (a fresh connection: no retry)",
     {{true, "", script_step::then::close}},
     io::http_error_kind::closed,
     "GET /ping: read 127.0.0.1:{port}: end of stream"},
    {"resets", {{true, "", script_step::then::reset}}, io::http_error_kind::closed,
     "GET /ping: read 127.0.0.1:{port}: Connection reset by peer"},
    {"answers garbage", {{true, "garbage\r\n\r\n", script_step::then::close}},
     io::http_error_kind::protocol, "GET /ping: read 127.0.0.1:{port}: bad version"},
    {"redirects",
     {{true, "HTTP/1.1 301 Moved Permanently\r\nContent-Length: 0\r\n\r\n",
       script_step::then::close}},
     io::http_error_kind::protocol, "GET /ping: HTTP 301"},
};

BOOST_DATA_TEST_CASE(classifies_a_misbehaving_server, bdata::make(scripts), c) {
    net::io_context ioc;
    auto acceptor = test::listen_loopback(ioc);
    auto port = acceptor.local_endpoint().port();
    net::co_spawn(ioc, test::serve_script(acceptor, c.steps), rethrow{});
    io::http_client client(ioc, test::client_for(port, "/torc-service/v1", 2s));
    auto reply = test::run_coro(ioc, client.request("GET", "/ping"));
    BOOST_REQUIRE(!reply);
    BOOST_TEST(to_string(reply.error().kind) == to_string(c.kind));
    BOOST_TEST(reply.error().message == with_port(c.message, port));
}

BOOST_AUTO_TEST_CASE(classifies_a_refused_connection) {
    net::io_context ioc;
    auto port = test::unused_port();
    io::http_client client(ioc, test::client_for(port));
    auto reply = test::run_coro(ioc, client.request("POST", "/workflows/3/claim_next_jobs", "{}"));
    BOOST_REQUIRE(!reply);
    BOOST_TEST(reply.error().kind == io::http_error_kind::connect_refused);
    BOOST_TEST(reply.error().transient());
    BOOST_TEST(reply.error().message == "POST /workflows/3/claim_next_jobs: connect 127.0.0.1:" +
                                            std::to_string(port) + ": Connection refused");
}

struct timeout_case {
    std::chrono::milliseconds settings;
    std::optional<std::chrono::milliseconds> override_by;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, timeout_case const& c) { return os << c.message; }

std::vector<timeout_case> const timeouts{
    {300ms, std::nullopt, "GET /ping: read 127.0.0.1:{port}: timed out after 300 ms"},
    {5000ms, 200ms, "GET /ping: read 127.0.0.1:{port}: timed out after 200 ms"},
};

// A listening socket that never accepts: the connection completes in the kernel's backlog and
// the request is written, but no answer ever comes.
BOOST_DATA_TEST_CASE(times_out_when_the_server_never_answers, bdata::make(timeouts), c) {
    net::io_context ioc;
    auto acceptor = test::listen_loopback(ioc);
    auto port = acceptor.local_endpoint().port();
    io::http_client client(ioc, test::client_for(port, "/torc-service/v1", c.settings));
    auto t0 = steady::now();
    auto reply = test::run_coro(ioc, client.request("GET", "/ping", "", c.override_by));
    double const waited = seconds_since(t0);
    BOOST_REQUIRE(!reply);
    BOOST_TEST(reply.error().kind == io::http_error_kind::timeout);
    BOOST_TEST(reply.error().transient());
    BOOST_TEST(reply.error().message == with_port(c.message, port));
    auto const expected = c.override_by.value_or(c.settings);
    BOOST_TEST(waited >= std::chrono::duration<double>(expected).count() * 0.95);
    BOOST_TEST(waited < 3.0);
}

BOOST_AUTO_TEST_CASE(classifies_an_unknown_host) {
    net::io_context ioc;
    auto settings = test::client_for(8080);
    settings.server.host = "torcrun-no-such-host.invalid";
    io::http_client client(ioc, settings);
    auto reply = test::run_coro(ioc, client.request("GET", "/ping"), 10s);
    BOOST_REQUIRE(!reply);
    BOOST_TEST(reply.error().kind == io::http_error_kind::dns);
    BOOST_TEST(reply.error().message.starts_with(
        "GET /ping: resolve torcrun-no-such-host.invalid: "));
}

struct status_case {
    std::string path;
    io::http_error_kind kind;
    unsigned status;
    bool transient;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, status_case const& c) { return os << c.path; }

// The message shows the first 300 characters of a long body.
std::string const padded_body_start = [] {
    std::string start = R"({"message":"status 400","pad":")";
    return start + std::string(300 - start.size(), 'x');
}();

std::vector<status_case> const statuses{
    {"/status/404", io::http_error_kind::http_4xx, 404, false,
     R"(GET /status/404: HTTP 404: {"message":"status 404"})"},
    {"/status/422", io::http_error_kind::http_4xx, 422, false,
     R"(GET /status/422: HTTP 422: {"message":"status 422"})"},
    {"/status/500", io::http_error_kind::http_5xx, 500, false,
     R"(GET /status/500: HTTP 500: {"message":"status 500"})"},
    {"/status/502", io::http_error_kind::http_5xx, 502, true,
     R"(GET /status/502: HTTP 502: {"message":"status 502"})"},
    {"/status/503", io::http_error_kind::http_5xx, 503, true,
     R"(GET /status/503: HTTP 503: {"message":"status 503"})"},
    {"/status/504", io::http_error_kind::http_5xx, 504, true,
     R"(GET /status/504: HTTP 504: {"message":"status 504"})"},
    {"/status/400?pad=400", io::http_error_kind::http_4xx, 400, false,
     "GET /status/400?pad=400: HTTP 400: " + padded_body_start + "..."},
};

BOOST_DATA_TEST_CASE(classifies_error_statuses_and_keeps_the_body, bdata::make(statuses), c) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    auto reply = f.call(client, "GET", c.path);
    BOOST_REQUIRE(!reply);
    BOOST_TEST(reply.error().kind == c.kind);
    BOOST_TEST(reply.error().status == c.status);
    BOOST_TEST(reply.error().transient() == c.transient);
    BOOST_TEST(reply.error().message == c.message);
    BOOST_TEST(reply.error().body.starts_with(R"({"message":"status )"));
    BOOST_TEST(client.connections_opened() == 1U);
    BOOST_TEST(client.idle_connections() == 1U);  // an error answer keeps the connection
}

BOOST_AUTO_TEST_CASE(value_throws_the_message) {
    io::http_result<io::http_reply> failed =
        io::http_error{io::http_error_kind::timeout, "GET /ping: boom", 0, {}};
    BOOST_CHECK_EXCEPTION(failed.value(), std::runtime_error, [](std::runtime_error const& e) {
        return std::string(e.what()) == "GET /ping: boom";
    });
}

BOOST_AUTO_TEST_CASE(blocking_client_runs_its_own_io_context) {
    server_fixture f;
    std::thread server_thread([&] { f.ioc.run_for(10s); });
    io::blocking_http_client client(f.client());
    auto first = client.request("GET", "/echo");
    auto second = client.request("POST", "/echo", "{}");
    auto missing = client.request("GET", "/status/404");
    net::post(f.ioc, [&] { f.server->stop(); });
    server_thread.join();
    BOOST_REQUIRE(first);
    BOOST_REQUIRE(second);
    BOOST_TEST(first->status == 200U);
    BOOST_REQUIRE(!missing);
    BOOST_TEST(missing.error().kind == io::http_error_kind::http_4xx);
    BOOST_TEST(client.async_client().connections_opened() == 1U);

    io::blocking_http_client refused(test::client_for(test::unused_port()));
    auto down = refused.request("GET", "/ping");
    BOOST_REQUIRE(!down);
    BOOST_TEST(down.error().kind == io::http_error_kind::connect_refused);
}

BOOST_AUTO_TEST_SUITE_END()
