// Credential screening and target checks in front of the request handler.
#include "torcrun/server/io/http_gate.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/io/http_url.hpp"
#include "torcrun/server/model_json.hpp"

namespace torcrun::io {

namespace {

server_reply unauthorized(std::string const& message) {
    auto reply = json_error(401, message);
    reply.challenge = true;
    return reply;
}

}  // namespace

screened screen_credentials(std::optional<std::string> const& authorization,
                            auth_policy const& auth) {
    if (!auth.required) return std::monostate{};
    if (!authorization) {
        if (auth.allow_anonymous) return std::monostate{};
        return unauthorized("unauthorized: this server requires HTTP Basic credentials");
    }
    if (auto credentials = parse_basic_authorization(*authorization))
        return std::move(*credentials);
    return wrong_credentials();
}

server_reply wrong_credentials() {
    return unauthorized("unauthorized: wrong user name or password");
}

server_reply json_error(unsigned status, std::string const& message) {
    server_reply reply;
    reply.response.status = status;
    reply.response.body = "{\"message\":" + api::json_quote(message) + "}";
    return reply;
}

std::variant<api::request, server_reply> admit(incoming in, std::optional<std::string> user) {
    api::request req;
    req.user = std::move(user);
    auto target = split_request_target(in.target);
    if (!target) return json_error(400, target.error().message);
    auto relative = relative_to_base(target->path, torc_base_path);
    if (!relative)
        return json_error(404, detail::cat("not found: \"", target->path, "\" is not under ",
                                           torc_base_path));
    req.method = std::move(in.method);
    req.path = std::move(*relative);
    req.query = std::move(target->query);
    req.body = std::move(in.body);
    return req;
}

}  // namespace torcrun::io
