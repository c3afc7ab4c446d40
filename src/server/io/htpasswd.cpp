// htpasswd parsing and bcrypt verification through libxcrypt.
#include "torcrun/server/io/htpasswd.hpp"

#include "torcrun/common/concat.hpp"

#include <crypt.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>

namespace torcrun::io {

namespace {

// Verified against when the user is unknown, with the cost digits replaced by the highest cost
// in the file, so that a miss costs as much as a wrong password. Salt and hash are well formed,
// so crypt_r runs all 2^cost rounds; no password gives this output.
constexpr std::string_view dummy_salt_and_hash =
    "CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";

bool is_bcrypt_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '/';
}

bool is_bcrypt_hash(std::string_view h) {
    if (h.size() != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$') return false;
    if (h[2] != 'y' && h[2] != 'b' && h[2] != 'a') return false;
    if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9') return false;
    int const cost = bcrypt_cost(h);
    if (cost < 4 || cost > 31) return false;
    for (char c : h.substr(7))
        if (!is_bcrypt_char(c)) return false;
    return true;
}

core::error line_error(std::string_view origin, std::size_t line, std::string const& text) {
    return core::error{detail::cat("htpasswd: ", origin, ":", std::to_string(line), ": ", text)};
}

}  // namespace

bool bcrypt_matches(std::string_view password, std::string_view hash) {
    if (password.find('\0') != std::string_view::npos) return false;
    auto data = std::make_unique<crypt_data>();  // zeroed, as crypt_r requires on first use
    std::string const phrase(password);
    std::string const setting(hash);
    char const* out = crypt_r(phrase.c_str(), setting.c_str(), data.get());
    // libxcrypt signals failure with nullptr or a string starting with '*'.
    if (out == nullptr || out[0] == '*') return false;
    return constant_time_equal(out, hash);
}

int bcrypt_cost(std::string_view hash) {
    if (hash.size() < 7) return 0;
    return (hash[4] - '0') * 10 + (hash[5] - '0');
}

core::result<htpasswd> htpasswd::parse(std::string_view text, std::string_view origin) {
    htpasswd out;
    std::size_t line_no = 0;
    while (!text.empty()) {
        ++line_no;
        auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line.front() == '#') continue;
        auto colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return line_error(origin, line_no,
                              detail::cat("\"", line, "\" is not a user:hash line"));
        std::string user(line.substr(0, colon));
        std::string_view hash = line.substr(colon + 1);
        if (!is_bcrypt_hash(hash))
            return line_error(origin, line_no,
                              detail::cat("user \"", user,
                                          "\" has a hash that is not bcrypt ($2y$, $2b$ or $2a$, "
                                          "as htpasswd -B writes)"));
        if (!out.hashes_.emplace(user, std::string(hash)).second)
            return line_error(origin, line_no, detail::cat("user \"", user, "\" appears twice"));
    }
    if (out.hashes_.empty())
        return core::error{detail::cat("htpasswd: ", origin, ": no users")};
    int cost = 4;
    for (auto const& [user, hash] : out.hashes_) cost = std::max(cost, bcrypt_cost(hash));
    out.dummy_hash_ = detail::cat("$2b$", cost < 10 ? "0" : "", std::to_string(cost), "$",
                                  dummy_salt_and_hash);
    return out;
}

core::result<htpasswd> htpasswd::load(std::string const& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        int const err = errno;
        return core::error{detail::cat("htpasswd: cannot read \"", path,
                                       "\": ", std::generic_category().message(err))};
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

htpasswd::lookup htpasswd::find(std::string_view user) const {
    auto it = hashes_.find(user);
    if (it == hashes_.end()) return {dummy_hash_, false};
    return {it->second, true};
}

bool htpasswd::verify(std::string_view user, std::string_view password,
                      password_check const& check) const {
    auto const [hash, known] = find(user);
    bool const matches = check(password, hash);
    return known && matches;
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace torcrun::io
