// The HTTP server's outer shell: loading the htpasswd file, binding, the accept loop and the
// graceful stop. Connections are served in http_session.cpp, long polls in long_poll.cpp.
#include "torcrun/server/io/http_server.hpp"

#include "torcrun/common/concat.hpp"
#include "server_state.hpp"
#include "torcrun/common/io/net.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace torcrun::io {

namespace net = boost::asio;
using tcp = net::ip::tcp;

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

net::awaitable<void> pause(net::any_io_executor ex, std::chrono::milliseconds delay) {
    net::steady_timer timer(ex, delay);
    [[maybe_unused]] auto [ec] = co_await timer.async_wait(use_nothrow);
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
            st->log.write(log_level::warning, "http", "accept failed; retrying in 100 ms",
                          {{"error", std::generic_category().message(err)}});
            co_await pause(ex, std::chrono::milliseconds(100));  // e.g. EMFILE: let fds free up
            continue;
        }
        tcp::socket socket(ex);
        boost::system::error_code aec;
        socket.assign(st->acceptor.local_endpoint().protocol(), fd, aec);
        if (aec) {
            ::close(fd);
            continue;
        }
        socket.set_option(tcp::no_delay(true), aec);
        net::co_spawn(ex, server_detail::run_session(st, std::move(socket)),
                      task_finished{st, "session"});
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
}

core::result<std::uint16_t> http_server::start() {
    auto& st = *state_;
    if (st.settings.htpasswd_file) {
        auto users = htpasswd::load(*st.settings.htpasswd_file);
        if (!users) return users.error();
        st.users = std::move(*users);
    }
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
    net::co_spawn(st.ioc, accept_loop(state_), task_finished{state_, "accept loop"});
    st.log.write(log_level::info, "http", "listening",
                 {{"host", st.settings.host},
                  {"port", std::to_string(st.port)},
                  {"auth", st.users ? "basic" : "none"}});
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

std::size_t http_server::parked_requests() const noexcept { return state_->waiters.size(); }

}  // namespace torcrun::io
