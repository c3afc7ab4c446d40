// GET /workflows/{id}/events/stream over real HTTP on loopback, through its fault paths: several
// readers of one workflow, a client that goes away, a client that never reads (dropped at the
// queue bound while a reader keeps receiving), no stream open between two, a stop with streams
// open, an unknown workflow, workflows kept apart, and the keep-alive comment after a (small)
// idle interval.
#include "torcrun/server/io/http_server.hpp"

#include "lifecycle_fixture.hpp"
#include "loopback.hpp"
#include "run_coro.hpp"
#include "torcrun/common/io/http_client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace net = boost::asio;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using tcp = net::ip::tcp;

namespace {

// One raw client of a stream: what it has read so far and whether the server closed it.
struct sse_client {
    explicit sse_client(net::io_context& ioc) : socket(ioc) {}
    tcp::socket socket;
    std::string data;
    bool connected = false;
    bool closed = false;

    bool has_header() const { return data.find("\r\n\r\n") != std::string::npos; }
    std::string head() const { return data.substr(0, data.find("\r\n\r\n")); }

    // The `event:` frames after the header, in order (keep-alive comments left out).
    std::vector<std::string> frames() const {
        std::vector<std::string> out;
        auto at = data.find("\r\n\r\n");
        if (at == std::string::npos) return out;
        at += 4;
        for (;;) {
            auto end = data.find("\n\n", at);
            if (end == std::string::npos) break;
            auto frame = data.substr(at, end - at);
            if (!frame.starts_with(":")) out.push_back(frame);
            at = end + 2;
        }
        return out;
    }
};

std::string event_type(std::string const& frame) {
    return frame.substr(7, frame.find('\n') - 7);  // "event: <type>\n..."
}

std::int64_t workflow_of(std::string const& frame) {
    auto const data = frame.substr(frame.find("\ndata: ") + 7);
    return boost::json::parse(data).at("workflow_id").as_int64();
}

// Connects, asks for the stream and then reads until the server closes (unless `read` is false:
// a client that never reads, with a small receive buffer so it falls behind soon).
net::awaitable<void> open_stream(std::shared_ptr<sse_client> c, std::uint16_t port,
                                 std::int64_t workflow_id, bool read) {
    c->socket.open(tcp::v4());
    if (!read) c->socket.set_option(net::socket_base::receive_buffer_size(4096));
    co_await c->socket.async_connect({net::ip::make_address("127.0.0.1"), port},
                                     net::use_awaitable);
    std::string const req = "GET /torc-service/v1/workflows/" + std::to_string(workflow_id) +
                            "/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            "Accept: text/event-stream\r\n\r\n";
    co_await net::async_write(c->socket, net::buffer(req), net::use_awaitable);
    c->connected = true;
    if (!read) co_return;
    std::array<char, 4096> buf;
    for (;;) {
        auto [rec, n] = co_await c->socket.async_read_some(
            net::buffer(buf), net::as_tuple(net::use_awaitable));
        c->data.append(buf.data(), n);
        if (rec) break;
    }
    c->closed = true;
}

io::server_settings loopback_settings() {
    io::server_settings s;
    s.host = "127.0.0.1";
    s.port = 0;
    return s;
}

double seconds_since(steady::time_point t0) {
    return std::chrono::duration<double>(steady::now() - t0).count();
}

bool logged(test::captured_log const& log, std::string const& part) {
    return std::any_of(log.lines->begin(), log.lines->end(),
                       [&](auto const& l) { return l.find(part) != std::string::npos; });
}

struct ignore_done {
    void operator()(std::exception_ptr e) const {
        if (e) std::rethrow_exception(e);
    }
};

// The server_api of the life-cycle suites behind a started http_server on 127.0.0.1:0.
struct stream_fixture : test::lifecycle_fixture {
    net::io_context ioc{1};
    test::captured_log log;
    std::unique_ptr<io::http_server> http;
    std::uint16_t port = 0;

    explicit stream_fixture(io::server_settings s = loopback_settings()) {
        http = std::make_unique<io::http_server>(ioc, s, server, log.logger());
        port = http->start().value();
    }
    ~stream_fixture() {
        http->stop();
        test::run_to_completion(ioc, 2s);
    }

    std::shared_ptr<sse_client> client(std::int64_t workflow_id = 1, bool read = true) {
        auto c = std::make_shared<sse_client>(ioc);
        net::co_spawn(ioc, open_stream(c, port, workflow_id, read), ignore_done{});
        return c;
    }

    // Opens `n` reading clients and waits until the server lists them all.
    std::vector<std::shared_ptr<sse_client>> clients(std::size_t n, std::int64_t wf = 1) {
        std::vector<std::shared_ptr<sse_client>> out;
        std::size_t const before = http->open_streams();
        for (std::size_t i = 0; i < n; ++i) out.push_back(client(wf));
        BOOST_REQUIRE(test::run_until(ioc, [&] {
            return http->open_streams() == before + n &&
                   std::all_of(out.begin(), out.end(), [](auto& c) { return c->has_header(); });
        }));
        return out;
    }

    // A request through HTTP (not the handler directly), as a worker sends it.
    io::http_reply http_call(std::string method, std::string path, std::string body = {}) {
        io::http_client c(ioc, test::client_for(port));
        auto reply = test::run_coro(ioc, c.request(std::move(method), std::move(path),
                                                   std::move(body)));
        BOOST_REQUIRE_MESSAGE(reply.has_value(), "HTTP call failed: " << reply.error().message);
        return *reply;
    }
};

bool same_frames(std::vector<std::shared_ptr<sse_client>> const& cs, std::size_t n) {
    auto const ref = cs.front()->frames();
    if (ref.size() != n) return false;
    for (auto const& c : cs)
        if (c->frames() != ref) return false;
    return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(event_stream)

BOOST_AUTO_TEST_CASE(several_clients_get_the_same_frames_in_order_as_each_request_commits) {
    stream_fixture f;
    auto const job = f.job("a");
    auto const node = f.node();
    f.initialize();
    auto cs = f.clients(5);
    for (auto const& c : cs) {
        BOOST_TEST(c->head().starts_with("HTTP/1.1 200 OK"));
        BOOST_TEST(c->head().find("Content-Type: text/event-stream") != std::string::npos);
        BOOST_TEST(c->frames().empty());  // events before the stream opened are not replayed
    }

    // Each change's frame reaches every client before the next change is made.
    std::vector<std::string> want;
    auto step = [&](std::string method, std::string path, std::string body, std::string type) {
        auto const before = cs.front()->frames().size();
        f.http_call(std::move(method), std::move(path), std::move(body));
        BOOST_REQUIRE_MESSAGE(test::run_until(f.ioc, [&] {
                                  return std::all_of(cs.begin(), cs.end(), [&](auto& c) {
                                      return c->frames().size() > before;
                                  });
                              }, 2s),
                              "no frame for " << type);
        BOOST_TEST(event_type(cs.front()->frames().back()) == type);
    };
    step("PUT", "/jobs/" + std::to_string(job) + "/manage_status_change/pending/0", "",
         "job_pending");
    step("PUT", "/jobs/" + std::to_string(job) + "/start_job/0/" + std::to_string(node), "",
         "job_started");
    step("POST", "/jobs/" + std::to_string(job) + "/complete_job/completed/0",
         test::lifecycle_fixture::result_body(job, "completed", node), "job_completed");

    auto const n = cs.front()->frames().size();
    BOOST_TEST(test::run_until(f.ioc, [&] { return same_frames(cs, n); }, 2s));
    auto const frames = cs.front()->frames();
    std::vector<std::string> types;
    for (auto const& fr : frames) types.push_back(event_type(fr));
    BOOST_TEST(std::count(types.begin(), types.end(), "job_started") == 1);
    BOOST_TEST(std::count(types.begin(), types.end(), "job_completed") == 1);
    auto const started = std::find(types.begin(), types.end(), "job_started");
    BOOST_TEST((started < std::find(types.begin(), types.end(), "job_completed")));
    for (auto const& fr : frames) BOOST_TEST(workflow_of(fr) == 1);
    BOOST_TEST(f.http->open_streams() == 5U);
}

BOOST_AUTO_TEST_CASE(a_client_that_disconnects_is_noticed_and_later_events_still_flow) {
    stream_fixture f;
    auto const job = f.job("a");
    auto const node = f.node();
    f.initialize();
    auto cs = f.clients(3);

    auto const t0 = steady::now();
    cs[1]->socket.close();
    BOOST_TEST(test::run_until(f.ioc, [&] { return f.http->open_streams() == 2; }, 1s));
    BOOST_TEST(seconds_since(t0) < 1.0);

    auto const ping = f.http_call("GET", "/workflows/1");
    BOOST_TEST(ping.status == 200U);

    f.ok("PUT", "/jobs/" + std::to_string(job) + "/manage_status_change/pending/0");
    f.http_call("PUT", "/jobs/" + std::to_string(job) + "/start_job/0/" + std::to_string(node));
    std::vector<std::shared_ptr<sse_client>> left{cs[0], cs[2]};
    BOOST_TEST(test::run_until(f.ioc, [&] { return same_frames(left, 2); }, 2s));
    BOOST_TEST(event_type(left[0]->frames().back()) == "job_started");
    BOOST_TEST(f.http->open_streams() == 2U);
    BOOST_TEST(!logged(f.log, "task failed"));
}

// With no stream open the server reads no event rows; a stream opened after the last one closed
// starts from the newest row: it sees what happens next, not what happened in between.
BOOST_AUTO_TEST_CASE(a_stream_opened_after_all_closed_sees_only_later_events) {
    stream_fixture f;
    auto const job = f.job("a");
    auto const node = f.node();
    f.initialize();
    auto first = f.clients(1);
    first[0]->socket.close();
    BOOST_TEST(test::run_until(f.ioc, [&] { return f.http->open_streams() == 0; }, 1s));

    f.ok("PUT", "/jobs/" + std::to_string(job) + "/manage_status_change/pending/0");
    auto cs = f.clients(1);
    f.http_call("PUT", "/jobs/" + std::to_string(job) + "/start_job/0/" + std::to_string(node));
    BOOST_TEST(test::run_until(f.ioc, [&] { return !cs[0]->frames().empty(); }, 2s));
    BOOST_REQUIRE_EQUAL(cs[0]->frames().size(), 1U);
    BOOST_TEST(event_type(cs[0]->frames().front()) == "job_started");
}

BOOST_AUTO_TEST_CASE(a_client_that_never_reads_is_dropped_at_the_queue_bound) {
    auto s = loopback_settings();
    s.stream_buffer_bytes = 64 * 1024;
    stream_fixture f(s);
    // Long names make big frames (the name is in each), so the kernel's socket buffers of the
    // stuck client fill after a few hundred of them.
    std::vector<std::int64_t> jobs;
    for (int i = 0; i < 300; ++i) jobs.push_back(f.job(std::to_string(i) + std::string(8000, 'x')));
    auto const node = f.node();
    f.initialize();

    auto reader = f.clients(1).front();
    auto stuck = f.client(1, false);
    BOOST_REQUIRE(test::run_until(f.ioc, [&] { return f.http->open_streams() == 2; }));

    // Job starts and completions until the stuck client's kernel buffers fill and its queue
    // passes the bound; the queue never grows past it meanwhile.
    std::size_t changes = 0;
    std::size_t most = 0;
    for (auto it = jobs.begin(); it != jobs.end() && f.http->open_streams() == 2; ++it) {
        f.run(*it, node);
        changes += 3;
        most = std::max(most, f.http->max_stream_queue_bytes());
        test::run_until(f.ioc, [] { return false; }, 1ms);
        most = std::max(most, f.http->max_stream_queue_bytes());
    }
    BOOST_TEST_MESSAGE("changes until the drop: " << changes);
    BOOST_TEST(test::run_until(f.ioc, [&] { return f.http->open_streams() == 1; }, 2s));
    BOOST_TEST(most <= s.stream_buffer_bytes);
    BOOST_TEST(logged(f.log, "client too far behind"));

    // The reader still gets everything, including what comes after the drop.
    auto const more = jobs.back();
    f.ok("PUT", "/jobs/" + std::to_string(more) + "/manage_status_change/pending/0");
    f.start(more, node);
    changes += 1;
    BOOST_TEST(test::run_until(f.ioc, [&] {
        auto fr = reader->frames();
        return fr.size() >= changes + 1 && event_type(fr.back()) == "job_started";
    }, 5s));
    BOOST_TEST(!reader->closed);
    BOOST_TEST(f.http->open_streams() == 1U);
    BOOST_TEST(f.http->max_stream_queue_bytes() <= s.stream_buffer_bytes);
}

BOOST_AUTO_TEST_CASE(stopping_the_server_ends_open_streams_promptly) {
    auto f = std::make_unique<stream_fixture>();
    auto cs = f->clients(3);
    auto stuck = f->client(1, false);
    BOOST_REQUIRE(test::run_until(f->ioc, [&] { return f->http->open_streams() == 4; }));

    auto const t0 = steady::now();
    f->http->stop();
    BOOST_TEST(test::run_until(f->ioc, [&] {
        return std::all_of(cs.begin(), cs.end(), [](auto& c) { return c->closed; });
    }, 2s));
    BOOST_TEST(test::run_to_completion(f->ioc, 2s));  // no work left: run() would return
    BOOST_TEST(seconds_since(t0) < 1.0);
    BOOST_TEST(f->http->open_streams() == 0U);
    BOOST_TEST(f->http->open_connections() == 0U);
}

BOOST_AUTO_TEST_CASE(unknown_workflow_is_404_and_workflows_are_kept_apart) {
    stream_fixture f;
    auto const wf2 = f.workflow("other");
    auto const a = f.job("a");
    auto const b = f.job("b", {}, wf2);
    auto const node1 = f.node();
    auto const node2 = f.node(wf2);
    f.initialize();
    f.initialize(wf2);

    auto const raw = test::run_coro(
        f.ioc, test::raw_exchange(f.port, "GET /torc-service/v1/workflows/999/events/stream "
                                          "HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    BOOST_TEST(raw.starts_with("HTTP/1.1 404"));
    BOOST_TEST(raw.find("application/json") != std::string::npos);
    auto const body = boost::json::parse(raw.substr(raw.find("\r\n\r\n") + 4));
    BOOST_TEST(std::string(body.at("message").as_string()).find("999") != std::string::npos);
    BOOST_TEST(f.http->open_streams() == 0U);

    auto on_a = f.clients(1, 1).front();
    auto on_b = f.clients(1, wf2).front();
    // B's changes first: A must not see them, B must.
    f.ok("PUT", "/jobs/" + std::to_string(b) + "/manage_status_change/pending/0");
    f.start(b, node2);
    f.ok("PUT", "/jobs/" + std::to_string(a) + "/manage_status_change/pending/0");
    f.start(a, node1);
    BOOST_TEST(test::run_until(f.ioc, [&] {
        return on_a->frames().size() == 2 && on_b->frames().size() == 2;
    }, 2s));
    for (auto const& fr : on_a->frames()) BOOST_TEST(workflow_of(fr) == 1);
    for (auto const& fr : on_b->frames()) BOOST_TEST(workflow_of(fr) == wf2);
}

BOOST_AUTO_TEST_CASE(keep_alive_comment_after_the_idle_interval) {
    auto s = loopback_settings();
    s.stream_keep_alive = 150ms;
    stream_fixture f(s);
    auto const t0 = steady::now();
    auto c = f.clients(1).front();
    BOOST_TEST(test::run_until(f.ioc, [&] {
        return c->data.find("\r\n\r\n: keep-alive\n\n") != std::string::npos;
    }, 2s));
    BOOST_TEST(seconds_since(t0) >= 0.14);
    BOOST_TEST(test::run_until(f.ioc, [&] {  // and again after the next interval
        auto first = c->data.find(": keep-alive\n\n");
        return c->data.find(": keep-alive\n\n", first + 1) != std::string::npos;
    }, 2s));
    BOOST_TEST(c->frames().empty());
    BOOST_TEST(!c->closed);
}

BOOST_AUTO_TEST_SUITE_END()
