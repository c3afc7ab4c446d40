// What every coroutine of the HTTP server shares (private to src/server/io): the settings, the
// handler, the acceptor, the connections stop() must reach and the parked long polls. Each
// coroutine holds a shared_ptr to it, so it outlives any frame the io_context still owns.
//
// Files: http_server.cpp (start, accept loop, stop), http_session.cpp (one connection, Beast),
// long_poll.cpp (calling the handler and parking requests).
#pragma once

#include "torcrun/server/io/htpasswd.hpp"
#include "torcrun/server/io/http_gate.hpp"
#include "torcrun/server/io/http_server.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <unordered_map>

namespace torcrun::io {

namespace server_detail {

enum class phase { idle, busy };  // stop() closes idle connections only
enum class wake { timeout, changed, stopping };

struct connection_entry {
    boost::asio::ip::tcp::socket* socket;
    phase now = phase::busy;
};

struct waiter {
    boost::asio::steady_timer* timer;
    std::optional<wake> reason;  // set by whoever cancels the timer
};

}  // namespace server_detail

struct server_state {
    server_state(boost::asio::io_context& c, server_settings s, api::request_handler& h, logger l)
        : ioc(c), settings(std::move(s)), handler(h), log(std::move(l)), acceptor(c) {}

    boost::asio::io_context& ioc;
    server_settings settings;
    api::request_handler& handler;
    logger log;
    std::optional<htpasswd> users;
    boost::asio::ip::tcp::acceptor acceptor;
    std::uint16_t port = 0;
    bool stopping = false;
    std::list<server_detail::connection_entry> connections;
    std::unordered_multimap<std::int64_t, server_detail::waiter*> waiters;
};

namespace server_detail {

// http_session.cpp: serves one accepted connection until it closes.
boost::asio::awaitable<void> run_session(std::shared_ptr<server_state> st,
                                         boost::asio::ip::tcp::socket socket);

// long_poll.cpp: calls the handler until it answers, parking the request while it asks to wait.
boost::asio::awaitable<server_reply> serve(std::shared_ptr<server_state> st, api::request req);

// long_poll.cpp: wakes the requests parked on `workflow_id` (the handler's change listener).
void wake_workflow(server_state& st, std::int64_t workflow_id);

// long_poll.cpp: wakes every parked request for a final may_wait=false call.
void wake_all_for_stop(server_state& st);

}  // namespace server_detail

}  // namespace torcrun::io
