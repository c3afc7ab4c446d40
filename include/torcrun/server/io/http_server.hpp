// The HTTP/1.1 server of `torcrun server` (and of the embedded server of `torcrun run`): Beast on
// one single-threaded io_context, serving the Torc REST API under /torc-service/v1 through an
// `api::request_handler`. It owns sockets, limits, TLS (HTTPS when given a server context, every
// connection then TLS), Basic auth (checked by an `authenticator`: cached, bcrypt off the reactor
// thread) and long-poll parking; every decision about what a request means belongs to the handler.
//
// Open connections (event streams included) are capped: one accepted beyond `max_connections`
// is answered `503 {"message": ...}` with `Retry-After: 1` and closed, and while accept fails
// (EMFILE: no descriptor left) the server backs off and logs one warning per 10 s with a count.
//
// Connection life: with TLS first the handshake (`handshake_timeout`; the connection counts
// against the cap meanwhile, and a client that never finishes is dropped when it runs out), then
// idle (keep-alive wait, `idle_timeout`) -> reading (`read_timeout` for the whole
// request) -> busy (handler, parked long poll, write) -> idle again or closed. `stop()` closes the
// acceptor and idle connections at once, answers parked long polls (handler called with
// may_wait=false), lets busy connections finish their response with `Connection: close` (a
// request that has begun to arrive gets its read timeout to finish), and then has no work left,
// so the io_context's run() returns.
#pragma once

#include "torcrun/server/http_types.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/io/logger.hpp"
#include "torcrun/common/io/tls_context.hpp"
#include "torcrun/server/io/htpasswd.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace boost::asio {
class io_context;
}

namespace torcrun::io {

struct server_settings {
    std::string host = "127.0.0.1";  // an address or a name resolved once at start
    std::uint16_t port = 8080;       // 0 = an ephemeral port, see http_server::port()
    std::uint64_t max_body_bytes = 16 * 1024 * 1024;
    std::chrono::milliseconds idle_timeout{60'000};  // keep-alive wait for the next request
    std::chrono::milliseconds read_timeout{30'000};  // first byte to last byte of a request
    std::chrono::milliseconds write_timeout{30'000};
    // HTTPS: a context from load_server_tls; nullptr = plain HTTP, with a warning at start
    // unless the address is a loopback one.
    tls_context tls;
    std::chrono::milliseconds handshake_timeout{10'000};  // accept to the end of the handshake
    std::optional<std::string> htpasswd_file;  // nullopt = no authentication
    bool allow_anonymous = false;  // with a file: requests without credentials pass (no user)
    // Checks a password against its hash on the verification threads; empty = bcrypt_matches.
    // Tests count calls through it.
    password_check check_password;
    std::size_t verify_threads = 2;  // threads for bcrypt checks that miss the cache
    // Most connections open at once; nullopt = core::connection_cap_for(soft RLIMIT_NOFILE).
    std::optional<std::size_t> max_connections;
    // Event streams (GET /workflows/{id}/events/stream): a comment line after this much silence,
    // and the most bytes queued for one client that does not read: past it the client is dropped.
    std::chrono::milliseconds stream_keep_alive{15'000};
    std::size_t stream_buffer_bytes = 1024 * 1024;
};

struct server_state;

class http_server {
public:
    // `handler` must outlive the server's work on `ioc` (until run() returns).
    http_server(boost::asio::io_context& ioc, server_settings settings,
                api::request_handler& handler, logger log);
    ~http_server();
    http_server(http_server const&) = delete;
    http_server& operator=(http_server const&) = delete;

    // Loads the htpasswd file, binds, listens and starts accepting; returns the bound port.
    // Errors: `http server: cannot listen on 127.0.0.1:8080: Address already in use`, or the
    // htpasswd loader's message.
    core::result<std::uint16_t> start();

    void stop();  // graceful, see the top of this file; idempotent

    std::uint16_t port() const noexcept;
    std::size_t open_connections() const noexcept;
    std::size_t max_connections() const noexcept;  // the cap in force, known after start()
    std::size_t refused_connections() const noexcept;  // answered 503 (or closed) since start
    std::size_t parked_requests() const noexcept;
    std::size_t open_streams() const noexcept;
    // The most bytes queued for any one open stream (never above `stream_buffer_bytes`).
    std::size_t max_stream_queue_bytes() const noexcept;

private:
    std::shared_ptr<server_state> state_;
};

// What the server process adds on the reactor thread around the HTTP server.
struct server_hooks {
    // Once, after the port is bound and before the first request is served.
    std::function<void(std::uint16_t port)> on_listening;
    // Every `tick_interval` until the stop begins (e.g. the worker-lease sweep); 0 = never.
    std::chrono::milliseconds tick_interval{0};
    std::function<void()> on_tick;
    // Once, before the reactor runs: work of its own on the server's io_context (the dataset
    // finalizer); the function it returns is called when the stop begins.
    std::function<std::function<void()>(boost::asio::io_context&)> on_reactor;
};

// `torcrun server` minus option parsing: starts the server on its own io_context, stops it
// gracefully on the first SIGTERM or SIGINT (a second one kills the process, as the default
// action is restored), and returns the exit status: 0 after a clean stop, 1 when it cannot start.
int run_http_server(server_settings settings, api::request_handler& handler, logger log,
                    server_hooks hooks = {});

}  // namespace torcrun::io
