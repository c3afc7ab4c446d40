// Answers held until their group commits (group_commits.hpp).
#include "group_commits.hpp"

#include "torcrun/common/io/net.hpp"

#include <boost/asio/post.hpp>

namespace torcrun::io {

namespace net = boost::asio;

void group_commits::schedule(std::shared_ptr<void> keep_alive)
{
    if (posted_ || handler_.open_group() == 0) return;
    posted_ = true;
    // Posted, not run now: the reads that completed in this turn of the reactor run first and
    // join the group.
    net::post(ioc_, [this, keep = std::move(keep_alive)] {
        posted_ = false;
        handler_.commit_group();
    });
}

net::awaitable<std::optional<std::string>> group_commits::committed(std::uint64_t group)
{
    net::steady_timer timer(ioc_, net::steady_timer::time_point::max());
    waiter w{&timer, std::nullopt};
    // Listed exactly while this frame lives, also when it is destroyed while suspended.
    struct listing {
        std::unordered_multimap<std::uint64_t, waiter*>& map;
        std::unordered_multimap<std::uint64_t, waiter*>::iterator it;
        ~listing() { map.erase(it); }
    } const listed{waiters_, waiters_.emplace(group, &w)};
    [[maybe_unused]] auto [ec] = co_await timer.async_wait(use_nothrow);
    // Only done() cancels the timer; anything else (the reactor torn down) is no commit seen.
    if (!w.outcome) co_return std::optional<std::string>{"the server stopped before the commit"};
    co_return *w.outcome;
}

void group_commits::done(std::uint64_t group, std::optional<std::string> const& failure)
{
    auto [first, last] = waiters_.equal_range(group);
    for (auto it = first; it != last; ++it) {
        it->second->outcome = failure;
        it->second->timer->cancel();
    }
}

}  // namespace torcrun::io
