// The server's checks before a request reaches the handler, on plain values (no sockets): the
// request target must lie under /torc-service/v1 and parse, and Basic credentials must match the
// htpasswd file when one is configured. Also builds the server's own JSON error replies.
#pragma once

#include "torcrun/server/http_types.hpp"
#include "torcrun/common/io/basic_auth.hpp"
#include "torcrun/server/io/htpasswd.hpp"

#include <optional>
#include <string>
#include <variant>

namespace torcrun::io {

// A reply the server makes itself; `challenge` adds `WWW-Authenticate: Basic realm="torcrun"`.
struct server_reply {
    api::response response;
    bool challenge = false;
};

struct incoming {
    std::string method;
    std::string target;  // as on the request line: "/torc-service/v1/jobs?workflow_id=3"
    std::optional<std::string> authorization;
    std::string body;
};

struct auth_policy {
    htpasswd const* users = nullptr;  // nullptr = no authentication
    bool allow_anonymous = false;
};

// Either the request for the handler (path relative to the base path, query decoded, user set)
// or the server's own 400/401/404 reply.
std::variant<api::request, server_reply> admit(incoming in, auth_policy const& auth);

// `{"message": "<message>"}` with `status`.
server_reply json_error(unsigned status, std::string const& message);

}  // namespace torcrun::io
