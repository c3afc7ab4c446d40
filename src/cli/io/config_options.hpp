// The configuration flags shared by `torcrun worker`, `torcrun server` and `torcrun config`, and
// loading a configuration: defaults, then the --config file, then --set, then the named flags.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/config/execution_config_merge.hpp"
#include "torcrun/common/io/logger.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <optional>
#include <string>

namespace torcrun::apps {

// --config FILE, --url, --tls-ca-cert, --workflow, --mode, --output-dir, --poll-interval,
// --long-poll, --termination-signal, --grace, --log-level and --set KEY=VALUE (repeatable).
boost::program_options::options_description worker_config_options();
// --config FILE, --host, --port, --db, --tls-cert, --tls-key, --log-level and --set KEY=VALUE
// (repeatable).
boost::program_options::options_description server_config_options();

// The effective configuration for the parsed flags; every problem, one per line, otherwise.
core::result<core::worker_config> load_worker_config(
    boost::program_options::variables_map const& flags);
core::result<core::server_config> load_server_config(
    boost::program_options::variables_map const& flags);
// The same with each key's source ("file PATH", "--set", "flag --grace"; absent = default).
// `url_from_environment`: $TORC_API_URL sets server.url and $TORC_TLS_CA_CERT server.tls_ca_cert
// over the file, under --set and the flags (the worker's rule, as Torc's: flag, then
// environment, then file, then default).
core::result<core::sourced_worker_config> load_sourced_worker_config(
    boost::program_options::variables_map const& flags, bool url_from_environment = false);

// The variable's value when set and not empty.
std::optional<std::string> environment_value(char const* name);
// $TORC_API_URL, $TORC_TLS_CA_CERT (newer Torc's name) when set and not empty.
std::optional<std::string> api_url_from_environment();
std::optional<std::string> tls_ca_cert_from_environment();

// The logger's level for a configuration's log_level.
io::log_level log_level_of(core::log_severity severity);

// A whole file, or "PATH: cannot read: REASON".
core::result<std::string> read_text_file(std::string const& path);

}  // namespace torcrun::apps
