// HTTP Basic auth against an htpasswd file with bcrypt hashes, as `htpasswd -B` writes them
// (Torc's `--auth-file`). Hashes are checked with libxcrypt's crypt_r. A bcrypt check costs
// 2^cost rounds: about 2 ms at cost 5 (htpasswd's default), 58 ms at 10, 230 ms at 12; the
// server runs them off its reactor thread and caches successes (authenticator.hpp).
#pragma once

#include "torcrun/common/error.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace torcrun::io {

// Whether `password` matches the bcrypt `hash`. Thread-safe: the server calls it on a pool.
using password_check = std::function<bool(std::string_view password, std::string_view hash)>;

// libxcrypt's crypt_r; false for a password with a NUL byte and for a hash crypt_r refuses.
bool bcrypt_matches(std::string_view password, std::string_view hash);

// The cost of a well-formed bcrypt hash (`$2b$10$...` -> 10).
int bcrypt_cost(std::string_view hash);

class htpasswd {
public:
    // `origin` names the text in messages (the file path). Blank lines and `#` comments are
    // skipped; every other line is `user:$2y$NN$<53 chars>` ($2b$ and $2a$ too).
    static core::result<htpasswd> parse(std::string_view text, std::string_view origin);
    static core::result<htpasswd> load(std::string const& path);

    // The hash to check a password of `user` against: the user's own, or for an unknown user a
    // dummy at the highest cost in the file (which no password matches), so that a miss costs
    // a full bcrypt check too and timing does not reveal which names exist.
    struct lookup {
        std::string_view hash;
        bool known;
    };
    lookup find(std::string_view user) const;

    // find() then `check`: the whole verification, on the calling thread.
    bool verify(std::string_view user, std::string_view password,
                password_check const& check = bcrypt_matches) const;

    std::size_t size() const noexcept { return hashes_.size(); }

private:
    std::map<std::string, std::string, std::less<>> hashes_;
    std::string dummy_hash_;
};

// Constant-time for equal lengths; lengths are not secret (bcrypt output is always 60 chars,
// a cached tag 32 bytes).
bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace torcrun::io
