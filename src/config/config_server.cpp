// The server configuration's schema table and its entry points.
#include "torcrun/config/config.hpp"

#include "config_table.hpp"

#include <array>

namespace torcrun::core {

namespace {

using detail::choice;
using detail::key;
using detail::nullable;
using detail::rule;
using k = value_kind;
using s = server_config;

constexpr group_rule server_groups[] = {
    {"auth", "Who may use the REST API."},
};

constexpr auto server_keys = std::to_array<detail::key_spec<s>>({
    key<s, &s::host>("host", rule(k::string),
                     "Address to listen on; 127.0.0.1 keeps the server to this machine."),
    key<s, &s::port>("port", rule(k::integer, 0, 65535), "TCP port; 0 = any free port."),
    key<s, &s::database>("database", rule(k::string),
                         "SQLite database file; created when missing."),
    key<s, &s::auth, &s::auth_settings::htpasswd_file>(
        "auth.htpasswd_file", nullable(rule(k::string)),
        "htpasswd file for HTTP basic authentication; null = no authentication."),
    key<s, &s::max_body_bytes>("max_body_bytes", rule(k::memory, 1 << 10, 1 << 30),
                               "Largest request body accepted."),
    key<s, &s::long_poll_max_seconds>("long_poll_max_seconds", rule(k::number, 0, 60),
                                      "Longest time a request for jobs may be held open."),
    key<s, &s::worker_lease_seconds>(
        "worker_lease_seconds", rule(k::number, 5, 86400),
        "A worker not heard from for this long is lost, and lost_worker_jobs applies."),
    key<s, &s::lost_worker_jobs>("lost_worker_jobs", choice(detail::lost_job_policy_names),
                                 "A lost worker's running jobs: ready = run them again, "
                                 "failed = mark them failed."),
    key<s, &s::log_level>("log_level", choice(detail::log_severity_names),
                          "The least severe messages that are logged."),
});

constexpr std::span<detail::key_spec<s> const> table{server_keys};

std::vector<detail::cross_problem> cross_check(server_config const&) { return {}; }

}  // namespace

std::string_view to_string(log_severity level) noexcept
{
    return detail::log_severity_names[static_cast<std::size_t>(level)];
}

std::string_view to_string(lost_job_policy policy) noexcept
{
    return detail::lost_job_policy_names[static_cast<std::size_t>(policy)];
}

result<server_config> parse_server_config(std::string_view text, std::string_view origin,
                                          std::span<config_override const> overrides)
{
    return detail::parse_config(table, &cross_check, text, origin, overrides);
}

result<void> apply_override(server_config& config, std::string_view key_path,
                            std::string_view text, std::string_view origin)
{
    return detail::apply_override(table, config, key_path, text, origin);
}

result<void> check_config(server_config const& config)
{
    return detail::check_with(&cross_check, config);
}

boost::json::value to_json(server_config const& config)
{
    return detail::config_to_json(table, config);
}

schema_view server_schema()
{
    return detail::make_view<server_config>("server", server_groups, table);
}

}  // namespace torcrun::core
