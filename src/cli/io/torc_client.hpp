// The client side of the Torc REST API for the CLI commands (`submit`, `status`, `jobs`): the
// shared flags (--url, default $TORC_API_URL, then http://127.0.0.1:8080/torc-service/v1;
// --user with --password-file or $TORC_PASSWORD; --tls-ca-cert, default $TORC_TLS_CA_CERT, for an
// https URL), one blocking keep-alive connection, JSON
// answers, and failures as one message: `GET /workflows/9: HTTP 404: workflows: no workflow 9`.
#pragma once

#include "run_directory.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/io/http_client.hpp"

#include <boost/json/value.hpp>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace torcrun::apps {

inline constexpr char const* default_api_url = "http://127.0.0.1:8080/torc-service/v1";
// What a bad --url is told to look like.
inline constexpr char const* url_form = "http://host:port/torc-service/v1";

// --url URL, --user NAME, --password-file FILE, --tls-ca-cert FILE.
boost::program_options::options_description client_options();

// Errors: `--url: url: "x" is not a valid URL; expected http://host:port/torc-service/v1`,
// `--user: needs a password
// (--password-file FILE or TORC_PASSWORD)`, the password file's read error, or why the CA file
// (--tls-ca-cert, else $TORC_TLS_CA_CERT) of an https URL cannot be used.
core::result<io::client_settings> client_settings_from(
    boost::program_options::variables_map const& flags);

// One message for a failed request: `GET /workflows/9: HTTP 404: <the server's message>`, or the
// transport's own message; a server that refused the connection (or whose name is unknown) adds
// `(is the server running at URL? start one with `torcrun server`, or give --url URL)`.
std::string failure_message(std::string const& method, std::string const& path,
                            io::http_error const& e, std::string const& url);

class torc_client {
public:
    explicit torc_client(io::client_settings settings)
        : url_(settings.server.text()), http_(std::move(settings))
    {
    }

    // The body of a 2xx reply.
    core::result<std::string> send(std::string const& method, std::string const& path,
                                   std::string body = {});
    // The exchange as the HTTP client reports it, for callers that act on the status.
    io::http_result<io::http_reply> exchange(std::string const& method, std::string const& path,
                                             std::string body = {})
    {
        return http_.request(method, path, std::move(body));
    }
    // The parsed JSON answer of a 2xx reply; an empty answer is null.
    core::result<boost::json::value> call(std::string const& method, std::string const& path,
                                          std::string body = {});

    // Every item of a paged listing (`items`, `has_more`), `path` carrying its filters
    // ("/jobs?workflow_id=3"); pages of `page_size` items.
    core::result<std::vector<boost::json::value>> list_all(std::string const& path,
                                                           std::int64_t page_size = 10000);
    // Every job of workflow `wf`; an unknown workflow is its record's 404, not an empty list.
    core::result<std::vector<boost::json::value>> workflow_jobs(std::int64_t wf);

    // The workflow's current run id: from its record where the record names it (Torc 0.23,
    // torcrun), else from GET /workflows/{id}/status (Torc v0.10, whose 0.23 successor no longer
    // has it). `record` is the workflow's record when the caller has read it already.
    core::result<std::int64_t> run_id(std::int64_t wf,
                                      boost::json::value const* record = nullptr);

    std::string const& url() const { return url_; }

private:
    std::string url_;  // for messages
    io::blocking_http_client http_;
};

// The pause before the `attempt`-th retry (1, 2, ...) of a request to a server that did not
// answer: 1, 2, 4, ... seconds, at most 30, and never past `give_up`. Slept in this thread.
void pause_before_retry(int attempt, std::chrono::steady_clock::time_point give_up);

// --output-dir DIR: the client commands' way to a `torcrun run`'s server or database.
boost::program_options::options_description output_dir_option();

// --worker-output-dir DIR: where the worker that ran the jobs wrote their files (`logs`, `jobs`,
// `report`; worker_output_dirs.hpp).
boost::program_options::options_description worker_output_dir_option();

// The server of the parsed client flags: --output-dir (run_directory.hpp), else --url, else
// $TORC_API_URL, else the default. Error: both --url and --output-dir, or as those functions say.
core::result<client_target> client_target_from(
    boost::program_options::variables_map const& flags);

// A workflow id argument: a positive decimal integer. `workflow: "x" is not a workflow id`.
core::result<std::int64_t> parse_workflow_id(std::string const& text);

// A client command that takes one workflow id (`torcrun status WF`, `torcrun jobs WF`), parsed.
struct workflow_command {
    boost::program_options::variables_map flags;
    std::int64_t workflow_id = 0;
    io::client_settings settings;
    std::shared_ptr<embedded_server> local_server;  // the --output-dir database, served here
};

// Parses `args` with the command's own `options` plus the client flags and the positional WF,
// and a second positional argument stored under `second` when it is not empty (`torcrun logs
// WF JOB`: "job").
// Returns the parsed command, or the exit status after printing the help (0) or an error (2,
// `torcrun NAME: message` on stderr).
std::variant<workflow_command, int> parse_workflow_command(
    std::vector<std::string> const& args, boost::program_options::options_description options,
    std::string const& name, std::string const& second = {});

}  // namespace torcrun::apps
