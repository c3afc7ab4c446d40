// Beast HTTP/1.1 client: connection reuse, one deadline per request, failure classification,
// and for https a TLS stream over each connection whose handshake verifies the server's
// certificate chain and its name (OpenSSL's own host or IP check, so a failure says which).
#include "torcrun/common/io/http_client.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/io/basic_auth.hpp"
#include "torcrun/common/io/net.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <fcntl.h>
#include <sys/socket.h>

#include <cerrno>
#include <vector>

namespace torcrun::io {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;

namespace {

using tls_stream = beast::ssl_stream<beast::tcp_stream&>;

struct connection {
    explicit connection(net::any_io_executor ex) : stream(std::move(ex)) {}
    beast::tcp_stream stream;  // its deadline bounds the TLS layer's reads and writes too
    std::unique_ptr<tls_stream> tls;  // https: over `stream`, destroyed before it
    beast::flat_buffer buffer;
};

enum class step { resolve, connect, handshake, write, read };

struct failure {
    step at;
    beast::error_code ec;
    bool answer_started = false;
    std::string certificate = {};  // handshake: why the server's certificate was refused
};

template <class T>
using step_result = boost::system::result<T, failure>;

}  // namespace

struct client_state {
    client_state(net::io_context& c, client_settings s) : ioc(c), settings(std::move(s)) {
        if (settings.user && settings.password)
            authorization = basic_authorization(*settings.user, *settings.password);
        if (settings.server.tls && !settings.tls) {
            auto loaded = load_client_tls(settings.tls_ca_file, "TLS CA file");
            if (loaded) settings.tls = std::move(*loaded);
            else tls_unusable = loaded.error().message;
        }
    }
    net::io_context& ioc;
    client_settings settings;
    std::optional<std::string> authorization;
    std::string tls_unusable;  // why the CAs could not be loaded; every https request fails so
    std::vector<std::unique_ptr<connection>> idle;
    std::size_t opened = 0;
};

namespace {

std::string endpoint_text(base_url const& server) {
    bool const v6 = server.host.find(':') != std::string::npos;
    auto const port = std::to_string(server.port);
    return v6 ? detail::cat("[", server.host, "]:", port) : detail::cat(server.host, ":", port);
}

bool is_closed(beast::error_code ec) {
    return ec == http::error::end_of_stream || ec == http::error::partial_message ||
           ec == net::ssl::error::stream_truncated ||
           ec == net::error::eof || ec == net::error::connection_reset ||
           ec == net::error::broken_pipe || ec == net::error::connection_aborted ||
           ec == net::error::not_connected || ec == net::error::shut_down;
}

http_error_kind classify(failure const& f) {
    if (f.ec == beast::error::timeout) return http_error_kind::timeout;
    switch (f.at) {
        case step::resolve: return http_error_kind::dns;
        case step::connect: return http_error_kind::connect_refused;
        case step::handshake:
            return is_closed(f.ec) ? http_error_kind::closed : http_error_kind::tls;
        case step::write:
        case step::read: break;
    }
    return is_closed(f.ec) ? http_error_kind::closed : http_error_kind::protocol;
}

// Whose CAs a refused certificate was checked against.
std::string trust_text(client_settings const& s) {
    return s.tls_ca_file ? detail::cat("trusting the CAs of \"", *s.tls_ca_file, "\"")
                         : std::string("trusting the system's CA store");
}

std::string handshake_problem(client_state const& st, failure const& f) {
    if (!f.certificate.empty())
        return detail::cat("the server's certificate was refused: ", f.certificate, " (",
                           trust_text(st.settings), ")");
    auto const reason = f.ec.message();
    if (reason.find("wrong version number") != std::string::npos ||
        reason.find("packet length too long") != std::string::npos)
        return detail::cat(reason, " (does the server speak https?)");
    return reason;
}

http_error describe(client_state const& st, std::string const& what, failure const& f,
                    std::chrono::milliseconds timeout) {
    static constexpr char const* step_names[] = {"resolve", "connect", "TLS handshake with",
                                                 "write", "read"};
    auto const kind = classify(f);
    auto const where =
        f.at == step::resolve ? st.settings.server.host : endpoint_text(st.settings.server);
    auto const why = kind == http_error_kind::timeout
                         ? detail::cat("timed out after ", std::to_string(timeout.count()), " ms")
                     : kind == http_error_kind::tls ? handshake_problem(st, f)
                                                    : f.ec.message();
    return http_error{kind, detail::cat(what, ": ", step_names[static_cast<int>(f.at)], " ",
                                        where, ": ", why),
                      0, {}};
}

http_result<http_reply> to_reply(std::string const& what, http::response<http::string_body>& res) {
    unsigned const status = res.result_int();
    if (status >= 200 && status < 300)
        return http_reply{status, std::move(res.body()),
                          std::string(res[http::field::content_type])};
    constexpr std::size_t shown = 300;
    std::string message = detail::cat(what, ": HTTP ", std::to_string(status));
    if (!res.body().empty())
        message += detail::cat(": ", std::string_view(res.body()).substr(0, shown),
                               res.body().size() > shown ? "..." : "");
    http_error_kind kind = http_error_kind::protocol;
    if (status >= 400 && status < 500) kind = http_error_kind::http_4xx;
    if (status >= 500 && status < 600) kind = http_error_kind::http_5xx;
    return http_error{kind, std::move(message), status, std::move(res.body())};
}

// An idle connection is reusable only when the server has neither closed it nor sent anything.
bool still_open(connection& c) {
    if (c.buffer.size() > 0) return false;
    char byte;
    auto n = ::recv(c.stream.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

std::unique_ptr<connection> take_idle(client_state& st) {
    while (!st.idle.empty()) {
        auto conn = std::move(st.idle.back());
        st.idle.pop_back();
        if (still_open(*conn)) return conn;
    }
    return nullptr;
}

// The request reached the server on a stale connection, or never fully reached it, and no
// answer began: the server cannot have acted on it.
bool retry_on_new_connection(failure const& f) {
    if (f.ec == beast::error::timeout) return false;
    if (f.at == step::write) return true;
    return f.at == step::read && !f.answer_started &&
           (f.ec == http::error::end_of_stream || f.ec == net::error::eof ||
            f.ec == net::error::connection_reset || f.ec == net::ssl::error::stream_truncated);
}

http::request<http::string_body> build_request(client_state const& st, std::string const& method,
                                               std::string const& path, std::string body) {
    http::request<http::string_body> req;
    req.method_string(method);
    req.target(st.settings.server.path + path);
    req.version(11);
    req.set(http::field::host, st.settings.server.host_header);
    req.set(http::field::user_agent, "torcrun");
    req.set(http::field::accept, "application/json");
    if (st.authorization) req.set(http::field::authorization, *st.authorization);
    if (!body.empty()) req.set(http::field::content_type, "application/json");
    req.body() = std::move(body);
    req.keep_alive(true);
    req.prepare_payload();
    return req;
}

struct resolve_op {
    explicit resolve_op(net::any_io_executor const& ex) : resolver(ex), timer(ex) {}
    tcp::resolver resolver;
    net::steady_timer timer;
    bool timed_out = false;
};

// getaddrinfo ignores socket deadlines, so a timer cancels the lookup.
struct resolve_watchdog {
    std::shared_ptr<resolve_op> op;
    void operator()(beast::error_code ec) const {
        if (ec) return;
        op->timed_out = true;
        op->resolver.cancel();
    }
};

net::awaitable<step_result<std::vector<tcp::endpoint>>> resolve(std::shared_ptr<client_state> st,
                                                                steady::time_point deadline) {
    auto const& server = st->settings.server;
    beast::error_code ec;
    auto address = net::ip::make_address(server.host, ec);
    if (!ec) co_return std::vector<tcp::endpoint>{tcp::endpoint(address, server.port)};
    auto op = std::make_shared<resolve_op>(st->ioc.get_executor());
    op->timer.expires_at(deadline);
    op->timer.async_wait(resolve_watchdog{op});
    auto [rec, results] =
        co_await op->resolver.async_resolve(server.host, std::to_string(server.port), use_nothrow);
    op->timer.cancel();
    if (op->timed_out) co_return failure{step::resolve, beast::error::timeout};
    if (rec) co_return failure{step::resolve, rec};
    std::vector<tcp::endpoint> endpoints;
    for (auto const& entry : results) endpoints.push_back(entry.endpoint());
    co_return endpoints;
}

void set_cloexec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC); }

// The socket is opened here rather than inside async_connect so that FD_CLOEXEC is set before
// any other handler (a child spawn) can run.
net::awaitable<step_result<std::unique_ptr<connection>>> open_connection(
    std::shared_ptr<client_state> st, steady::time_point deadline) {
    auto endpoints = co_await resolve(st, deadline);
    if (!endpoints) co_return endpoints.error();
    failure last{step::connect, net::error::host_not_found};
    for (auto const& endpoint : *endpoints) {
        auto conn = std::make_unique<connection>(st->ioc.get_executor());
        auto& socket = conn->stream.socket();
        beast::error_code ec;
        if (socket.open(endpoint.protocol(), ec)) {
            last = failure{step::connect, ec};
            continue;
        }
        set_cloexec(socket.native_handle());
        conn->stream.expires_at(deadline);
        auto [cec] = co_await conn->stream.async_connect(endpoint, use_nothrow);
        if (!cec) {
            socket.set_option(tcp::no_delay(true), ec);
            ++st->opened;
            co_return conn;
        }
        last = failure{step::connect, cec};
        if (cec == beast::error::timeout) break;
    }
    co_return last;
}

// Plain words for the verification failures people meet; OpenSSL's own text follows them.
std::string certificate_problem(long verdict, std::string const& host) {
    std::string const openssl = ::X509_verify_cert_error_string(verdict);
    switch (verdict) {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        case X509_V_ERR_CERT_UNTRUSTED: return detail::cat("unknown CA: ", openssl);
        case X509_V_ERR_HOSTNAME_MISMATCH:
        case X509_V_ERR_IP_ADDRESS_MISMATCH:
            return detail::cat("name mismatch: it is not a certificate for ", host, " (", openssl,
                               ")");
        case X509_V_ERR_CERT_HAS_EXPIRED: return detail::cat("expired: ", openssl);
        case X509_V_ERR_CERT_NOT_YET_VALID: return detail::cat("not valid yet: ", openssl);
        default: return openssl;
    }
}

// SNI and the name the certificate must carry: the URL's host, as a name or as an IP address.
void expect_server_name(SSL* ssl, std::string const& host) {
    beast::error_code ec;
    net::ip::make_address(host, ec);
    if (!ec) {
        ::X509_VERIFY_PARAM_set1_ip_asc(::SSL_get0_param(ssl), host.c_str());
        return;
    }
    ::SSL_set_tlsext_host_name(ssl, host.c_str());
    ::SSL_set1_host(ssl, host.c_str());
}

net::awaitable<std::optional<failure>> handshake(std::shared_ptr<client_state> st,
                                                 connection& conn, steady::time_point deadline) {
    conn.tls = std::make_unique<tls_stream>(conn.stream, *st->settings.tls);
    expect_server_name(conn.tls->native_handle(), st->settings.server.host);
    conn.stream.expires_at(deadline);
    auto [ec] = co_await conn.tls->async_handshake(net::ssl::stream_base::client, use_nothrow);
    if (!ec) co_return std::nullopt;
    failure f{step::handshake, ec};
    long const verdict = ::SSL_get_verify_result(conn.tls->native_handle());
    if (verdict != X509_V_OK)
        f.certificate = certificate_problem(verdict, st->settings.server.host);
    co_return f;
}

// `stream`, `buffer`, `req` and `parser` live in the caller's frame, which awaits this coroutine.
template <class Stream>
net::awaitable<std::optional<failure>> exchange_over(
    Stream& stream, beast::flat_buffer& buffer, http::request<http::string_body>& req,
    http::response_parser<http::string_body>& parser) {
    auto [wec, wn] = co_await http::async_write(stream, req, use_nothrow);
    if (wec) co_return failure{step::write, wec};
    auto [rec, rn] = co_await http::async_read(stream, buffer, parser, use_nothrow);
    if (rec) co_return failure{step::read, rec, parser.got_some()};
    co_return std::nullopt;
}

// `conn`, `req` and `parser` live in the caller's frame, which awaits this coroutine.
net::awaitable<std::optional<failure>> exchange(connection& conn,
                                                http::request<http::string_body>& req,
                                                http::response_parser<http::string_body>& parser,
                                                steady::time_point deadline) {
    conn.stream.expires_at(deadline);
    if (conn.tls) {
        auto failed = co_await exchange_over(*conn.tls, conn.buffer, req, parser);
        co_return failed;
    }
    auto failed = co_await exchange_over(conn.stream, conn.buffer, req, parser);
    co_return failed;
}

net::awaitable<http_result<http_reply>> run_request(std::shared_ptr<client_state> st,
                                                    std::string method, std::string path,
                                                    std::string body,
                                                    std::chrono::milliseconds timeout) {
    auto const deadline = steady::now() + timeout;
    auto req = build_request(*st, method, path, std::move(body));
    std::string const what = detail::cat(method, " ", path);
    for (int attempt = 0;; ++attempt) {
        auto conn = take_idle(*st);
        bool const reused = conn != nullptr;
        if (!conn) {
            if (!st->tls_unusable.empty())
                co_return http_error{http_error_kind::tls,
                                     detail::cat(what, ": ", st->tls_unusable), 0, {}};
            auto opened = co_await open_connection(st, deadline);
            if (!opened) co_return describe(*st, what, opened.error(), timeout);
            conn = std::move(*opened);
            if (st->settings.server.tls) {
                auto refused = co_await handshake(st, *conn, deadline);
                if (refused) co_return describe(*st, what, *refused, timeout);
            }
        }
        http::response_parser<http::string_body> parser;
        parser.body_limit(boost::none);  // list answers can be large; the server is trusted
        auto const failed = co_await exchange(*conn, req, parser, deadline);
        if (failed) {
            if (reused && attempt == 0 && retry_on_new_connection(*failed)) continue;
            co_return describe(*st, what, *failed, timeout);
        }
        auto& res = parser.get();
        if (res.keep_alive() && st->idle.size() < st->settings.max_idle_connections) {
            conn->stream.expires_never();
            st->idle.push_back(std::move(conn));
        }
        co_return to_reply(what, res);
    }
}

}  // namespace

http_client::http_client(net::io_context& ioc, client_settings settings)
    : state_(std::make_shared<client_state>(ioc, std::move(settings))) {}

http_client::~http_client() = default;

net::awaitable<http_result<http_reply>> http_client::request(
    std::string method, std::string path, std::string body,
    std::optional<std::chrono::milliseconds> timeout) {
    return run_request(state_, std::move(method), std::move(path), std::move(body),
                       timeout.value_or(state_->settings.timeout));
}

std::size_t http_client::connections_opened() const noexcept { return state_->opened; }

std::size_t http_client::idle_connections() const noexcept { return state_->idle.size(); }

void http_client::close_idle() { state_->idle.clear(); }

}  // namespace torcrun::io
