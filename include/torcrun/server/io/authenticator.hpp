// The server's password checks: the credential cache first (microseconds, on the reactor
// thread), and on a miss one bcrypt check on a small pool of threads, so that clients sending
// wrong passwords (always a miss) cost CPU on the pool but never stall the reactor, which keeps
// serving every other connection. The pool runs only the pure check on copied strings and hands
// the verdict back to the reactor, where the cache is read and written: no state is shared
// between threads. Queued checks are bounded by the connection cap (one request in flight per
// connection). The htpasswd file is read once at start, so the cache lives as long as the server.
#pragma once

#include "torcrun/server/io/credential_cache.hpp"
#include "torcrun/server/io/htpasswd.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace boost::asio {
class thread_pool;
}

namespace torcrun::io {

class authenticator {
public:
    // `check` is bcrypt_matches outside tests, which count calls through it.
    authenticator(htpasswd users, password_check check, std::size_t threads);
    ~authenticator();  // waits for checks still running on the pool
    authenticator(authenticator const&) = delete;
    authenticator& operator=(authenticator const&) = delete;

    // Whether `password` is `user`'s; resumes on the caller's executor. The authenticator must
    // outlive the coroutine (the server keeps it in the state every session holds).
    boost::asio::awaitable<bool> verify(std::string user, std::string password);

    std::size_t cached() const noexcept { return cache_.size(); }

private:
    htpasswd users_;
    password_check check_;
    credential_cache cache_;
    std::unique_ptr<boost::asio::thread_pool> pool_;
};

}  // namespace torcrun::io
