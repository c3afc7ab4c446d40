// One HTTP/1.1 connection of the server (Beast): wait for a request (keep-alive idle), read it
// within the read timeout and the body limit, let the gate and the handler answer, write the
// answer, and repeat until either side closes or the server stops.
#include "torcrun/common/concat.hpp"
#include "server_state.hpp"
#include "torcrun/common/io/net.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <array>
#include <chrono>

namespace torcrun::io::server_detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

using request_parser = http::request_parser<http::string_body>;

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
net::awaitable<read_result> read_request(std::shared_ptr<server_state> st,
                                         beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                         request_parser& parser) {
    stream.expires_after(st->settings.read_timeout);
    auto [ec, n] = co_await http::async_read_header(stream, buffer, parser, use_nothrow);
    if (!ec && expects_continue(parser.get())) {
        http::response<http::empty_body> go_on{http::status::continue_, parser.get().version()};
        stream.expires_after(st->settings.write_timeout);
        auto [wec, wn] = co_await http::async_write(stream, go_on, use_nothrow);
        ec = wec;
        stream.expires_after(st->settings.read_timeout);
    }
    if (!ec && !parser.is_done()) {
        auto [bec, bn] = co_await http::async_read(stream, buffer, parser, use_nothrow);
        ec = bec;
    }
    co_return classify_read(ec);
}

// Waits for the first byte of the next request: the keep-alive idle phase.
net::awaitable<bool> wait_for_request(std::shared_ptr<server_state> st,
                                      beast::tcp_stream& stream, beast::flat_buffer& buffer) {
    if (buffer.size() > 0) co_return true;  // pipelined bytes already read
    stream.expires_after(st->settings.idle_timeout);
    auto [ec, n] = co_await stream.async_read_some(buffer.prepare(16 * 1024), use_nothrow);
    buffer.commit(n);
    co_return !ec && n > 0;
}

// `req` lives in the session frame's parser, which awaits this coroutine.
net::awaitable<server_reply> respond(std::shared_ptr<server_state> st, read_result rr,
                                     http::request<http::string_body>& req) {
    if (rr.status == read_status::too_large)
        co_return json_error(413, detail::cat("request body is larger than ",
                                              std::to_string(st->settings.max_body_bytes),
                                              " bytes"));
    if (rr.status == read_status::bad) co_return json_error(400, rr.detail);
    incoming in{std::string(req.method_string()), std::string(req.target()), std::nullopt,
                std::move(req.body())};
    if (auto it = req.find(http::field::authorization); it != req.end())
        in.authorization = std::string(it->value());
    auth_policy const policy{st->users ? &*st->users : nullptr, st->settings.allow_anonymous};
    auto admitted = admit(std::move(in), policy);
    if (auto* reply = std::get_if<server_reply>(&admitted)) co_return std::move(*reply);
    server_reply answer = co_await serve(st, std::get<api::request>(std::move(admitted)));
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
net::awaitable<void> linger(std::shared_ptr<server_state> st, beast::tcp_stream& stream) {
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream.expires_after(std::min<std::chrono::milliseconds>(st->settings.read_timeout,
                                                              std::chrono::seconds(5)));
    std::array<char, 16 * 1024> sink;
    for (;;) {
        auto [ec, n] = co_await stream.async_read_some(net::buffer(sink), use_nothrow);
        if (ec) co_return;
    }
}

}  // namespace

net::awaitable<void> run_session(std::shared_ptr<server_state> st, tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    registration reg(st, stream.socket());
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
        server_reply reply = co_await respond(st, rr, req);
        bool const keep = rr.status == read_status::ok && req.keep_alive() && !st->stopping;
        auto res = to_beast(std::move(reply), req.version(), keep,
                            req.method() == http::verb::head);
        stream.expires_after(st->settings.write_timeout);
        auto [ec, n] = co_await http::async_write(stream, res, use_nothrow);
        st->log.write(log_level::debug, "http", "request",
                      {{"method", req.method_string()}, {"target", req.target()},
                       {"status", std::to_string(res.result_int())}});
        if (ec) co_return;
        if (!keep) {
            if (rr.status == read_status::ok) break;
            reg.set(phase::idle);
            co_await linger(st, stream);
            co_return;
        }
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

}  // namespace torcrun::io::server_detail
