// The connection cap over loopback: with the cap full (parked long polls, idle keep-alive
// connections) each further connection is answered 503 at once and closed while the first ones
// are still served, and once they close new clients are served again. And running out of
// descriptors: with RLIMIT_NOFILE lowered and every free descriptor taken, accept fails with
// EMFILE; the server backs off with one warning, not one per attempt, and serves the waiting
// client once a descriptor frees up.
#include "torcrun/server/io/http_server.hpp"

#include "loopback.hpp"
#include "run_coro.hpp"
#include "server_fixture.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/common/io/net.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

using test::loopback_settings;
using test::server_fixture;

BOOST_AUTO_TEST_SUITE(http_server_limits)

std::string const echo_request =
    "GET /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";

std::string const busy_body =
    R"({"message":"server busy: 3 connections are open, the most this server accepts )"
    R"((max_connections); try again later"})";

// Runs the io_context until `done` holds, at most `limit`.
template <class Pred>
bool run_until(boost::asio::io_context& ioc, Pred done, std::chrono::milliseconds limit = 5s) {
    auto const until = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= until) return false;
        ioc.restart();
        ioc.run_for(10ms);
    }
    return true;
}

std::size_t count_lines_starting(test::captured_log const& log, std::string const& prefix) {
    return static_cast<std::size_t>(std::count_if(
        log.lines->begin(), log.lines->end(),
        [&](std::string const& line) { return line.starts_with(prefix); }));
}

void check_busy_answer(std::string const& answer) {
    BOOST_TEST(answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"));
    BOOST_TEST(answer.find("\r\nConnection: close\r\n") != std::string::npos);
    BOOST_TEST(answer.find("\r\nRetry-After: 1\r\n") != std::string::npos);
    BOOST_TEST(answer.find("\r\nContent-Type: application/json\r\n") != std::string::npos);
    BOOST_TEST(answer.ends_with("\r\n\r\n" + busy_body));
}

BOOST_AUTO_TEST_CASE(beyond_the_cap_clients_get_503_at_once_and_the_first_are_served) {
    auto settings = loopback_settings();
    settings.max_connections = 3;
    server_fixture f(settings);
    BOOST_TEST(f.server->max_connections() == 3U);

    // Three clients hold the three connections with long polls parked for 1.5 s.
    std::vector<std::unique_ptr<io::http_client>> clients;
    std::vector<test::reply_slot> polls;
    for (int i = 0; i < 3; ++i) {
        clients.push_back(std::make_unique<io::http_client>(f.ioc, f.client()));
        polls.push_back(test::spawn_request(f.ioc, *clients.back(), "GET", "/claim/1?seconds=1.5"));
    }
    BOOST_REQUIRE(run_until(f.ioc, [&] { return f.server->parked_requests() == 3U; }));
    BOOST_TEST(f.server->open_connections() == 3U);

    // Two more: each answered 503 and closed while the polls are still parked.
    auto const t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 2; ++i) check_busy_answer(f.raw(echo_request));
    BOOST_TEST(test::seconds_since(t0) < 1.0);
    BOOST_TEST(f.server->parked_requests() == 3U);
    BOOST_TEST(f.server->refused_connections() == 2U);
    BOOST_TEST(f.log.contains("warning http: connection refused: at max_connections "
                              "max_connections=3 refused=1"));
    BOOST_TEST(count_lines_starting(f.log, "warning http: connection refused") == 1U);

    // The first three are served to the end, and again on the same connections.
    BOOST_REQUIRE(run_until(f.ioc, [&] {
        return std::all_of(polls.begin(), polls.end(),
                           [](auto const& p) { return p->has_value(); });
    }));
    for (auto const& p : polls) {
        BOOST_REQUIRE(p->value().has_value());
        BOOST_TEST(p->value()->body == R"({"claimed":false})");
    }
    for (auto& c : clients) {
        auto reply = f.call(*c, "GET", "/echo");
        BOOST_TEST(reply.has_value());
        BOOST_TEST(c->connections_opened() == 1U);
    }
    // Idle keep-alive connections count too.
    check_busy_answer(f.raw(echo_request));

    // Once they close, a new client is served.
    clients.clear();
    BOOST_REQUIRE(run_until(f.ioc, [&] { return f.server->open_connections() == 0U; }));
    auto answer = f.raw(echo_request);
    BOOST_TEST(answer.starts_with("HTTP/1.1 200 OK\r\n"));
    BOOST_TEST(f.server->refused_connections() == 3U);
}

BOOST_AUTO_TEST_CASE(the_default_cap_comes_from_the_descriptor_limit) {
    rlimit limit{};
    BOOST_REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
    server_fixture f;
    auto const fd_limit = limit.rlim_cur == RLIM_INFINITY ? (1U << 20) : limit.rlim_cur;
    auto const headroom = std::max<std::uint64_t>(64, fd_limit / 4);
    BOOST_TEST(f.server->max_connections() == fd_limit - headroom);
    BOOST_TEST(f.log.contains("info http: listening host=127.0.0.1 port=" +
                              std::to_string(f.port) + " tls=off auth=none max_connections=" +
                              std::to_string(fd_limit - headroom)));
}

// ---- out of descriptors

// Lowers the soft RLIMIT_NOFILE for the test and puts it back.
class lowered_fd_limit {
public:
    explicit lowered_fd_limit(rlim_t soft) {
        BOOST_REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved_) == 0);
        rlimit lowered = saved_;
        lowered.rlim_cur = std::min(soft, saved_.rlim_cur);
        BOOST_REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
    }
    ~lowered_fd_limit() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
    lowered_fd_limit(lowered_fd_limit const&) = delete;
    lowered_fd_limit& operator=(lowered_fd_limit const&) = delete;

private:
    rlimit saved_{};
};

// Every descriptor number free below the limit, taken until EMFILE; give() hands one back.
class fd_hoard {
public:
    fd_hoard() {
        for (;;) {
            int const fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                BOOST_REQUIRE(errno == EMFILE);
                break;
            }
            fds_.push_back(fd);
        }
    }
    ~fd_hoard() {
        for (int fd : fds_) ::close(fd);
    }
    fd_hoard(fd_hoard const&) = delete;
    fd_hoard& operator=(fd_hoard const&) = delete;
    void give() {
        BOOST_REQUIRE(!fds_.empty());
        ::close(fds_.back());
        fds_.pop_back();
    }

private:
    std::vector<int> fds_;
};

int highest_open_fd() {
    int most = 0;
    for (auto const& entry : std::filesystem::directory_iterator("/proc/self/fd"))
        most = std::max(most, std::stoi(entry.path().filename().string()));
    return most;
}

// `socket` lives in the test's frame, which waits for this coroutine.
net::awaitable<std::string> exchange(tcp::socket& socket, std::string bytes) {
    [[maybe_unused]] auto [wec, wn] =
        co_await net::async_write(socket, net::buffer(bytes), io::use_nothrow);
    std::string answer;
    [[maybe_unused]] auto [rec, rn] =
        co_await net::async_read(socket, net::dynamic_buffer(answer), io::use_nothrow);
    co_return answer;
}

BOOST_AUTO_TEST_CASE(out_of_descriptors_it_backs_off_with_one_warning_and_recovers) {
    auto settings = loopback_settings();
    settings.max_connections = 1000;  // the descriptor limit is reached first
    server_fixture f(settings);
    tcp::endpoint const endpoint(net::ip::make_address("127.0.0.1"), f.port);
    std::string answer;
    {
        lowered_fd_limit const limit(static_cast<rlim_t>(highest_open_fd() + 16));
        fd_hoard hoard;
        hoard.give();
        tcp::socket client(f.ioc);
        client.connect(endpoint);  // the kernel completes it; the server cannot accept it
        // About 1.5 s of EMFILE: 50, 100, 200, 400, 800 ms pauses, so at least 4 failures.
        f.ioc.restart();
        f.ioc.run_for(1500ms);
        BOOST_TEST(f.server->open_connections() == 0U);
        BOOST_TEST(count_lines_starting(f.log, "warning http: accept failed; backing off") == 1U);
        BOOST_TEST(f.log.contains("warning http: accept failed; backing off "
                                  "error=\"Too many open files\" failures=1 open_connections=0 "
                                  "max_connections=1000"));
        hoard.give();
        BOOST_REQUIRE(run_until(f.ioc, [&] { return f.server->open_connections() == 1U; }));
        answer = test::run_coro(f.ioc, exchange(client, echo_request));
    }
    BOOST_TEST(answer.starts_with("HTTP/1.1 200 OK\r\n"));
    auto const resumed = std::find_if(f.log.lines->begin(), f.log.lines->end(), [](auto const& l) {
        return l.starts_with("info http: accepting again failures=");
    });
    BOOST_REQUIRE(resumed != f.log.lines->end());
    BOOST_TEST(std::stoi(resumed->substr(resumed->find('=') + 1)) >= 4);
}

BOOST_AUTO_TEST_SUITE_END()
