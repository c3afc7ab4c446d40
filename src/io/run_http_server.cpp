// `torcrun server`'s reactor: one io_context, the HTTP server, and SIGTERM/SIGINT as the only
// way to stop it. Stopping is by letting work run out (STYLE C.3), never io_context::stop().
#include "torcrun/io/http_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <csignal>

namespace torcrun::io {

namespace net = boost::asio;

namespace {

struct on_signal {
    http_server* server;
    net::signal_set* signals;
    logger const* log;
    void operator()(boost::system::error_code ec, int signal_number) const {
        if (ec) return;
        log->write(log_level::info, "http", "signal received; stopping",
                   {{"signal", signal_number == SIGTERM ? "SIGTERM" : "SIGINT"}});
        // Back to the default action: a second signal ends the process at once.
        boost::system::error_code ignored;
        signals->clear(ignored);
        server->stop();
    }
};

}  // namespace

int run_http_server(server_settings settings, api::request_handler& handler, logger log) {
    net::io_context ioc{1};
    net::signal_set signals(ioc, SIGTERM, SIGINT);
    http_server server(ioc, std::move(settings), handler, log);
    auto port = server.start();
    if (!port) {
        log.write(log_level::err, "http", "cannot start", {{"error", port.error().message}});
        return 1;
    }
    signals.async_wait(on_signal{&server, &signals, &log});
    ioc.run();
    log.write(log_level::info, "http", "stopped");
    return 0;
}

}  // namespace torcrun::io
