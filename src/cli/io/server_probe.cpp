// GET /version as a server dialect, and the worker's extensions settled by it (server_probe.hpp).
#include "server_probe.hpp"

#include "torcrun/worker/io/worker_shell.hpp"

#include <chrono>

namespace torcrun::apps {

namespace {

constexpr char const* version_path = "/version";

// A reply or an answered error as a dialect; nullopt for a failure worth retrying or not
// answered at all (the caller's message).
std::optional<api::server_dialect> dialect_of(io::http_result<io::http_reply> const& reply)
{
    if (reply) return api::dialect_of_version(reply->status, reply->body);
    auto const& e = reply.error();
    if (e.kind == io::http_error_kind::http_4xx || e.kind == io::http_error_kind::http_5xx) {
        if (e.transient()) return std::nullopt;  // 502/503/504: a proxy whose server is away
        return api::dialect_of_version(e.status, e.body);
    }
    return std::nullopt;
}

}  // namespace

core::result<api::server_dialect> read_server_dialect(torc_client& client)
{
    auto const reply = client.exchange("GET", version_path);
    if (auto dialect = dialect_of(reply)) return *dialect;
    return core::error{failure_message("GET", version_path, reply.error(), client.url())};
}

core::result<api::server_dialect> read_server_dialect(core::worker_config const& config)
{
    auto settings = io::client_for(config);
    if (!settings) return settings.error();
    io::blocking_http_client http(std::move(*settings));
    auto const give_up = std::chrono::steady_clock::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(config.server.retry_window_seconds));
    for (int attempt = 1;; ++attempt) {
        auto const reply = http.request("GET", version_path);
        if (auto dialect = dialect_of(reply)) return *dialect;
        if (!reply.error().transient() || std::chrono::steady_clock::now() >= give_up)
            return core::error{
                failure_message("GET", version_path, reply.error(), config.server.url)};
        pause_before_retry(attempt, give_up);
    }
}

void settle_extensions(core::worker_config& config, api::server_dialect const& dialect,
                       io::logger const& log)
{
    auto const use = config.server.use_extensions;
    config.server.extensions = use == core::extension_use::on ||
                               (use == core::extension_use::automatic &&
                                api::has_torcrun_extensions(dialect));
    log.write(io::log_level::info, "worker",
              "server: " + api::describe(dialect) + "; " +
                  (config.server.extensions ? "torcrun's extensions on"
                                            : "plain Torc calls, no torcrun extension") +
                  " (server.use_extensions " + std::string(core::to_string(use)) + ")");
}

}  // namespace torcrun::apps
