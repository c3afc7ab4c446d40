// `torcrun server [--config FILE] [--host H] [--port P] [--db PATH] [--tls-cert F --tls-key F]
// [--set KEY=VALUE]`: the workflow server. Wiring only: the configuration becomes the store
// (WAL), the Torc REST API over it, the HTTP server settings (HTTPS with a certificate) and the
// worker-lease sweep on a timer; run_http_server owns the
// reactor and the SIGTERM path, and returns once in-flight requests are answered, after which the
// store closes the database.
#include "torcrun/cli/commands.hpp"
#include "torcrun/config/config_schema.hpp"

#include "cli/command_line_parse.hpp"
#include "cli/positional_command.hpp"

#include "config_options.hpp"
#include "torcrun/server/io/htpasswd.hpp"
#include "torcrun/server/io/dataset_finalizer.hpp"
#include "torcrun/server/io/http_server.hpp"
#include "torcrun/server/io/job_lifecycle.hpp"
#include "torcrun/common/io/logger.hpp"
#include "torcrun/common/io/tls_context.hpp"
#include "torcrun/server/io/server_api.hpp"
#include "torcrun/server/io/store.hpp"

#include <boost/program_options/parsers.hpp>
#include <boost/program_options/variables_map.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

io::server_settings http_settings(core::server_config const& config, io::tls_context tls)
{
    io::server_settings s;
    s.tls = std::move(tls);
    s.handshake_timeout = std::chrono::milliseconds(
        static_cast<std::int64_t>(config.tls.handshake_timeout_seconds * 1000));
    s.host = config.host;
    s.port = config.port;
    s.max_body_bytes = config.max_body_bytes;
    if (config.max_connections) s.max_connections = *config.max_connections;
    s.htpasswd_file = config.auth.htpasswd_file;
    return s;
}

io::server_options api_options(core::server_config const& config)
{
    io::server_options o;
    o.long_poll_max_seconds = config.long_poll_max_seconds;
    o.worker_lease_seconds = config.worker_lease_seconds;
    o.lost_worker_jobs = config.lost_worker_jobs == core::lost_job_policy::failed
                             ? core::orphan_policy::failed
                             : core::orphan_policy::ready;
    o.enforce_access_control = config.auth.enforce_access_control;
    return o;
}

// The sweep runs every quarter lease (at most 5 s apart), so a lost worker's jobs come back
// within 1.25 leases.
std::chrono::milliseconds sweep_interval(double lease_seconds)
{
    auto const ms = static_cast<std::int64_t>(lease_seconds * 1000 / 4);
    return std::chrono::milliseconds(std::clamp<std::int64_t>(ms, 50, 5000));
}

void sweep_leases(io::server_api& api, io::logger const& log)
{
    auto swept = io::expire_lost_workers(api, std::chrono::steady_clock::now());
    if (!swept) {
        log.write(io::log_level::err, "lease", "sweep failed", {{"error", swept.error().message}});
        return;
    }
    for (auto const node : swept->lost_workers) {
        auto const id = std::to_string(node);
        log.write(io::log_level::warning, "lease", "worker lost", {{"compute_node_id", id}});
    }
    for (auto const node : swept->inactive_holders) {
        auto const id = std::to_string(node);
        log.write(io::log_level::warning, "lease", "jobs of an inactive node released",
                  {{"compute_node_id", id}});
    }
    if (swept->jobs_ready.empty() && swept->jobs_failed.empty()) return;
    auto const ready = std::to_string(swept->jobs_ready.size());
    auto const failed = std::to_string(swept->jobs_failed.size());
    log.write(io::log_level::info, "lease", "jobs of lost workers moved",
              {{"ready", ready}, {"failed", failed}});
}

// The base URL clients use; an IPv6 address needs brackets.
std::string listening_url(std::string const& host, std::uint16_t port, bool tls)
{
    auto const shown = host.find(':') == std::string::npos ? host : "[" + host + "]";
    return (tls ? "https://" : "http://") + shown + ":" + std::to_string(port) +
           "/torc-service/v1";
}

void print_usage(std::ostream& out, po::options_description const& options)
{
    out << "usage: torcrun server [options]\n\n"
           "Serves the Torc v0.10 REST API (/torc-service/v1) from a SQLite database until\n"
           "SIGTERM or SIGINT, over HTTPS when given a certificate and its key (--tls-cert,\n"
           "--tls-key). Configuration problems, an unusable certificate or key included, exit\n"
           "2; a database or address that cannot be used exits 1.\n\n"
        << options;
}

// The keys of --set items that the server does not have and the worker does: a worker's
// setting given to the server.
std::vector<std::string> worker_keys_set(po::variables_map const& flags)
{
    std::vector<std::string> out;
    if (!flags.count("set")) return out;
    auto const has = [](core::schema_view const& schema, std::string_view path) {
        return std::any_of(schema.keys.begin(), schema.keys.end(),
                           [path](core::key_rule const& k) { return k.path == path; });
    };
    auto const server = core::server_schema();
    auto const worker = core::worker_schema();
    for (auto const& item : flags["set"].as<std::vector<std::string>>()) {
        auto const key = item.substr(0, item.find('='));
        if (!has(server, key) && has(worker, key)) out.push_back(key);
    }
    return out;
}

int serve(core::server_config const& config, io::tls_context tls)
{
    auto log = io::stderr_logger(log_level_of(config.log_level));
    auto db = io::store::open(config.database);
    if (!db) {
        std::cerr << "torcrun server: " << db.error().message << "\n";
        return 1;
    }
    io::server_api api(*db, api_options(config));
    if (auto synced = io::sync_admin_group(*db, config.auth.admin_users, api.timestamp());
        !synced) {
        std::cerr << "torcrun server: " << synced.error().message << "\n";
        return 1;
    }
    if (config.auth.enforce_access_control)
        log.write(io::log_level::info, "server", "access control is on",
                  {{"admin_users", std::to_string(config.auth.admin_users.size())}});
    io::server_hooks hooks;
    hooks.on_listening = [host = config.host, https = tls != nullptr](std::uint16_t port) {
        // One write: stderr is unbuffered, and a reader polling for this line (a script that
        // waits for the port) must never see it cut after "listening on ".
        std::string const line =
            "torcrun server: listening on " + listening_url(host, port, https) + "\n";
        std::cerr.write(line.data(), static_cast<std::streamsize>(line.size())).flush();
    };
    hooks.tick_interval = sweep_interval(config.worker_lease_seconds);
    hooks.on_tick = [&api, &log] { sweep_leases(api, log); };
    std::unique_ptr<io::dataset_pump> pump;
    hooks.on_reactor = [&](boost::asio::io_context& ioc) -> std::function<void()> {
        pump = std::make_unique<io::dataset_pump>(ioc, api, log);
        pump->start();
        return [&pump] { pump->stop(); };
    };
    return io::run_http_server(http_settings(config, std::move(tls)), api, log, std::move(hooks));
}

}  // namespace

int cmd_server(arguments const& args)
{
    auto options = server_config_options();
    options.add_options()("help,h", "print this help");
    po::variables_map flags;
    try {
        po::store(parse_command_line(args, options), flags);
    } catch (po::error const& e) {
        std::cerr << "torcrun server: " << command_line_error(e, options) << "\n";
        return 2;
    }
    if (flags.count("help")) return print_usage(std::cout, options), 0;
    auto config = load_server_config(flags);
    if (!config) {
        std::cerr << config.error().message << "\n";
        for (auto const& key : worker_keys_set(flags))
            std::cerr << "torcrun server: " << key << " is a worker key (torcrun worker --set, "
                      << "torcrun config worker); the server's keys: torcrun config server "
                      << "--reference\n";
        return 2;
    }
    // An unreadable or malformed password file is a configuration error, found before the
    // database is touched (the HTTP server loads it again when it starts).
    if (auto const& file = config->auth.htpasswd_file) {
        if (auto users = io::htpasswd::load(*file); !users) {
            std::cerr << "torcrun server: " << users.error().message << "\n";
            return 2;
        }
    }
    // So are a certificate or key OpenSSL cannot use: nothing listens with a broken TLS setup.
    io::tls_context tls;
    if (config->tls.certificate && config->tls.key) {
        auto loaded = io::load_server_tls({*config->tls.certificate, *config->tls.key});
        if (!loaded) {
            std::cerr << "torcrun server: " << loaded.error().message << "\n";
            return 2;
        }
        tls = std::move(*loaded);
    }
    return serve(*config, std::move(tls));
}

}  // namespace torcrun::apps
