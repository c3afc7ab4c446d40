// HTTP Basic credentials: the client's `Authorization` header and the server's reading of it.
#include "torcrun/common/io/basic_auth.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/beast/core/detail/base64.hpp>

namespace torcrun::io {

namespace base64 = boost::beast::detail::base64;

namespace {

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

}  // namespace torcrun::io
