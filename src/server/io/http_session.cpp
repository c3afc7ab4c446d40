// One connection of the HTTP server (http_server_state.hpp): with TLS the handshake first, then
// wait for a request (keep-alive idle), read it within the read timeout and the body limit, let
// the gate and the handler answer, write the answer, and repeat until either side closes or the
// server stops; an event stream holds its connection until its end. The session is written once
// over a stream type: beast::tcp_stream, or the TLS stream over one; sockets and deadlines are
// always the TCP layer's. And a connection beyond the cap: answered 503 and closed.
#include "http_server_state.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/server/event_stream.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <chrono>

namespace torcrun::io {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace server_detail {

// ---- one connection

namespace beast = boost::beast;
namespace http = beast::http;

namespace {

using request_parser = http::request_parser<http::string_body>;

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

// The two streams a server speaks (http_server.cpp spawns one or the other).
template net::awaitable<void> run_session(std::shared_ptr<server_state>, beast::tcp_stream);
template net::awaitable<void> run_session(std::shared_ptr<server_state>, tls_stream);
template net::awaitable<void> refuse_connection(std::shared_ptr<server_state>, beast::tcp_stream);
template net::awaitable<void> refuse_connection(std::shared_ptr<server_state>, tls_stream);

}  // namespace server_detail

}  // namespace torcrun::io
