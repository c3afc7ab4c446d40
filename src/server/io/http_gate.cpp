// Target and credential checks in front of the request handler.
#include "torcrun/server/io/http_gate.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/io/http_url.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace torcrun::io {

namespace {

// Checked before the target: an unauthenticated client learns nothing about which paths exist.
std::optional<server_reply> check_auth(std::optional<std::string> const& header,
                                       auth_policy const& auth, std::optional<std::string>& user) {
    if (auth.users == nullptr) return std::nullopt;
    if (!header) {
        if (auth.allow_anonymous) return std::nullopt;
        auto reply = json_error(401, "unauthorized: this server requires HTTP Basic credentials");
        reply.challenge = true;
        return reply;
    }
    auto credentials = parse_basic_authorization(*header);
    if (credentials && auth.users->verify(credentials->user, credentials->password)) {
        user = std::move(credentials->user);
        return std::nullopt;
    }
    auto reply = json_error(401, "unauthorized: wrong user name or password");
    reply.challenge = true;
    return reply;
}

}  // namespace

server_reply json_error(unsigned status, std::string const& message) {
    server_reply reply;
    reply.response.status = status;
    reply.response.body = boost::json::serialize(boost::json::object{{"message", message}});
    return reply;
}

std::variant<api::request, server_reply> admit(incoming in, auth_policy const& auth) {
    api::request req;
    if (auto refused = check_auth(in.authorization, auth, req.user)) return std::move(*refused);
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
