// The output directory of a `torcrun run` as the client commands find it: `D/torcrun.db`, the
// run's database, and `D/url`, its server's URL, present while that server is up. A client
// command given `--output-dir D` talks to the live server when `D/url` answers, and otherwise
// serves the database itself, in process, for as long as the command runs (a finished run).
#pragma once

#include "embedded_server.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/io/http_client.hpp"

#include <memory>
#include <optional>
#include <string>

namespace torcrun::apps {

inline constexpr char const* run_database_name = "torcrun.db";
inline constexpr char const* run_url_name = "url";

// Where a client command sends its requests, and the server it started for them, if any.
struct client_target {
    io::client_settings settings;
    std::shared_ptr<embedded_server> local;
};

// The server of the `torcrun run` serving `dir` now: `D/url` names a server that answers GET /ping
// within a second.
std::optional<io::client_settings> live_run_server(std::string const& dir);

// Errors: `--output-dir D: no torcrun run here (D/torcrun.db does not exist)`, or the store's.
core::result<client_target> open_run_directory(std::string const& dir);

// `path` holding `text`, written to `path.part` and renamed (a reader never sees half of it).
// Error: `PATH: cannot write: REASON`.
core::result<void> write_whole_file(std::string const& path, std::string const& text);

// `D/url` holding `url` and a newline, written whole (a reader never sees half of it). Error:
// `D/url: cannot write: REASON`.
core::result<void> write_url_file(std::string const& dir, std::string const& url);
// Removes `D/url`; a missing file is fine.
void remove_url_file(std::string const& dir);

}  // namespace torcrun::apps
