// HTTP Basic credentials (RFC 7617): what the client sends and what the server reads back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace torcrun::io {

struct basic_credentials {
    std::string user;
    std::string password;
};

// `Basic <base64(user:password)>` (scheme case-insensitive); nullopt when the header is not a
// well-formed Basic credential.
std::optional<basic_credentials> parse_basic_authorization(std::string_view header);
std::string basic_authorization(std::string_view user, std::string_view password);

}  // namespace torcrun::io
