// Base URL parsing and request-target splitting with Boost.URL (compiled once, in core).
#include "torcrun/common/io/http_url.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include <charconv>

namespace torcrun::io {

namespace urls = boost::urls;

namespace {

core::error url_error(std::string_view text, std::string_view why) {
    return core::error{detail::cat("url: \"", text, "\" ", why)};
}

std::uint16_t default_port(bool tls) { return tls ? 443 : 80; }

std::string make_host_header(urls::url_view const& u, std::uint16_t port, bool tls) {
    std::string out(u.encoded_host().data(), u.encoded_host().size());
    if (port != default_port(tls)) out += detail::cat(":", std::to_string(port));
    return out;
}

}  // namespace

core::result<base_url> parse_base_url(std::string_view text) {
    auto parsed = urls::parse_uri(text);
    if (!parsed) return url_error(text, "is not a valid URL");
    urls::url_view const& u = *parsed;
    if (u.scheme_id() != urls::scheme::http && u.scheme_id() != urls::scheme::https)
        return url_error(text, "is not an http or https URL");
    if (u.has_userinfo())
        return url_error(text, "must not contain a user name or password; use the auth settings");
    if (u.has_query() || u.has_fragment())
        return url_error(text, "must not have a query or a fragment");
    base_url out;
    out.tls = u.scheme_id() == urls::scheme::https;
    out.port = default_port(out.tls);
    out.host = u.host_address();
    if (out.host.empty()) return url_error(text, "has no host");
    if (u.has_port() && !u.port().empty()) {
        // port_number() wraps values above 65535, so the digits are checked here.
        unsigned long port = 0;
        auto digits = u.port();
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
        if (ec != std::errc{} || end != digits.data() + digits.size() || port == 0 || port > 65535)
            return url_error(text, "has an invalid port");
        out.port = static_cast<std::uint16_t>(port);
    }
    out.host_header = make_host_header(u, out.port, out.tls);
    out.path = std::string(u.encoded_path());
    while (!out.path.empty() && out.path.back() == '/') out.path.pop_back();
    return out;
}

std::string base_url::text() const {
    return detail::cat(tls ? "https://" : "http://", host_header, path);
}

core::result<request_target> split_request_target(std::string_view target) {
    auto parsed = urls::parse_origin_form(target);
    if (!parsed)
        return core::error{
            detail::cat("request target: \"", target, "\" is not a path with an optional query")};
    request_target out;
    out.path = parsed->path();
    for (auto const& param : parsed->params()) {
        if (param.key.empty() && !param.has_value) continue;  // "?" alone, or "a=1&&b=2"
        out.query.emplace(param.key, param.value);
    }
    return out;
}

std::optional<std::string> relative_to_base(std::string_view path, std::string_view base) {
    if (!path.starts_with(base)) return std::nullopt;
    std::string_view rest = path.substr(base.size());
    if (rest.empty()) return std::string("/");
    if (rest.front() != '/') return std::nullopt;
    return std::string(rest);
}

}  // namespace torcrun::io
