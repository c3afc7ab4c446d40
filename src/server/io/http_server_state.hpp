// What the parts of the HTTP server (http_server.hpp) share, private to src/server/io: one
// server_state per server - the settings, the handler, the acceptor, the connections stop() must
// reach, the parked long polls and the open event streams - which every coroutine holds by
// shared_ptr, so it outlives any frame the io_context still owns; and each part's entry points:
// - long polls and event frames (http_long_polls.cpp);
// - one connection, and one refused beyond the cap (http_session.cpp);
// - the outer shell: binding, the accept loop, the stop (http_server.cpp).
#pragma once

#include "torcrun/common/io/net.hpp"
#include "torcrun/server/accept_policy.hpp"
#include "torcrun/server/io/authenticator.hpp"
#include "torcrun/server/io/http_gate.hpp"
#include "torcrun/server/io/http_server.hpp"

#include "group_commits.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>

namespace torcrun::io {

namespace server_detail {

enum class phase { idle, busy };  // stop() closes idle connections only
enum class wake { timeout, changed, stopping };

struct connection_entry {
    boost::asio::ip::tcp::socket* socket;
    phase now = phase::busy;
};

struct waiter {
    boost::asio::steady_timer* timer;
    std::optional<wake> reason;  // set by whoever cancels the timer
};

// One open event stream: frames waiting to be written, and what ends it.
struct stream_client {
    boost::asio::ip::tcp::socket* socket = nullptr;
    boost::asio::steady_timer* timer = nullptr;  // wakes the writer: a frame came, or the end
    std::deque<std::string> queue;
    std::size_t queued_bytes = 0;
    bool dropped = false;      // it fell behind by more than stream_buffer_bytes
    bool peer_closed = false;  // the client closed or reset the connection
    std::array<char, 512> sink{};
};

}  // namespace server_detail

struct server_state {
    server_state(boost::asio::io_context& c, server_settings s, api::request_handler& h, logger l)
        : ioc(c), settings(std::move(s)), handler(h), log(std::move(l)), acceptor(c),
          commits(c, h) {}

    boost::asio::io_context& ioc;
    server_settings settings;
    api::request_handler& handler;
    logger log;
    std::unique_ptr<authenticator> auth;  // nullptr = no authentication
    boost::asio::ip::tcp::acceptor acceptor;
    std::uint16_t port = 0;
    bool stopping = false;
    std::size_t max_connections = 0;  // set by start()
    std::size_t refusing = 0;         // 503 answers being written or lingering
    std::size_t refused = 0;
    core::accept_failure_log accept_failures{std::chrono::seconds(10)};
    std::list<server_detail::connection_entry> connections;
    std::unordered_multimap<std::int64_t, server_detail::waiter*> waiters;
    std::unordered_multimap<std::int64_t, std::shared_ptr<server_detail::stream_client>> streams;
    group_commits commits;  // answers waiting for their request group's commit
};

namespace server_detail {

using served = std::variant<server_reply, api::event_stream>;
using tls_stream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

// -- long polls and event frames (http_long_polls.cpp)

// The handler's answer to `req`, parked on its workflow while the handler says to wait (until a
// change there, the wait's end or the stop), and after the commit of its request group.
boost::asio::awaitable<served> serve(std::shared_ptr<server_state> st, api::request req,
                                     boost::asio::ip::tcp::socket& peer);
// Wakes the requests parked on the workflow: something changed there.
void wake_workflow(server_state& st, std::int64_t workflow_id);
// Wakes every parked request and event stream: the server stops.
void wake_all_for_stop(server_state& st);
// Queues `frame` for every event stream of the workflow.
void publish_frame(server_state& st, std::int64_t workflow_id, std::string const& frame);

// -- one connection (http_session.cpp), over beast::tcp_stream or tls_stream

// Requests and answers until either side closes or the server stops.
template <class Stream>
boost::asio::awaitable<void> run_session(std::shared_ptr<server_state> st, Stream stream);
// A connection beyond the cap: answered 503 and closed.
template <class Stream>
boost::asio::awaitable<void> refuse_connection(std::shared_ptr<server_state> st, Stream stream);

// The most refusals in progress at once; past it a connection is closed unanswered, so that
// refusing costs a bounded number of descriptors too.
inline constexpr std::size_t max_refusing = 64;

}  // namespace server_detail

}  // namespace torcrun::io
