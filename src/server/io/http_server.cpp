// The HTTP/1.1 server (http_server.hpp): Beast on one single-threaded io_context. Its parts share
// one server_state (http_server_state.hpp): long polls and event frames in http_long_polls.cpp,
// one connection in http_session.cpp, and here the outer shell: loading the htpasswd file,
// binding, the accept loop with its connection cap (a connection beyond it is refused with a
// 503) and its backoff when accept fails, and the graceful stop.
#include "http_server_state.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/server/io/htpasswd.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <system_error>

namespace torcrun::io {

namespace net = boost::asio;
using tcp = net::ip::tcp;

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
