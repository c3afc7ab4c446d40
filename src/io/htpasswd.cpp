// htpasswd parsing, bcrypt verification through libxcrypt, and the Basic credential header.
#include "torcrun/io/htpasswd.hpp"

#include "concat.hpp"

#include <boost/beast/core/detail/base64.hpp>

#include <crypt.h>

#include <cerrno>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>

namespace torcrun::io {

namespace base64 = boost::beast::detail::base64;

namespace {

// Verified against when the user is unknown, so that a miss costs as much as a wrong password.
constexpr std::string_view dummy_hash =
    "$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";

bool is_bcrypt_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '/';
}

bool is_bcrypt_hash(std::string_view h) {
    if (h.size() != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$') return false;
    if (h[2] != 'y' && h[2] != 'b' && h[2] != 'a') return false;
    if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9') return false;
    int cost = (h[4] - '0') * 10 + (h[5] - '0');
    if (cost < 4 || cost > 31) return false;
    for (char c : h.substr(7))
        if (!is_bcrypt_char(c)) return false;
    return true;
}

core::error line_error(std::string_view origin, std::size_t line, std::string const& text) {
    return core::error{detail::cat("htpasswd: ", origin, ":", std::to_string(line), ": ", text)};
}

bool crypt_matches(std::string_view password, std::string_view hash) {
    if (password.find('\0') != std::string_view::npos) return false;
    auto data = std::make_unique<crypt_data>();  // zeroed, as crypt_r requires on first use
    std::string const phrase(password);
    std::string const setting(hash);
    char const* out = crypt_r(phrase.c_str(), setting.c_str(), data.get());
    // libxcrypt signals failure with nullptr or a string starting with '*'.
    if (out == nullptr || out[0] == '*') return false;
    return constant_time_equal(out, hash);
}

bool is_base64(std::string_view s) {
    if (s.empty() || s.size() % 4 != 0) return false;
    auto pad = s.find('=');
    if (pad != std::string_view::npos) {
        if (pad < s.size() - 2) return false;
        for (auto i = pad; i < s.size(); ++i)
            if (s[i] != '=') return false;
        s = s.substr(0, pad);
    }
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '/';
        if (!ok) return false;
    }
    return true;
}

}  // namespace

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

bool htpasswd::verify(std::string_view user, std::string_view password) const {
    auto it = hashes_.find(user);
    if (it == hashes_.end()) {
        crypt_matches(password, dummy_hash);
        return false;
    }
    return crypt_matches(password, it->second);
}

std::optional<basic_credentials> parse_basic_authorization(std::string_view header) {
    constexpr std::string_view scheme = "basic ";
    if (header.size() <= scheme.size()) return std::nullopt;
    for (std::size_t i = 0; i < scheme.size(); ++i) {
        char c = header[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != scheme[i]) return std::nullopt;
    }
    std::string_view token = header.substr(scheme.size());
    while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
    while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
    if (!is_base64(token)) return std::nullopt;
    std::string decoded(base64::decoded_size(token.size()), '\0');
    auto [written, read] = base64::decode(decoded.data(), token.data(), token.size());
    decoded.resize(written);
    auto colon = decoded.find(':');
    if (colon == std::string::npos) return std::nullopt;
    return basic_credentials{decoded.substr(0, colon), decoded.substr(colon + 1)};
}

std::string basic_authorization(std::string_view user, std::string_view password) {
    std::string const plain = detail::cat(user, ":", password);
    std::string encoded(base64::encoded_size(plain.size()), '\0');
    encoded.resize(base64::encode(encoded.data(), plain.data(), plain.size()));
    return detail::cat("Basic ", encoded);
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace torcrun::io
