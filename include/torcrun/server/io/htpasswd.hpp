// HTTP Basic auth against an htpasswd file with bcrypt hashes, as `htpasswd -B` writes them
// (Torc's `--auth-file`). Hashes are checked with libxcrypt's crypt_r. A bcrypt check costs
// 2^cost rounds on the reactor thread: cost 5 (htpasswd's default) is about 2 ms per request.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::io {

class htpasswd {
public:
    // `origin` names the text in messages (the file path). Blank lines and `#` comments are
    // skipped; every other line is `user:$2y$NN$<53 chars>` ($2b$ and $2a$ too).
    static core::result<htpasswd> parse(std::string_view text, std::string_view origin);
    static core::result<htpasswd> load(std::string const& path);

    // Unknown users cost one bcrypt check too, so timing does not reveal which names exist.
    bool verify(std::string_view user, std::string_view password) const;

    std::size_t size() const noexcept { return hashes_.size(); }

private:
    std::map<std::string, std::string, std::less<>> hashes_;
};

// Constant-time for equal lengths; lengths are not secret (bcrypt output is always 60 chars).
bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace torcrun::io
