// Configuration flags: each named flag is a shorthand for one key path, and every flag's text
// goes through the same schema check as a file value (core::config_override).
#include "config_options.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

struct flag {
    char const* name;
    char const* key_path;
    char const* help;
};

constexpr flag worker_flags[] = {
    {"url", "server.url", "server API base URL (default: $TORC_API_URL, else server.url)"},
    {"tls-ca-cert", "server.tls_ca_cert",
     "PEM file of the CAs trusted for an https URL (default: $TORC_TLS_CA_CERT, else "
     "server.tls_ca_cert, else the system's store)"},
    {"workflow", "workflow_id", "workflow id"},
    {"mode", "mode", "auto, direct or slurm"},
    {"output-dir", "output_dir", "directory for logs and job output"},
    {"label", "label", "claim only jobs with this label (without: only unlabelled jobs)"},
    {"poll-interval", "poll.interval_seconds", "seconds between polls while idle"},
    {"long-poll", "poll.long_poll_seconds", "seconds a claim may wait on the server; 0 = off"},
    {"startup-delay-seconds", "poll.startup_delay_seconds",
     "wait a random time up to this many seconds before registering"},
    {"termination-signal", "termination.signal", "signal that asks jobs to stop"},
    {"grace", "termination.grace_seconds", "seconds from that signal to SIGKILL"},
    {"max-parallel-jobs", "limits.max_parallel_jobs", "hold at most this many jobs at once"},
    {"log-level", "log_level", "error, warning, info or debug"},
};

constexpr flag server_flags[] = {
    {"host", "host", "address to listen on"},
    {"port", "port", "TCP port; 0 = any free port"},
    {"db", "database", "SQLite database file"},
    {"tls-cert", "tls.certificate", "PEM certificate chain: serve HTTPS (with --tls-key)"},
    {"tls-key", "tls.key", "PEM private key of --tls-cert"},
    {"log-level", "log_level", "error, warning, info or debug"},
};

// `example` is a --set item that the configuration accepts, shown in the help.
po::options_description describe(char const* title, std::span<flag const> flags,
                                 std::string const& example)
{
    po::options_description options(title);
    options.add_options()("config", po::value<std::string>()->value_name("FILE"),
                          "configuration file (JSON, comments allowed)");
    for (auto const& f : flags) {
        options.add_options()(f.name, po::value<std::string>()->value_name("VALUE"), f.help);
    }
    options.add_options()("set", po::value<std::vector<std::string>>()->composing()->value_name(
                                     "KEY=VALUE"),
                          ("set any key, e.g. --set " + example + " (repeatable)").c_str());
    return options;
}

// $TORC_API_URL and $TORC_TLS_CA_CERT where asked for, then the --set items in order, then the
// named flags, so that the named flags win and the environment wins over the file only.
core::result<std::vector<core::config_override>> collect(po::variables_map const& vm,
                                                         std::span<flag const> flags,
                                                         bool url_from_environment)
{
    std::vector<core::config_override> overrides;
    if (auto url = url_from_environment ? api_url_from_environment() : std::nullopt)
        overrides.push_back({"server.url", *url, "TORC_API_URL"});
    if (auto ca = url_from_environment ? tls_ca_cert_from_environment() : std::nullopt)
        overrides.push_back({"server.tls_ca_cert", *ca, "TORC_TLS_CA_CERT"});
    if (vm.count("set")) {
        for (auto const& item : vm["set"].as<std::vector<std::string>>()) {
            auto const eq = item.find('=');
            if (eq == std::string::npos || eq == 0) {
                return core::error{"--set: \"" + item + "\" is not KEY=VALUE"};
            }
            std::string const key = item.substr(0, eq);
            overrides.push_back({key, item.substr(eq + 1), "--set " + key});
        }
    }
    for (auto const& f : flags) {
        if (vm.count(f.name)) {
            overrides.push_back({f.key_path, vm[f.name].as<std::string>(),
                                 std::string("--") + f.name});
        }
    }
    return overrides;
}

template <class Config>
core::result<Config> load(po::variables_map const& vm, std::span<flag const> flags,
                          core::result<Config> (*parse)(std::string_view, std::string_view,
                                                        std::span<core::config_override const>),
                          bool url_from_environment = false)
{
    auto const overrides = collect(vm, flags, url_from_environment);
    if (!overrides) return overrides.error();
    if (!vm.count("config")) return parse("{}", "command line", *overrides);
    auto const path = vm["config"].as<std::string>();
    auto const text = read_text_file(path);
    if (!text) return text.error();
    return parse(*text, path, *overrides);
}

}  // namespace

po::options_description worker_config_options()
{
    return describe("worker configuration", worker_flags, "poll.interval_seconds=10");
}

po::options_description server_config_options()
{
    return describe("server configuration", server_flags, "worker_lease_seconds=60");
}

core::result<core::worker_config> load_worker_config(po::variables_map const& flags)
{
    return load<core::worker_config>(flags, worker_flags, &core::parse_worker_config);
}

core::result<core::server_config> load_server_config(po::variables_map const& flags)
{
    return load<core::server_config>(flags, server_flags, &core::parse_server_config);
}

core::result<core::sourced_worker_config> load_sourced_worker_config(
    po::variables_map const& flags, bool url_from_environment)
{
    return load<core::sourced_worker_config>(flags, worker_flags,
                                             &core::parse_sourced_worker_config,
                                             url_from_environment);
}

std::optional<std::string> environment_value(char const* name)
{
    char const* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    return std::string(value);
}

std::optional<std::string> api_url_from_environment() { return environment_value("TORC_API_URL"); }

std::optional<std::string> tls_ca_cert_from_environment()
{
    return environment_value("TORC_TLS_CA_CERT");
}

core::result<std::string> read_text_file(std::string const& path)
{
    // An ifstream opens a directory and then reads nothing, which would pass for an empty file.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return core::error{path + ": cannot read: " + std::strerror(EISDIR)};
    }
    std::ifstream in(path, std::ios::binary);
    if (in) {
        std::ostringstream text;
        text << in.rdbuf();
        if (!in.bad()) return core::result<std::string>(boost::system::in_place_value, text.str());
    }
    return core::error{path + ": cannot read: " + std::strerror(errno)};
}

io::log_level log_level_of(core::log_severity severity)
{
    switch (severity) {
        case core::log_severity::error: return io::log_level::err;
        case core::log_severity::warning: return io::log_level::warning;
        case core::log_severity::info: return io::log_level::info;
        case core::log_severity::debug: return io::log_level::debug;
    }
    return io::log_level::info;
}

}  // namespace torcrun::apps
