// The server's dialect from its GET /version answer (server_dialect.hpp).
#include "torcrun/common/server_dialect.hpp"

#include <boost/json/parse.hpp>

#include <charconv>

namespace torcrun::api {

namespace json = boost::json;

namespace {

// Major and minor of a version text ("0.23.0", "v0.10.0 (03cbebb)"); false when it has none.
bool major_minor(std::string_view text, int& major, int& minor)
{
    if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
    auto const* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, major);
    if (ec != std::errc{} || p == end || *p != '.') return false;
    auto [q, ec2] = std::from_chars(p + 1, end, minor);
    return ec2 == std::errc{};
}

torc_contract contract_of(std::string_view api_version)
{
    int major = 0;
    int minor = 0;
    if (!major_minor(api_version, major, minor)) return torc_contract::v0_10;
    return major > 0 || minor >= 23 ? torc_contract::v0_23 : torc_contract::v0_10;
}

std::string string_field(json::object const& o, std::string_view key)
{
    auto const* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

server_dialect dialect_of_version(unsigned status, std::string_view body)
{
    if (status < 200 || status >= 300) return {};
    boost::system::error_code ec;
    auto const v = json::parse(body, ec);
    if (ec) return {};
    if (v.is_string()) {  // Torc v0.10 to v0.12: "0.10.0 (03cbebb)"
        std::string text(v.get_string());
        return {server_kind::torc, contract_of(text), std::move(text)};
    }
    if (!v.is_object()) return {};
    auto const& o = v.get_object();
    auto version = string_field(o, "version");
    if (string_field(o, "server") == "torcrun")
        return {server_kind::torcrun, torc_contract::v0_23, std::move(version)};
    auto const api_version = string_field(o, "api_version");
    if (version.empty() && api_version.empty()) return {};
    return {server_kind::torc, contract_of(api_version.empty() ? version : api_version),
            std::move(version)};
}

bool has_torcrun_extensions(server_dialect const& dialect)
{
    return dialect.kind == server_kind::torcrun;
}

std::string_view to_string(torc_contract contract)
{
    return contract == torc_contract::v0_23 ? "0.23" : "v0.10";
}

std::string describe(server_dialect const& dialect)
{
    auto const version = dialect.version.empty() ? std::string() : " " + dialect.version;
    switch (dialect.kind) {
    case server_kind::torcrun: return "torcrun server" + version;
    case server_kind::torc:
        return "Torc server" + version + " (contract " + std::string(to_string(dialect.contract)) +
               ")";
    case server_kind::unknown: break;
    }
    return "an unknown server (no usable GET /version answer; spoken to as Torc v0.10)";
}

}  // namespace torcrun::api
