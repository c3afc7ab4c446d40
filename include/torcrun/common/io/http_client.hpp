// The HTTP client of the worker and the CLI commands: Beast over keep-alive connections to one
// server (`http://host:port/base`, or https: TLS with the server's certificate verified for the
// URL's host against the settings' CAs), a deadline on every request, optional Basic auth, and
// failures as values classified by kind, so callers decide on retries by kind and never by
// message text (Torc 0.10 looks for words like "connection" in the error's text, which its HTTP
// library's messages may not contain; docs/TORC-COMPATIBILITY.md §6.2).
//
// Connections: a request takes an idle connection or opens one, and gives it back when the
// server keeps it alive, so concurrent requests (a parked long-poll claim and a completion)
// each get their own. An idle connection the server has closed is noticed before reuse; a
// reused connection that fails before any byte of the answer is retried once on a new one.
#pragma once

#include "torcrun/common/io/http_url.hpp"
#include "torcrun/common/io/tls_context.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}

namespace torcrun::io {

// connect_refused also covers unreachable hosts and networks; closed covers a reset, or an end
// of the connection before the answer was complete; protocol is an answer that is not HTTP/1.1
// or has a 1xx/3xx status; tls is a failed TLS handshake (a certificate not trusted or not for
// the host, a server that does not speak TLS) or CAs that cannot be loaded.
enum class http_error_kind {
    connect_refused, dns, timeout, closed, http_4xx, http_5xx, protocol, tls };

std::string_view to_string(http_error_kind kind) noexcept;

struct http_reply {
    unsigned status = 0;  // 2xx
    std::string body;
    std::string content_type;
};

struct http_error {
    http_error_kind kind;
    // `POST /workflows/3/claim_next_jobs: connect 127.0.0.1:8080: Connection refused`
    std::string message;
    unsigned status = 0;  // http_4xx and http_5xx
    std::string body;     // the server's answer for http_4xx and http_5xx

    // Worth retrying after a pause: the server may come back (connect, dns, timeout, closed,
    // and 502/503/504 from a proxy in front of it).
    bool transient() const noexcept;
};

[[noreturn]] void throw_exception_from_error(http_error const& e,
                                             boost::source_location const& loc);

template <class T>
using http_result = boost::system::result<T, http_error>;

struct client_settings {
    base_url server;
    std::chrono::milliseconds timeout{30'000};  // per request: connect, write and read together
    std::optional<std::string> user;            // with password: Basic auth on every request
    std::optional<std::string> password;
    std::size_t max_idle_connections = 4;
    // For an https server: the CAs trusted (load_client_tls), and the file they came from for
    // messages (nullopt = the system's store). A null `tls` is loaded from `tls_ca_file` when
    // the client is made; a file that fails then fails every request with its reason.
    std::optional<std::string> tls_ca_file;
    tls_context tls;
};

struct client_state;

class http_client {
public:
    http_client(boost::asio::io_context& ioc, client_settings settings);
    ~http_client();
    http_client(http_client const&) = delete;
    http_client& operator=(http_client const&) = delete;

    // `path` is relative to the base URL and may carry a query ("/jobs?workflow_id=3"). A
    // non-empty body is sent as application/json. `timeout` overrides the settings' (long-poll
    // claims need the wait plus a margin). The awaitable shares the client's state, so it may
    // outlive the client object (not the io_context).
    boost::asio::awaitable<http_result<http_reply>> request(
        std::string method, std::string path, std::string body = {},
        std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    std::size_t connections_opened() const noexcept;
    std::size_t idle_connections() const noexcept;
    void close_idle();  // e.g. before the worker sleeps for a long time

private:
    std::shared_ptr<client_state> state_;
};

// For CLI commands: runs its own io_context until each reply. Keeps the connection between calls.
class blocking_http_client {
public:
    explicit blocking_http_client(client_settings settings);
    ~blocking_http_client();
    blocking_http_client(blocking_http_client const&) = delete;
    blocking_http_client& operator=(blocking_http_client const&) = delete;

    http_result<http_reply> request(
        std::string method, std::string path, std::string body = {},
        std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    http_client& async_client() noexcept { return *client_; }

private:
    std::unique_ptr<boost::asio::io_context> ioc_;
    std::unique_ptr<http_client> client_;
};

}  // namespace torcrun::io
