// Test-only ways of stopping and watching job processes, built on the launcher's and the
// sampler's public calls (the worker itself signals groups through job_runner and samples in
// its own loop): the terminate sequence, and a sampling loop that runs until cancelled.
#pragma once

#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/io/proc_sampler.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <memory>
#include <variant>

namespace torcrun::test {

// `signal` to the group, up to `grace` for the leader to exit, then SIGKILL to the group; the
// report counts what was left of the session at the exit (killed too). Returns the existing
// report for a child that already exited. `signal` must be valid.
inline boost::asio::awaitable<io::exit_report> terminate(std::shared_ptr<io::child_process> child,
                                                         int signal,
                                                         std::chrono::steady_clock::duration grace)
{
    namespace net = boost::asio;
    using namespace net::experimental::awaitable_operators;
    if (!child->running()) co_return *child->report();
    child->count_leftovers();
    // A refused signal (a set-uid member) changes nothing: SIGKILL follows after the grace.
    [[maybe_unused]] auto const sent = child->signal_group(signal);
    auto const executor = co_await net::this_coro::executor;
    net::steady_timer grace_timer(executor, grace);
    auto const first = co_await (child->wait() || grace_timer.async_wait(net::use_awaitable));
    if (first.index() == 0) co_return std::get<0>(first);
    [[maybe_unused]] auto const killed = child->signal_group(SIGKILL);
    auto const report = co_await child->wait();
    co_return report;
}

// Samples every `interval` until cancelled; cancellation ends it quietly. `sampler` is held by
// reference: the test outlives the coroutine.
inline boost::asio::awaitable<void> run_sampler(io::proc_sampler& sampler,
                                                std::chrono::steady_clock::duration interval)
{
    namespace net = boost::asio;
    auto const executor = co_await net::this_coro::executor;
    net::steady_timer timer(executor);
    for (;;) {
        timer.expires_after(interval);
        auto const [ec] = co_await timer.async_wait(net::as_tuple(net::use_awaitable));
        if (ec) co_return;
        sampler.sample(io::proc_sampler::clock::now());
    }
}

}  // namespace torcrun::test
