// A started http_server on 127.0.0.1:0 with the fake handler and a captured log, for the server
// and client tests. On destruction it stops the server and drains the io_context (bounded).
#pragma once

#include "fake_handler.hpp"
#include "loopback.hpp"
#include "run_coro.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/server/io/http_server.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace torcrun::test {

inline io::server_settings loopback_settings() {
    io::server_settings s;
    s.host = "127.0.0.1";
    s.port = 0;
    return s;
}

struct server_fixture {
    boost::asio::io_context ioc{1};
    fake_handler handler;
    captured_log log;
    std::unique_ptr<io::http_server> server;
    std::uint16_t port = 0;

    explicit server_fixture(io::server_settings settings = loopback_settings()) {
        server = std::make_unique<io::http_server>(ioc, settings, handler, log.logger());
        port = server->start().value();
        handler.on_stop = [this] { server->stop(); };
    }
    ~server_fixture() {
        server->stop();
        run_to_completion(ioc, std::chrono::seconds(2));
    }
    server_fixture(server_fixture const&) = delete;
    server_fixture& operator=(server_fixture const&) = delete;

    io::client_settings client(std::string base = "/torc-service/v1") const {
        return client_for(port, std::move(base));
    }
    io::http_result<io::http_reply> call(io::http_client& c, std::string method, std::string path,
                                         std::string body = {}) {
        return run_coro(ioc, c.request(std::move(method), std::move(path), std::move(body)));
    }
    std::string raw(std::string bytes) {
        return run_coro(ioc, raw_exchange(port, std::move(bytes)));
    }
};

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace torcrun::test
