// URL text for the HTTP shell, kept apart from sockets so it is tested on values: the client's
// base URL (`http://host:port/torc-service/v1`, or https) and the server's split of a request
// target into a path and a percent-decoded query.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::io {

inline constexpr std::string_view torc_base_path = "/torc-service/v1";

struct base_url {
    std::string host;  // as connected to: a name, an IPv4 address, or an IPv6 address without []
    std::uint16_t port = 80;  // 443 for https unless given
    std::string path;         // no trailing slash; "" for the root
    std::string host_header;  // the Host header: host, [v6] and ":port" unless the scheme's own
    bool tls = false;         // https: TLS, the server's certificate verified for `host`

    std::string text() const;  // "https://host:port/path", the form clients are told
};

// http or https; no user info, query or fragment.
core::result<base_url> parse_base_url(std::string_view text);

struct request_target {
    std::string path;  // percent-decoded
    std::multimap<std::string, std::string> query;  // decoded, `+` as space, every value kept
};

core::result<request_target> split_request_target(std::string_view target);

// The path relative to `base` ("/torc-service/v1/ping" -> "/ping", the base itself -> "/"), or
// nullopt when the path lies outside it ("/torc-service/v10" is outside).
std::optional<std::string> relative_to_base(std::string_view path, std::string_view base);

}  // namespace torcrun::io
