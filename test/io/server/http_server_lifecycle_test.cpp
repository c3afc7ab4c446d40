// The server's connections over time: long polls woken by a change or answered at their
// timeout without blocking others, 100 parallel clients, idle and read timeouts, graceful stop
// with requests in flight, start errors, FD_CLOEXEC, and run_http_server under SIGTERM.
#include "torcrun/server/io/http_server.hpp"

#include "loopback.hpp"
#include "run_coro.hpp"
#include "server_fixture.hpp"
#include "torcrun/common/io/http_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <csignal>
#include <future>
#include <mutex>
#include <thread>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace net = boost::asio;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using test::loopback_settings;
using test::seconds_since;
using test::server_fixture;

namespace {

std::size_t count_claims(test::fake_handler const& h, bool may_wait) {
    std::size_t n = 0;
    for (auto const& r : h.seen) n += r.path.starts_with("/claim/") && r.may_wait == may_wait;
    return n;
}

// `client` lives in the test body, which runs the io_context until every task is done.
net::awaitable<int> three_echoes(io::http_client& client, int id) {
    int ok = 0;
    for (int i = 0; i < 3; ++i) {
        auto reply = co_await client.request(
            "POST", "/echo?client=" + std::to_string(id), "{\"n\":" + std::to_string(i) + "}");
        ok += reply && reply->body.find("\"client\",\"" + std::to_string(id) + "\"") !=
                           std::string::npos;
    }
    co_return ok;
}

struct count_done {
    int* done;
    int* ok;
    void operator()(std::exception_ptr e, int n) const {
        if (e) std::rethrow_exception(e);
        ++*done;
        *ok += n;
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(http_server_lifecycle)

BOOST_AUTO_TEST_CASE(long_poll_is_woken_by_a_change_and_blocks_no_one) {
    server_fixture f;
    io::http_client waiter(f.ioc, f.client()), other(f.ioc, f.client());
    auto t0 = steady::now();
    auto slot = test::spawn_request(f.ioc, waiter, "GET", "/claim/7?seconds=10");
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return f.server->parked_requests() == 1; }));

    BOOST_TEST(f.call(other, "GET", "/echo").has_value());          // not blocked by the park
    BOOST_TEST(f.call(other, "POST", "/ready/9").has_value());      // another workflow: no wake
    BOOST_TEST(test::run_until(f.ioc, [] { return false; }, 50ms) == false);
    BOOST_TEST(f.server->parked_requests() == 1U);
    BOOST_TEST(!slot->has_value());

    BOOST_TEST(f.call(other, "POST", "/ready/7").has_value());
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return slot->has_value(); }, 2s));
    BOOST_REQUIRE(slot->value());
    BOOST_TEST(slot->value()->body == R"({"claimed":true})");
    BOOST_TEST(seconds_since(t0) < 2.0);
    BOOST_TEST(count_claims(f.handler, true) == 2U);  // parked, then claimed after the wake
    BOOST_TEST(count_claims(f.handler, false) == 0U);
    BOOST_TEST(f.server->parked_requests() == 0U);
}

// A client that closed its connection while its claim was parked is not called for again when
// the workflow changes: a claim then would hand it jobs that nobody reads.
BOOST_AUTO_TEST_CASE(a_parked_long_poll_whose_client_has_gone_hands_out_nothing) {
    server_fixture f;
    net::ip::tcp::socket gone(f.ioc);
    gone.connect({net::ip::make_address("127.0.0.1"), f.port});
    std::string const head = "GET /torc-service/v1/claim/7?seconds=10 HTTP/1.1\r\nHost: x\r\n\r\n";
    net::write(gone, net::buffer(head));
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return f.server->parked_requests() == 1; }));
    gone.close();
    io::http_client other(f.ioc, f.client());
    BOOST_TEST(f.call(other, "POST", "/ready/7").has_value());
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return f.server->parked_requests() == 0; }, 2s));
    BOOST_TEST(count_claims(f.handler, true) == 1U);  // parked once, never called again
    BOOST_TEST(count_claims(f.handler, false) == 0U);
    // Still ready: the next claimant gets it.
    BOOST_TEST(f.call(other, "GET", "/claim/7").value().body == R"({"claimed":true})");
}

BOOST_AUTO_TEST_CASE(long_poll_is_answered_at_its_timeout) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    auto t0 = steady::now();
    auto reply = f.call(client, "GET", "/claim/8?seconds=0.3");
    double const waited = seconds_since(t0);
    BOOST_REQUIRE(reply);
    BOOST_TEST(reply->body == R"({"claimed":false})");
    BOOST_TEST(waited >= 0.3);
    BOOST_TEST(waited < 2.0);
    BOOST_TEST(count_claims(f.handler, true) == 1U);
    BOOST_TEST(count_claims(f.handler, false) == 1U);
    BOOST_TEST(f.server->parked_requests() == 0U);
}

BOOST_AUTO_TEST_CASE(serves_a_hundred_parallel_clients) {
    server_fixture f;
    std::vector<std::unique_ptr<io::http_client>> clients;
    int done = 0, ok = 0;
    for (int i = 0; i < 100; ++i) {
        clients.push_back(std::make_unique<io::http_client>(f.ioc, f.client()));
        net::co_spawn(f.ioc, three_echoes(*clients.back(), i), count_done{&done, &ok});
    }
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return done == 100; }, 20s));
    BOOST_TEST(ok == 300);
    BOOST_TEST(f.handler.seen.size() == 300U);
    for (auto const& c : clients) BOOST_TEST(c->connections_opened() == 1U);
    BOOST_TEST(f.server->open_connections() == 100U);
}

BOOST_AUTO_TEST_CASE(graceful_stop_answers_parked_polls_and_closes_idle_connections) {
    server_fixture f;
    io::http_client idle(f.ioc, f.client()), parked(f.ioc, f.client());
    BOOST_TEST(f.call(idle, "GET", "/echo").has_value());
    auto slot = test::spawn_request(f.ioc, parked, "GET", "/claim/7?seconds=30");
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return f.server->parked_requests() == 1; }));
    BOOST_TEST(f.server->open_connections() == 2U);

    auto t0 = steady::now();
    f.server->stop();
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return slot->has_value(); }, 2s));
    BOOST_REQUIRE(slot->value());
    BOOST_TEST(slot->value()->body == R"({"claimed":false})");  // answered with may_wait=false
    BOOST_TEST(count_claims(f.handler, false) == 1U);
    BOOST_TEST(test::run_to_completion(f.ioc, 2s));  // run() returns: nothing left to do
    BOOST_TEST(seconds_since(t0) < 2.0);
    BOOST_TEST(f.server->open_connections() == 0U);
    BOOST_TEST(f.log.contains("info http: stopping connections=2 parked=1"));

    auto after = f.call(idle, "GET", "/echo");
    BOOST_REQUIRE(!after);
    BOOST_TEST(after.error().kind == io::http_error_kind::connect_refused);
}

BOOST_AUTO_TEST_CASE(a_request_that_stops_the_server_is_still_answered) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    auto reply = f.call(client, "POST", "/stop");
    BOOST_REQUIRE(reply);
    BOOST_TEST(reply->body == R"({"stopping":true})");
    BOOST_TEST(test::run_to_completion(f.ioc, 2s));
    BOOST_TEST(client.idle_connections() == 0U);  // answered with Connection: close
}

BOOST_AUTO_TEST_CASE(closes_keep_alive_connections_after_the_idle_timeout) {
    auto settings = loopback_settings();
    settings.idle_timeout = 200ms;
    server_fixture f(settings);
    io::http_client client(f.ioc, f.client());
    BOOST_TEST(f.call(client, "GET", "/echo").has_value());
    BOOST_TEST(f.server->open_connections() == 1U);
    BOOST_TEST(test::run_until(f.ioc, [&] { return f.server->open_connections() == 0; }, 2s));
}

BOOST_AUTO_TEST_CASE(drops_a_request_that_does_not_arrive_within_the_read_timeout) {
    auto settings = loopback_settings();
    settings.read_timeout = 200ms;
    server_fixture f(settings);
    auto t0 = steady::now();
    auto answer = f.raw("GET /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\n");  // no blank line
    BOOST_TEST(answer.empty());
    BOOST_TEST(seconds_since(t0) < 2.0);
    BOOST_TEST(f.handler.seen.empty());
}

BOOST_AUTO_TEST_CASE(every_socket_it_opens_has_cloexec) {
    server_fixture f;
    io::http_client client(f.ioc, f.client());
    BOOST_TEST(f.call(client, "GET", "/echo").has_value());
    auto sockets = test::socket_fds();
    BOOST_TEST(sockets.size() >= 3U);  // listening, accepted, client
    for (auto const& s : sockets) BOOST_TEST(s.cloexec, "fd " << s.fd << " lacks FD_CLOEXEC");
}

BOOST_AUTO_TEST_CASE(start_names_why_it_cannot_listen) {
    server_fixture first;
    net::io_context ioc;
    test::fake_handler handler;
    auto settings = loopback_settings();
    settings.port = first.port;
    io::http_server second(ioc, settings, handler, io::logger{});
    auto taken = second.start();
    BOOST_REQUIRE(!taken);
    BOOST_TEST(taken.error().message == "http server: cannot listen on 127.0.0.1:" +
                                            std::to_string(first.port) +
                                            ": Address already in use");

    settings.port = 0;
    settings.htpasswd_file = "/nonexistent/users.htpasswd";
    io::http_server no_users(ioc, settings, handler, io::logger{});
    auto missing = no_users.start();
    BOOST_REQUIRE(!missing);
    BOOST_TEST(missing.error().message ==
               "htpasswd: cannot read \"/nonexistent/users.htpasswd\": No such file or directory");

    settings.htpasswd_file.reset();
    settings.host = "torcrun-no-such-host.invalid";
    io::http_server no_host(ioc, settings, handler, io::logger{});
    auto unresolved = no_host.start();
    BOOST_REQUIRE(!unresolved);
    BOOST_TEST(unresolved.error().message.starts_with(
        "http server: cannot resolve \"torcrun-no-such-host.invalid\": "));
}

// run_http_server blocks, so it runs on a thread here; the signal goes to the whole process and
// is taken by the signal_set, which exists before the "listening" line is written.
struct thread_log {
    std::mutex mutex;
    std::vector<std::string> lines;
    std::atomic<int> port{0};
    io::logger logger() {
        return io::logger{io::log_level::info, [this](io::log_level, std::string_view line) {
                              std::lock_guard lock(mutex);
                              lines.emplace_back(line);
                              auto at = line.find(" port=");
                              bool const listening = line.find("listening") != line.npos;
                              if (listening && at != line.npos)
                                  port = std::stoi(std::string(line.substr(at + 6)));
                          }};
    }
};

BOOST_AUTO_TEST_CASE(run_http_server_stops_gracefully_on_sigterm) {
    test::fake_handler handler;
    thread_log log;
    auto done = std::async(std::launch::async, [&] {
        return io::run_http_server(loopback_settings(), handler, log.logger());
    });
    auto const deadline = steady::now() + 5s;
    while (log.port == 0 && steady::now() < deadline) std::this_thread::sleep_for(10ms);
    BOOST_REQUIRE(log.port != 0);
    io::blocking_http_client client(test::client_for(static_cast<std::uint16_t>(log.port.load())));
    BOOST_TEST(client.request("GET", "/echo").has_value());
    ::kill(::getpid(), SIGTERM);
    BOOST_REQUIRE(done.wait_for(5s) == std::future_status::ready);
    BOOST_TEST(done.get() == 0);
    std::lock_guard lock(log.mutex);
    BOOST_TEST(log.lines.size() == 4U);
    BOOST_TEST(log.lines.at(1) == "info http: signal received; stopping signal=SIGTERM");
    BOOST_TEST(log.lines.at(3) == "info http: stopped");
}

// The hooks of `torcrun server`: the bound port once, before any request; ticks on the reactor
// thread until the signal, after which run() still returns (the tick timer is cancelled).
BOOST_AUTO_TEST_CASE(run_http_server_calls_the_hooks_until_sigterm) {
    test::fake_handler handler;
    thread_log log;
    std::atomic<int> listening_port{0};
    std::atomic<int> ticks{0};
    io::server_hooks hooks;
    hooks.on_listening = [&](std::uint16_t port) { listening_port = port; };
    hooks.tick_interval = 5ms;
    hooks.on_tick = [&] { ++ticks; };
    auto done = std::async(std::launch::async, [&] {
        return io::run_http_server(loopback_settings(), handler, log.logger(), hooks);
    });
    auto const deadline = steady::now() + 5s;
    while (ticks < 3 && steady::now() < deadline) std::this_thread::sleep_for(5ms);
    BOOST_REQUIRE(ticks >= 3);
    BOOST_TEST(listening_port.load() != 0);
    BOOST_TEST(listening_port.load() == log.port.load());
    ::kill(::getpid(), SIGTERM);
    BOOST_REQUIRE(done.wait_for(5s) == std::future_status::ready);
    BOOST_TEST(done.get() == 0);
    int const after_stop = ticks;
    std::this_thread::sleep_for(20ms);
    BOOST_TEST(ticks.load() == after_stop);
}

BOOST_AUTO_TEST_CASE(run_http_server_returns_1_when_it_cannot_start) {
    server_fixture first;
    test::fake_handler handler;
    test::captured_log log;
    auto settings = loopback_settings();
    settings.port = first.port;
    BOOST_TEST(io::run_http_server(settings, handler, log.logger()) == 1);
    BOOST_REQUIRE(log.lines->size() == 1U);
    BOOST_TEST(log.lines->front() ==
               "err http: cannot start error=\"http server: cannot listen on 127.0.0.1:" +
                   std::to_string(first.port) + ": Address already in use\"");
}

BOOST_AUTO_TEST_SUITE_END()
