// The server's checks before a request reaches the handler, on plain values (no sockets): Basic
// credentials must be present when the server requires them (screen_credentials; the password
// itself is then verified by the authenticator, off the reactor thread), and the request target
// must lie under /torc-service/v1 and parse (admit). Also builds the server's own JSON error
// replies.
#pragma once

#include "torcrun/server/http_types.hpp"
#include "torcrun/common/io/basic_auth.hpp"

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
    bool required = false;  // false = no authentication, any header is ignored
    bool allow_anonymous = false;
};

// What the Authorization header calls for: nothing (the request passes without a user), the
// verification of these credentials, or the 401 answer (missing or malformed header).
// Checked before the target: an unauthenticated client learns nothing about which paths exist.
using screened = std::variant<std::monostate, basic_credentials, server_reply>;
screened screen_credentials(std::optional<std::string> const& authorization,
                            auth_policy const& auth);

// The 401 for credentials that did not verify.
server_reply wrong_credentials();

// Either the request for the handler (path relative to the base path, query decoded, `user`
// set) or the server's own 400/404 reply.
std::variant<api::request, server_reply> admit(incoming in, std::optional<std::string> user);

// `{"message": "<message>"}` with `status`.
server_reply json_error(unsigned status, std::string const& message);

}  // namespace torcrun::io
