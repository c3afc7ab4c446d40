// The HTTP server's side of group commit (api::request_handler, server_api.hpp): the answers of
// the requests in an open group wait, each on a timer of its own, until the group commits; the
// first request of a group posts the commit to the reactor, so it runs after the requests whose
// bytes were read in the same turn have joined the group.
//
// What a waiting answer learns: nothing (the group committed, send it) or the failure (nothing of
// the group was written; the answer becomes a 503). A request's answer never leaves before its
// writes are in the database file: a server killed afterwards keeps every answered change.
#pragma once

#include "torcrun/server/http_types.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace torcrun::io {

class group_commits {
public:
    group_commits(boost::asio::io_context& ioc, api::request_handler& handler)
        : ioc_(ioc), handler_(handler) {}

    // After a handle(): when a group is open and no commit is posted, post one. `keep_alive` is
    // held by the posted commit (the server's state, which owns this object).
    void schedule(std::shared_ptr<void> keep_alive);
    // Waits until `group` has committed; its failure when it did not.
    boost::asio::awaitable<std::optional<std::string>> committed(std::uint64_t group);
    // The handler's commit listener: wakes the answers of `group`.
    void done(std::uint64_t group, std::optional<std::string> const& failure);

    std::size_t waiting() const { return waiters_.size(); }

private:
    struct waiter {
        boost::asio::steady_timer* timer;
        std::optional<std::optional<std::string>> outcome;  // set by done()
    };

    boost::asio::io_context& ioc_;
    api::request_handler& handler_;
    bool posted_ = false;
    std::unordered_multimap<std::uint64_t, waiter*> waiters_;
};

}  // namespace torcrun::io
