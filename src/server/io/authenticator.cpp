// Cached password checks with bcrypt on a thread pool (authenticator.hpp).
#include "torcrun/server/io/authenticator.hpp"

#include "torcrun/common/io/net.hpp"

#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>

#include <utility>

namespace torcrun::io {

namespace net = boost::asio;

namespace {

// Runs `check` on the pool and completes on the caller's executor, which stays busy (has work)
// meanwhile, so that its run() does not return while a check is out.
struct check_on_pool {
    net::thread_pool* pool;

    template <typename Handler>
    void operator()(Handler handler, password_check check, std::string password,
                    std::string hash) const {
        auto work = net::make_work_guard(net::get_associated_executor(handler));
        net::post(*pool, [handler = std::move(handler), work = std::move(work),
                          check = std::move(check), password = std::move(password),
                          hash = std::move(hash)]() mutable {
            bool const ok = check(password, hash);
            auto ex = work.get_executor();
            net::post(ex, [handler = std::move(handler), ok]() mutable { std::move(handler)(ok); });
            work.reset();
        });
    }
};

template <typename Token>
auto async_check(net::thread_pool& pool, password_check check, std::string password,
                 std::string hash, Token&& token) {
    return net::async_initiate<Token, void(bool)>(check_on_pool{&pool}, token, std::move(check),
                                                  std::move(password), std::move(hash));
}

}  // namespace

authenticator::authenticator(htpasswd users, password_check check, std::size_t threads)
    : users_(std::move(users)),
      check_(std::move(check)),
      pool_(std::make_unique<net::thread_pool>(threads < 1 ? 1 : threads)) {}

authenticator::~authenticator() { pool_->join(); }

net::awaitable<bool> authenticator::verify(std::string user, std::string password) {
    if (cache_.holds(user, password)) co_return true;
    auto const [hash, known] = users_.find(user);
    bool const matches =
        co_await async_check(*pool_, check_, password, std::string(hash), net::use_awaitable);
    if (!known || !matches) co_return false;
    cache_.remember(user, password);
    co_return true;
}

}  // namespace torcrun::io
