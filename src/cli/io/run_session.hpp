// One `torcrun run` session over an output directory D, shared by `torcrun run` (a new workflow,
// or --resume) and `torcrun rerun --output-dir D`: D created when missing, the worker's and
// server's logs appended to D/worker.log and D/server.log (or stderr with --verbose), the embedded
// server on D/torcrun.db with its URL in D/url while it serves, then a worker over this machine's
// resources with live progress on stderr, failures as they happen, and the summary on stdout.
#pragma once

#include "embedded_server.hpp"
#include "torc_client.hpp"

#include "torcrun/common/io/logger.hpp"
#include "torcrun/common/server_dialect.hpp"
#include "torcrun/config/config.hpp"
#include "torcrun/config/execution_config_merge.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

namespace torcrun::apps {

// What the session's worker and display are told; `config.output_dir` is D.
struct run_settings {
    core::worker_config config;
    core::config_sources sources;  // of `config`'s keys, for the workflow's execution_config
    bool quiet = false;
    bool verbose = false;
    double progress_interval = 10;
    std::uint16_t port = 0;  // of the embedded server; 0 = any free port
};

// -q, -v, --progress-interval S: the display flags of a session.
boost::program_options::options_description run_display_options();
// Those flags into `settings`; the message when --progress-interval is out of range.
core::result<void> read_display_options(boost::program_options::variables_map const& flags,
                                        run_settings& settings);

// `D/url` for as long as the session's server serves: removed when the session ends however it
// ends, after the server stopped.
class url_file {
public:
    url_file() = default;
    explicit url_file(std::string dir) : dir_(std::move(dir)) {}
    url_file(url_file&& other) noexcept;
    url_file& operator=(url_file&& other) noexcept;
    ~url_file();

private:
    std::string dir_;
};

struct run_session {
    url_file url;  // declared first: removed after the server stopped
    std::unique_ptr<embedded_server> server;
    std::unique_ptr<torc_client> client;
    api::server_dialect dialect;  // the embedded server's GET /version, read once
    io::logger worker_log;
    io::logger server_log;
    std::string worker_log_path;  // empty with --verbose
    std::string output_dir;       // absolute
    std::int64_t workflow_id = 0;
    std::chrono::steady_clock::time_point start;
};

// D created, the logs opened, the server started on D/torcrun.db (its dialect read) and D/url written;
// `settings.config.output_dir` made absolute. Errors: `D: cannot create: REASON`, the logs' or the
// server's.
core::result<run_session> open_session(run_settings& settings);

// The worker of `session.workflow_id` until it stops, the progress meanwhile, then the summary
// (and D/report.html). Messages start `torcrun NAME: `. Returns the exit status: 0 every job
// completed, 1 otherwise or when the worker failed, 2 a workflow setting that is wrong.
int run_to_end(run_settings& settings, run_session& session, std::string const& name);

}  // namespace torcrun::apps
