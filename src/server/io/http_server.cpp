// The HTTP/1.1 server (http_server.hpp): Beast on one single-threaded io_context.
//
// What every coroutine shares is one server_state: the settings, the handler, the acceptor, the
// connections stop() must reach and the parked long polls. Each coroutine holds a shared_ptr to
// it, so it outlives any frame the io_context still owns.
//
// In this file, in order:
// - long polls: the handler answers `wait_for_workflow` when nothing is claimable; the request
//   then waits on a timer listed under its workflow until the handler reports a change there
//   (call again, may_wait=true), the wait runs out or the server stops (call again,
//   may_wait=false). Waiting costs a timer, never a blocked thread. A client that closed its
//   connection meanwhile is not called for again: a claim would hand it jobs it never reads;
// - group commit: an answer whose request the handler left in an open request group waits for
//   that group's commit (group_commits.hpp), posted once per group;
// - one connection (a session): with TLS the handshake first, then wait for a request
//   (keep-alive idle), read it within the read timeout and the body limit, let the gate and the
//   handler answer, write the answer, and repeat until either side closes or the server stops.
//   The session is written once over a stream type: beast::tcp_stream, or the TLS stream over
//   one; sockets and deadlines are always the TCP layer's;
// - the outer shell: loading the htpasswd file, binding, the accept loop with its connection
//   cap (a connection beyond it is refused with a 503) and its backoff when accept fails, and
//   the graceful stop.
#include "torcrun/server/io/http_server.hpp"
#include "torcrun/common/concat.hpp"
#include "torcrun/common/io/net.hpp"
#include "torcrun/server/accept_policy.hpp"
#include "torcrun/server/event_stream.hpp"
#include "torcrun/server/io/authenticator.hpp"
#include "torcrun/server/io/htpasswd.hpp"
#include "torcrun/server/io/http_gate.hpp"

#include "group_commits.hpp"

#include <boost/asio/write.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <fcntl.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <optional>
#include <system_error>
#include <unordered_map>

namespace torcrun::io {

namespace net = boost::asio;
using tcp = net::ip::tcp;

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

// ---- long polls

namespace server_detail {

using steady = std::chrono::steady_clock;
using served = std::variant<server_reply, api::event_stream>;

namespace {

// A parked request, listed under its workflow exactly while its frame lives.
class parking {
public:
    parking(server_state& st, std::int64_t workflow_id, waiter& w)
        : st_(st), it_(st.waiters.emplace(workflow_id, &w)) {}
    ~parking() { st_.waiters.erase(it_); }
    parking(parking const&) = delete;
    parking& operator=(parking const&) = delete;

private:
    server_state& st_;
    std::unordered_multimap<std::int64_t, waiter*>::iterator it_;
};

steady::duration wait_duration(double seconds) {
    if (!(seconds > 0)) return steady::duration::zero();  // also NaN
    double const capped = seconds < 3600 ? seconds : 3600;
    return std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(capped));
}

std::variant<server_reply, api::wait_for_workflow, api::event_stream> call_handler(
    server_state& st, api::request const& req) {
    try {
        auto out = st.handler.handle_grouped(req);
        if (auto* res = std::get_if<api::response>(&out)) return server_reply{std::move(*res)};
        if (auto* es = std::get_if<api::event_stream>(&out)) return *es;
        return std::get<api::wait_for_workflow>(out);
    } catch (std::exception const& e) {
        st.log.write(log_level::err, "http", "handler failed",
                     {{"method", req.method}, {"path", req.path}, {"error", e.what()}});
        return json_error(500, detail::cat("internal error: ", req.method, " ", req.path,
                                           " failed in the server; see its log"));
    }
}

net::awaitable<wake> park(std::shared_ptr<server_state> st, std::int64_t workflow_id,
                          steady::time_point deadline) {
    net::steady_timer timer(st->ioc, deadline);
    waiter w{&timer, std::nullopt};
    parking const listed(*st, workflow_id, w);
    [[maybe_unused]] auto [ec] = co_await timer.async_wait(use_nothrow);
    co_return w.reason.value_or(wake::timeout);
}

// The peer of a parked request closed its side or reset the connection (a client still there,
// or one that already sent its next request, is not gone). Over TLS a closing client's bytes
// (its close_notify) come before the end of the stream, so there the half-close itself decides.
bool peer_gone(tcp::socket& socket, bool tls) {
    if (tls) {
        pollfd p{socket.native_handle(), POLLRDHUP, 0};
        if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) return true;
    }
    char byte = 0;
    auto const n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return false;
    if (n == 0) return true;
    return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace

net::awaitable<served> serve(std::shared_ptr<server_state> st, api::request req,
                             tcp::socket& peer) {
    std::optional<steady::time_point> deadline;  // from the first wait; wakes do not extend it
    for (;;) {
        auto out = call_handler(*st, req);
        auto const group = st->handler.open_group();
        st->commits.schedule(st);
        if (group != 0 && !std::holds_alternative<api::wait_for_workflow>(out)) {
            if (auto failure = co_await st->commits.committed(group))
                co_return json_error(503, detail::cat(req.method, " ", req.path, ": ", *failure));
        }
        if (auto* reply = std::get_if<server_reply>(&out)) co_return std::move(*reply);
        if (auto* es = std::get_if<api::event_stream>(&out)) co_return *es;
        auto const wait = std::get<api::wait_for_workflow>(out);
        if (!req.may_wait) {
            st->log.write(log_level::err, "http", "handler asked to wait after the wait ran out",
                          {{"method", req.method}, {"path", req.path}});
            co_return json_error(500, detail::cat("internal error: ", req.method, " ", req.path,
                                                  " asked to wait again after its wait ran out"));
        }
        if (!deadline) deadline = steady::now() + wait_duration(wait.seconds);
        if (!st->stopping) {
            wake const why = co_await park(st, wait.workflow_id, *deadline);
            if (peer_gone(peer, st->settings.tls != nullptr)) {
                st->log.write(log_level::debug, "http", "client gone while parked",
                              {{"method", req.method}, {"path", req.path}});
                co_return json_error(400, detail::cat(req.method, " ", req.path,
                                                      ": the client closed the connection"));
            }
            if (why == wake::changed) continue;
        }
        req.may_wait = false;
    }
}

void wake_workflow(server_state& st, std::int64_t workflow_id) {
    auto [first, last] = st.waiters.equal_range(workflow_id);
    for (auto it = first; it != last; ++it) {
        if (!it->second->reason) it->second->reason = wake::changed;
        it->second->timer->cancel();
    }
}

void wake_all_for_stop(server_state& st) {
    for (auto& [workflow_id, w] : st.waiters) {
        w->reason = wake::stopping;
        w->timer->cancel();
    }
    boost::system::error_code ignored;
    for (auto& [workflow_id, c] : st.streams) {
        c->timer->cancel();
        c->socket->cancel(ignored);  // a write stuck on a client that does not read
    }
}

// Queues `frame` for every stream of the workflow; a client already `stream_buffer_bytes` behind
// is dropped instead, so a reader that never reads costs a bounded amount of memory.
void publish_frame(server_state& st, std::int64_t workflow_id, std::string const& frame) {
    auto [first, last] = st.streams.equal_range(workflow_id);
    for (auto it = first; it != last; ++it) {
        auto& c = *it->second;
        if (c.dropped || c.peer_closed) continue;
        // One frame always fits an empty queue, so a frame larger than the bound does not drop a
        // client that keeps up; the queue stays within the bound plus one frame.
        if (!c.queue.empty() && c.queued_bytes + frame.size() > st.settings.stream_buffer_bytes) {
            c.dropped = true;
            c.queue.clear();
            c.queued_bytes = 0;
            boost::system::error_code ignored;
            c.socket->cancel(ignored);
        } else {
            c.queue.push_back(frame);
            c.queued_bytes += frame.size();
        }
        c.timer->cancel();
    }
}

// ---- one connection

namespace beast = boost::beast;
namespace http = beast::http;

namespace {

using request_parser = http::request_parser<http::string_body>;
using tls_stream = beast::ssl_stream<beast::tcp_stream>;

template <class Stream>
tcp::socket& socket_of(Stream& stream) {
    return beast::get_lowest_layer(stream).socket();
}

// The TLS handshake, within `limit`; plain HTTP has none. A failure is logged at debug level
// (scanners and clients with the wrong CA are no news to the operator).
net::awaitable<bool> handshake(std::shared_ptr<server_state>, beast::tcp_stream&,
                               std::chrono::milliseconds) {
    co_return true;
}

net::awaitable<bool> handshake(std::shared_ptr<server_state> st, tls_stream& stream,
                               std::chrono::milliseconds limit) {
    beast::get_lowest_layer(stream).expires_after(limit);
    auto [ec] = co_await stream.async_handshake(net::ssl::stream_base::server, use_nothrow);
    if (ec)
        st->log.write(log_level::debug, "http", "TLS handshake failed",
                      {{"error", ec == beast::error::timeout ? "timed out" : ec.message()}});
    co_return !ec;
}

// The end of a connection the server closes: a FIN, after TLS's close_notify where there is TLS
// (so a reader of a body that ends with the connection sees a proper end), within `limit`. The
// server sends its close_notify without waiting for the client's: marking the client's as
// received makes the shutdown end once ours is written.
net::awaitable<void> close_stream(beast::tcp_stream& stream, std::chrono::milliseconds) {
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    co_return;
}

net::awaitable<void> close_stream(tls_stream& stream, std::chrono::milliseconds limit) {
    ::SSL_set_shutdown(stream.native_handle(), SSL_RECEIVED_SHUTDOWN);
    beast::get_lowest_layer(stream).expires_after(limit);
    [[maybe_unused]] auto [ec] = co_await stream.async_shutdown(use_nothrow);
    beast::error_code ignored;
    socket_of(stream).shutdown(tcp::socket::shutdown_send, ignored);
}

// Keeps a session visible to stop() exactly as long as its coroutine frame lives.
class registration {
public:
    registration(std::shared_ptr<server_state> st, tcp::socket& socket)
        : st_(std::move(st)),
          it_(st_->connections.insert(st_->connections.end(), connection_entry{&socket})) {}
    ~registration() { st_->connections.erase(it_); }
    registration(registration const&) = delete;
    registration& operator=(registration const&) = delete;
    void set(phase p) { it_->now = p; }

private:
    std::shared_ptr<server_state> st_;
    std::list<connection_entry>::iterator it_;
};

enum class read_status { ok, closed, too_large, bad };

struct read_result {
    read_status status;
    std::string detail;
};

read_result classify_read(beast::error_code ec) {
    if (!ec) return {read_status::ok, {}};
    if (ec == http::error::body_limit) return {read_status::too_large, {}};
    if (ec == http::error::end_of_stream || ec == net::error::eof ||
        ec == beast::error::timeout || ec == net::error::operation_aborted ||
        ec == net::error::connection_reset || ec == http::error::partial_message)
        return {read_status::closed, ec.message()};
    return {read_status::bad, detail::cat("bad request: ", ec.message())};
}

bool expects_continue(http::request<http::string_body> const& req) {
    return beast::iequals(req[http::field::expect], "100-continue");
}

// `stream`, `buffer` and `parser` live in the session frame, which awaits this coroutine.
template <class Stream>
net::awaitable<read_result> read_request(std::shared_ptr<server_state> st, Stream& stream,
                                         beast::flat_buffer& buffer, request_parser& parser) {
    auto& deadline = beast::get_lowest_layer(stream);
    deadline.expires_after(st->settings.read_timeout);
    auto [ec, n] = co_await http::async_read_header(stream, buffer, parser, use_nothrow);
    if (!ec && expects_continue(parser.get())) {
        http::response<http::empty_body> go_on{http::status::continue_, parser.get().version()};
        deadline.expires_after(st->settings.write_timeout);
        auto [wec, wn] = co_await http::async_write(stream, go_on, use_nothrow);
        ec = wec;
        deadline.expires_after(st->settings.read_timeout);
    }
    if (!ec && !parser.is_done()) {
        auto [bec, bn] = co_await http::async_read(stream, buffer, parser, use_nothrow);
        ec = bec;
    }
    co_return classify_read(ec);
}

// Waits for the first byte of the next request: the keep-alive idle phase.
template <class Stream>
net::awaitable<bool> wait_for_request(std::shared_ptr<server_state> st, Stream& stream,
                                      beast::flat_buffer& buffer) {
    if (buffer.size() > 0) co_return true;  // pipelined bytes already read
    beast::get_lowest_layer(stream).expires_after(st->settings.idle_timeout);
    auto [ec, n] = co_await stream.async_read_some(buffer.prepare(16 * 1024), use_nothrow);
    buffer.commit(n);
    co_return !ec && n > 0;
}

// `req` lives in the session frame's parser, which awaits this coroutine.
net::awaitable<served> respond(std::shared_ptr<server_state> st, read_result rr,
                                     http::request<http::string_body>& req, tcp::socket& peer) {
    if (rr.status == read_status::too_large)
        co_return json_error(413, detail::cat("request body is larger than ",
                                              std::to_string(st->settings.max_body_bytes),
                                              " bytes"));
    if (rr.status == read_status::bad) co_return json_error(400, rr.detail);
    incoming in{std::string(req.method_string()), std::string(req.target()), std::nullopt,
                std::move(req.body())};
    if (auto it = req.find(http::field::authorization); it != req.end())
        in.authorization = std::string(it->value());
    auth_policy const policy{st->auth != nullptr, st->settings.allow_anonymous};
    auto screened = screen_credentials(in.authorization, policy);
    if (auto* reply = std::get_if<server_reply>(&screened)) co_return std::move(*reply);
    std::optional<std::string> user;
    if (auto* credentials = std::get_if<basic_credentials>(&screened)) {
        bool const verified = co_await st->auth->verify(credentials->user, credentials->password);
        if (!verified) co_return wrong_credentials();
        user = std::move(credentials->user);
    }
    auto admitted = admit(std::move(in), std::move(user));
    if (auto* reply = std::get_if<server_reply>(&admitted)) co_return std::move(*reply);
    served answer = co_await serve(st, std::get<api::request>(std::move(admitted)), peer);
    co_return answer;
}

// A HEAD answer keeps the Content-Length of the body it would have had, without the body.
http::response<http::string_body> to_beast(server_reply reply, unsigned version, bool keep,
                                           bool head) {
    if (reply.response.status < 100 || reply.response.status > 999)
        reply = json_error(500, detail::cat("internal error: the handler answered with status ",
                                            std::to_string(reply.response.status)));
    http::response<http::string_body> res;
    res.version(version);
    res.result(reply.response.status);
    res.set(http::field::content_type, reply.response.content_type);
    if (reply.challenge) res.set(http::field::www_authenticate, "Basic realm=\"torcrun\"");
    res.body() = std::move(reply.response.body);
    res.keep_alive(keep);
    res.prepare_payload();
    if (head) res.body().clear();
    return res;
}

// After refusing a request whose body was not read: half-close, then discard what the client
// still sends, so that closing does not reset the connection before it reads the answer.
// `stream` lives in the caller's frame, which awaits this coroutine.
template <class Stream>
net::awaitable<void> linger(Stream& stream, std::chrono::milliseconds limit) {
    beast::error_code ignored;
    socket_of(stream).shutdown(tcp::socket::shutdown_send, ignored);
    beast::get_lowest_layer(stream).expires_after(limit);
    std::array<char, 16 * 1024> sink;
    for (;;) {
        auto [ec, n] = co_await stream.async_read_some(net::buffer(sink), use_nothrow);
        if (ec) co_return;
    }
}

// The handler's event listener; a weak reference, since the handler may outlive the server.
struct event_listener {
    std::weak_ptr<server_state> weak;
    void operator()(std::int64_t workflow_id, std::string const& frame) const {
        if (auto st = weak.lock()) server_detail::publish_frame(*st, workflow_id, frame);
    }
};

// Lists a stream under its workflow exactly while its frame lives. The handler reads new event
// rows after each change only while some stream is open: the first stream sets its listener
// (which starts from the newest row), the last one to close clears it.
class stream_listing {
public:
    stream_listing(std::shared_ptr<server_state> const& st, std::int64_t workflow_id,
                   std::shared_ptr<stream_client> c)
        : st_(*st), it_(st->streams.emplace(workflow_id, std::move(c))) {
        if (st_.streams.size() == 1) st_.handler.set_event_listener(event_listener{st});
    }
    ~stream_listing() {
        st_.streams.erase(it_);
        if (st_.streams.empty()) st_.handler.set_event_listener(nullptr);
    }
    stream_listing(stream_listing const&) = delete;
    stream_listing& operator=(stream_listing const&) = delete;

private:
    server_state& st_;
    std::unordered_multimap<std::int64_t, std::shared_ptr<stream_client>>::iterator it_;
};

// Notices the client closing while nothing is written: a read that ends only at EOF or error.
// The handler holds the client (and the buffer) by shared_ptr, so it may run after the session.
void watch_peer(std::shared_ptr<stream_client> c) {
    c->socket->async_read_some(net::buffer(c->sink),
                               [c](boost::system::error_code ec, std::size_t) {
                                   if (c->dropped) return;
                                   if (ec) {
                                       c->peer_closed = true;
                                       c->timer->cancel();
                                       return;
                                   }
                                   watch_peer(c);  // whatever it sends is ignored
                               });
}

// `GET /workflows/{id}/events/stream` after the handler accepted it: the header (no length; the
// body ends when the connection closes), then each frame as it comes and a keep-alive comment
// after `stream_keep_alive` of silence, until the client goes, falls behind or the server stops.
// The watcher reads the TCP socket under TLS too: nothing else reads it any more, and the end of
// the TCP stream is what tells a client gone.
template <class Stream>
net::awaitable<void> stream_events(std::shared_ptr<server_state> st, Stream& stream,
                                   api::event_stream es, unsigned version) {
    beast::get_lowest_layer(stream).expires_never();
    net::steady_timer timer(st->ioc);
    auto c = std::make_shared<stream_client>();
    c->socket = &socket_of(stream);
    c->timer = &timer;
    stream_listing const listed(st, es.workflow_id, c);
    std::string out = detail::cat(version == 10 ? "HTTP/1.0" : "HTTP/1.1",
                                  " 200 OK\r\nContent-Type: text/event-stream\r\n"
                                  "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n"
                                  "Connection: close\r\n\r\n");
    watch_peer(c);
    st->log.write(log_level::debug, "http", "event stream opened",
                  {{"workflow_id", std::to_string(es.workflow_id)}});
    bool quiet = false;  // the last wait ran out with nothing to write
    for (;;) {
        if (quiet && c->queue.empty()) out += core::sse_keep_alive;
        while (!c->queue.empty()) {
            out += c->queue.front();
            c->queued_bytes -= c->queue.front().size();
            c->queue.pop_front();
        }
        if (!out.empty()) {
            // A client that does not read blocks this write; publish_frame drops it once its
            // queue is full, and the stop cancels it.
            auto [ec, n] = co_await net::async_write(stream, net::buffer(out), use_nothrow);
            out.clear();
            if (ec) break;
        }
        if (st->stopping || c->dropped || c->peer_closed) break;
        if (!c->queue.empty()) continue;
        timer.expires_after(st->settings.stream_keep_alive);
        auto [ec] = co_await timer.async_wait(use_nothrow);
        quiet = !ec;
        if (st->stopping || c->dropped || c->peer_closed) break;
    }
    st->log.write(log_level::debug, "http", "event stream closed",
                  {{"workflow_id", std::to_string(es.workflow_id)},
                   {"reason", c->dropped       ? "client too far behind"
                              : c->peer_closed ? "client closed"
                              : st->stopping   ? "server stopping"
                                               : "write failed"}});
    bool const client_there = !c->peer_closed && !c->dropped;
    c->dropped = true;  // the watcher's handler, if still pending, only returns
    if (client_there) co_await close_stream(stream, std::chrono::seconds(1));
    beast::error_code ignored;
    socket_of(stream).shutdown(tcp::socket::shutdown_both, ignored);
    socket_of(stream).close(ignored);
}

}  // namespace

template <class Stream>
net::awaitable<void> run_session(std::shared_ptr<server_state> st, Stream stream) {
    registration reg(st, socket_of(stream));
    reg.set(phase::idle);  // a stop ends a handshake at once
    bool const ready = co_await handshake(st, stream, st->settings.handshake_timeout);
    if (!ready) co_return;
    beast::flat_buffer buffer;
    while (!st->stopping) {
        reg.set(phase::idle);
        bool const has_request = co_await wait_for_request(st, stream, buffer);
        if (!has_request) co_return;
        reg.set(phase::busy);
        request_parser parser;
        parser.body_limit(st->settings.max_body_bytes);
        read_result const rr = co_await read_request(st, stream, buffer, parser);
        if (rr.status == read_status::closed) {
            st->log.write(log_level::debug, "http", "connection closed", {{"reason", rr.detail}});
            co_return;
        }
        auto& req = parser.get();
        served answer = co_await respond(st, rr, req, socket_of(stream));
        if (auto* es = std::get_if<api::event_stream>(&answer)) {
            co_await stream_events(st, stream, *es, req.version());
            co_return;
        }
        server_reply reply = std::get<server_reply>(std::move(answer));
        bool const keep = rr.status == read_status::ok && req.keep_alive() && !st->stopping;
        auto res = to_beast(std::move(reply), req.version(), keep,
                            req.method() == http::verb::head);
        beast::get_lowest_layer(stream).expires_after(st->settings.write_timeout);
        auto [ec, n] = co_await http::async_write(stream, res, use_nothrow);
        st->log.write(log_level::debug, "http", "request",
                      {{"method", req.method_string()}, {"target", req.target()},
                       {"status", std::to_string(res.result_int())}});
        if (ec) co_return;
        if (!keep) {
            if (rr.status == read_status::ok) break;
            reg.set(phase::idle);
            co_await linger(stream, std::min<std::chrono::milliseconds>(
                                        st->settings.read_timeout, std::chrono::seconds(5)));
            co_return;
        }
    }
    co_await close_stream(stream, std::min<std::chrono::milliseconds>(st->settings.write_timeout,
                                                                      std::chrono::seconds(1)));
}

// ---- a connection beyond the cap

namespace {

// Counts a refusal in progress exactly while its frame lives.
class refusal {
public:
    explicit refusal(std::shared_ptr<server_state> st) : st_(std::move(st)) {
        ++st_->refusing;
        ++st_->refused;
    }
    ~refusal() { --st_->refusing; }
    refusal(refusal const&) = delete;
    refusal& operator=(refusal const&) = delete;

private:
    std::shared_ptr<server_state> st_;
};

}  // namespace

// The most refusals in progress at once; past it a connection is closed unanswered, so that
// refusing costs a bounded number of descriptors too.
constexpr std::size_t max_refusing = 64;
constexpr std::chrono::seconds refusal_step{1};  // for each of read, write and linger

// A connection beyond the cap: (with TLS, the handshake,) read what the client sent (so that
// closing does not reset the connection before it reads the answer), answer 503 with
// `Connection: close`, linger, close. Every step is short, and the connection is not counted
// among the open ones.
template <class Stream>
net::awaitable<void> refuse_connection(std::shared_ptr<server_state> st, Stream stream) {
    refusal const counted(st);
    bool const ready = co_await handshake(st, stream, refusal_step);
    if (!ready) co_return;
    beast::flat_buffer buffer;
    beast::get_lowest_layer(stream).expires_after(refusal_step);
    [[maybe_unused]] auto [rec, rn] =
        co_await stream.async_read_some(buffer.prepare(16 * 1024), use_nothrow);
    auto reply = json_error(
        503, detail::cat("server busy: ", std::to_string(st->max_connections),
                         " connections are open, the most this server accepts "
                         "(max_connections); try again later"));
    auto res = to_beast(std::move(reply), 11, false, false);
    res.set(http::field::retry_after, "1");
    beast::get_lowest_layer(stream).expires_after(refusal_step);
    auto [wec, wn] = co_await http::async_write(stream, res, use_nothrow);
    if (!wec) co_await linger(stream, refusal_step);
    beast::error_code ignored;
    socket_of(stream).close(ignored);
}

}  // namespace server_detail

// ---- the server

namespace {

void set_cloexec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC); }

void log_failure(server_state const& st, char const* task, std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (std::exception const& x) {
        st.log.write(log_level::err, "http", "task failed", {{"task", task}, {"error", x.what()}});
    } catch (...) {
        st.log.write(log_level::err, "http", "task failed", {{"task", task}});
    }
}

struct task_finished {
    std::shared_ptr<server_state> st;
    char const* task;
    void operator()(std::exception_ptr e) const {
        if (e) log_failure(*st, task, e);
    }
};

// The handler's change listener; a weak reference, since the handler may outlive the server.
struct change_listener {
    std::weak_ptr<server_state> weak;
    void operator()(std::int64_t workflow_id) const {
        if (auto st = weak.lock()) server_detail::wake_workflow(*st, workflow_id);
    }
};

struct commit_listener {
    std::weak_ptr<server_state> weak;
    void operator()(std::uint64_t group, std::optional<std::string> const& failure) const {
        if (auto st = weak.lock()) st->commits.done(group, failure);
    }
};

net::awaitable<void> pause(net::any_io_executor ex, std::chrono::milliseconds delay) {
    net::steady_timer timer(ex, delay);
    [[maybe_unused]] auto [ec] = co_await timer.async_wait(use_nothrow);
}

// One warning per interval while accept keeps failing, with the failures since the last one.
void report_accept_failure(server_state& st, int err) {
    auto const count = st.accept_failures.failed(std::chrono::steady_clock::now());
    if (!count) return;
    st.log.write(log_level::warning, "http", "accept failed; backing off",
                 {{"error", std::generic_category().message(err)},
                  {"failures", std::to_string(*count)},
                  {"open_connections", std::to_string(st.connections.size())},
                  {"max_connections", std::to_string(st.max_connections)}});
}

// Spawns `task(st, stream)` over the stream this server speaks: TLS when it has a context.
template <class Task>
void spawn_over_stream(std::shared_ptr<server_state> const& st, tcp::socket socket,
                       char const* name, Task task) {
    auto ex = socket.get_executor();
    if (st->settings.tls)
        net::co_spawn(ex, task(st, server_detail::tls_stream(std::move(socket), *st->settings.tls)),
                      task_finished{st, name});
    else
        net::co_spawn(ex, task(st, boost::beast::tcp_stream(std::move(socket))),
                      task_finished{st, name});
}

void refuse(std::shared_ptr<server_state> const& st, tcp::socket socket) {
    if (st->refused % 100 == 0)  // the 1st, 101st, ... refusal: a steady overload is one line
        st->log.write(log_level::warning, "http", "connection refused: at max_connections",
                      {{"max_connections", std::to_string(st->max_connections)},
                       {"refused", std::to_string(st->refused + 1)}});
    if (st->refusing >= server_detail::max_refusing) {
        ++st->refused;
        boost::system::error_code ignored;
        socket.close(ignored);
        return;
    }
    spawn_over_stream(st, std::move(socket), "refusal", [](auto state, auto stream) {
        return server_detail::refuse_connection(std::move(state), std::move(stream));
    });
}

// The cap in force: the configured one, or one sized from the soft descriptor limit.
std::size_t connection_cap(server_settings const& settings) {
    if (settings.max_connections) return std::max<std::size_t>(1, *settings.max_connections);
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return core::connection_cap_for(1U << 20);
    return core::connection_cap_for(limit.rlim_cur);
}

// accept4 with SOCK_CLOEXEC: no window in which a child spawned meanwhile inherits the socket
// (Asio's own accept does not set the flag).
net::awaitable<void> accept_loop(std::shared_ptr<server_state> st) {
    auto ex = co_await net::this_coro::executor;
    for (;;) {
        auto [ec] = co_await st->acceptor.async_wait(tcp::acceptor::wait_read, use_nothrow);
        if (st->stopping || !st->acceptor.is_open()) co_return;
        int fd = ec ? -1 : ::accept4(st->acceptor.native_handle(), nullptr, nullptr,
                                     SOCK_CLOEXEC | SOCK_NONBLOCK);
        int const err = ec ? ec.value() : errno;
        if (fd < 0) {
            if (err == EAGAIN || err == EWOULDBLOCK || err == ECONNABORTED || err == EINTR)
                continue;
            report_accept_failure(*st, err);
            // E.g. EMFILE or ENFILE: the connection waits in the backlog until a descriptor
            // frees up; retrying at once would only spin.
            co_await pause(ex, core::accept_backoff(st->accept_failures.failures_in_a_row()));
            continue;
        }
        if (auto const failed = st->accept_failures.succeeded(); failed > 0)
            st->log.write(log_level::info, "http", "accepting again",
                          {{"failures", std::to_string(failed)}});
        tcp::socket socket(ex);
        boost::system::error_code aec;
        socket.assign(st->acceptor.local_endpoint().protocol(), fd, aec);
        if (aec) {
            ::close(fd);
            continue;
        }
        socket.set_option(tcp::no_delay(true), aec);
        if (st->connections.size() >= st->max_connections) {
            refuse(st, std::move(socket));
            continue;
        }
        spawn_over_stream(st, std::move(socket), "session", [](auto state, auto stream) {
            return server_detail::run_session(std::move(state), std::move(stream));
        });
    }
}

core::result<tcp::endpoint> listen_endpoint(server_state& st) {
    boost::system::error_code ec;
    auto address = net::ip::make_address(st.settings.host, ec);
    if (!ec) return tcp::endpoint(address, st.settings.port);
    tcp::resolver resolver(st.ioc);
    auto results = resolver.resolve(st.settings.host, std::to_string(st.settings.port),
                                    tcp::resolver::passive, ec);
    if (ec || results.empty())
        return core::error{detail::cat("http server: cannot resolve \"", st.settings.host,
                                       "\": ", ec ? ec.message() : "no addresses")};
    return results.begin()->endpoint();
}

boost::system::error_code open_acceptor(tcp::acceptor& acceptor, tcp::endpoint const& endpoint) {
    boost::system::error_code ec;
    if (acceptor.open(endpoint.protocol(), ec)) return ec;
    set_cloexec(acceptor.native_handle());
    if (acceptor.set_option(tcp::acceptor::reuse_address(true), ec)) return ec;
    if (acceptor.bind(endpoint, ec)) return ec;
    if (acceptor.listen(net::socket_base::max_listen_connections, ec)) return ec;
    acceptor.non_blocking(true, ec);
    return ec;
}

}  // namespace

http_server::http_server(net::io_context& ioc, server_settings settings,
                         api::request_handler& handler, logger log)
    : state_(std::make_shared<server_state>(ioc, std::move(settings), handler, std::move(log))) {}

http_server::~http_server() {
    if (state_->acceptor.is_open()) stop();
    // What is still uncommitted commits, and the handler runs alone again.
    state_->handler.set_commit_listener(nullptr);
}

core::result<std::uint16_t> http_server::start() {
    auto& st = *state_;
    if (st.settings.htpasswd_file) {
        auto users = htpasswd::load(*st.settings.htpasswd_file);
        if (!users) return users.error();
        auto check = st.settings.check_password ? st.settings.check_password
                                                : password_check(bcrypt_matches);
        st.auth = std::make_unique<authenticator>(std::move(*users), std::move(check),
                                                  st.settings.verify_threads);
    }
    st.max_connections = connection_cap(st.settings);
    auto endpoint = listen_endpoint(st);
    if (!endpoint) return endpoint.error();
    if (auto ec = open_acceptor(st.acceptor, *endpoint)) {
        boost::system::error_code ignored;
        st.acceptor.close(ignored);
        return core::error{detail::cat("http server: cannot listen on ", st.settings.host, ":",
                                       std::to_string(st.settings.port), ": ", ec.message())};
    }
    st.port = st.acceptor.local_endpoint().port();
    st.handler.set_change_listener(change_listener{state_});
    st.handler.set_commit_listener(commit_listener{state_});
    net::co_spawn(st.ioc, accept_loop(state_), task_finished{state_, "accept loop"});
    if (!st.settings.tls && !endpoint->address().is_loopback())
        st.log.write(log_level::warning, "http",
                     "plain HTTP on a non-loopback address: passwords and data cross the network "
                     "unencrypted; give the server a certificate (tls.certificate and tls.key)",
                     {{"host", st.settings.host}});
    st.log.write(log_level::info, "http", "listening",
                 {{"host", st.settings.host},
                  {"port", std::to_string(st.port)},
                  {"tls", st.settings.tls ? "on" : "off"},
                  {"auth", st.auth ? "basic" : "none"},
                  {"max_connections", std::to_string(st.max_connections)}});
    return st.port;
}

void http_server::stop() {
    auto& st = *state_;
    if (st.stopping) return;
    st.stopping = true;
    boost::system::error_code ignored;
    st.acceptor.close(ignored);
    for (auto& c : st.connections)
        if (c.now == server_detail::phase::idle) c.socket->cancel(ignored);
    server_detail::wake_all_for_stop(st);
    st.log.write(log_level::info, "http", "stopping",
                 {{"connections", std::to_string(st.connections.size())},
                  {"parked", std::to_string(st.waiters.size())}});
}

std::uint16_t http_server::port() const noexcept { return state_->port; }

std::size_t http_server::open_connections() const noexcept { return state_->connections.size(); }

std::size_t http_server::max_connections() const noexcept { return state_->max_connections; }

std::size_t http_server::refused_connections() const noexcept { return state_->refused; }

std::size_t http_server::parked_requests() const noexcept { return state_->waiters.size(); }

std::size_t http_server::open_streams() const noexcept { return state_->streams.size(); }

std::size_t http_server::max_stream_queue_bytes() const noexcept {
    std::size_t most = 0;
    for (auto const& [workflow_id, c] : state_->streams) most = std::max(most, c->queued_bytes);
    return most;
}

}  // namespace torcrun::io
