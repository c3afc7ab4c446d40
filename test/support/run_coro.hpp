// Bounded driving of an io_context from a test: run until a condition holds or a coroutine
// finishes, never longer than a limit, so a hung test fails instead of hanging ctest. Other work on
// the io_context (a listening server) may stay pending afterwards.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace torcrun::test {

using namespace std::chrono_literals;

// Runs handlers until `done()` is true; false when `limit` passed first or the work ran out.
inline bool run_until(boost::asio::io_context& ioc, std::function<bool()> const& done,
                      std::chrono::steady_clock::duration limit = 5s) {
    auto const deadline = std::chrono::steady_clock::now() + limit;
    ioc.restart();
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        ioc.run_one_until(deadline);
        if (ioc.stopped() && !done()) return false;
    }
    return true;
}

// Runs until no work is left (what `run()` returning means); false if work remains at `limit`.
inline bool run_to_completion(boost::asio::io_context& ioc,
                              std::chrono::steady_clock::duration limit = 5s) {
    ioc.restart();
    ioc.run_for(limit);
    return ioc.stopped();
}

// Runs `coro` to its end within `limit` and returns its value, rethrowing what it threw. The
// completion state is shared, so a coroutine that outlives a failed call writes nowhere stale.
template <class T>
T run_coro(boost::asio::io_context& ioc, boost::asio::awaitable<T> coro,
           std::chrono::steady_clock::duration limit = 5s) {
    struct outcome {
        bool done = false;
        std::exception_ptr error;
        std::optional<std::conditional_t<std::is_void_v<T>, bool, T>> value;
    };
    auto out = std::make_shared<outcome>();
    if constexpr (std::is_void_v<T>) {
        boost::asio::co_spawn(ioc, std::move(coro), [out](std::exception_ptr e) {
            out->error = e;
            out->done = true;
        });
    } else {
        boost::asio::co_spawn(ioc, std::move(coro), [out](std::exception_ptr e, T v) {
            out->error = e;
            if (!e) out->value.emplace(std::move(v));
            out->done = true;
        });
    }
    if (!run_until(ioc, [&] { return out->done; }, limit))
        throw std::runtime_error("run_coro: the coroutine did not finish in time");
    if (out->error) std::rethrow_exception(out->error);
    if constexpr (!std::is_void_v<T>) return std::move(*out->value);
}

}  // namespace torcrun::test
