// `torcrun server`'s reactor: one io_context, the HTTP server, the periodic tick of the hooks, and
// SIGTERM/SIGINT as the only way to stop it. Stopping is by letting work run out, never
// io_context::stop(): the signal stops the server and cancels the tick timer.
#include "torcrun/server/io/http_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <csignal>

namespace torcrun::io {

namespace net = boost::asio;

namespace {

// Re-arms itself after each tick; cancel() ends the chain, so run() can return.
class ticker {
public:
    ticker(net::io_context& ioc, server_hooks const& hooks) : timer_(ioc), hooks_(hooks) {}

    void start()
    {
        if (hooks_.tick_interval.count() <= 0 || !hooks_.on_tick) return;
        arm();
    }
    void cancel() { timer_.cancel(); }

private:
    void arm()
    {
        timer_.expires_after(hooks_.tick_interval);
        timer_.async_wait([this](boost::system::error_code ec) {
            if (ec) return;
            hooks_.on_tick();
            arm();
        });
    }

    net::steady_timer timer_;
    server_hooks const& hooks_;
};

struct on_signal {
    http_server* server;
    ticker* tick;
    std::function<void()>* stop_work;
    net::signal_set* signals;
    logger const* log;
    void operator()(boost::system::error_code ec, int signal_number) const
    {
        if (ec) return;
        log->write(log_level::info, "http", "signal received; stopping",
                   {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"}});
        // Back to the default action: a second signal ends the process at once.
        boost::system::error_code ignored;
        signals->clear(ignored);
        tick->cancel();
        if (*stop_work) (*stop_work)();
        server->stop();
    }
};

}  // namespace

int run_http_server(server_settings settings, api::request_handler& handler, logger log,
                    server_hooks hooks)
{
    net::io_context ioc{1};
    net::signal_set signals(ioc, SIGTERM, SIGINT);
    http_server server(ioc, std::move(settings), handler, log);
    auto port = server.start();
    if (!port) {
        log.write(log_level::err, "http", "cannot start", {{"error", port.error().message}});
        return 1;
    }
    ticker tick(ioc, hooks);
    std::function<void()> stop_work;
    if (hooks.on_reactor) stop_work = hooks.on_reactor(ioc);
    signals.async_wait(on_signal{&server, &tick, &stop_work, &signals, &log});
    if (hooks.on_listening) hooks.on_listening(*port);
    tick.start();
    ioc.run();
    log.write(log_level::info, "http", "stopped");
    return 0;
}

}  // namespace torcrun::io
