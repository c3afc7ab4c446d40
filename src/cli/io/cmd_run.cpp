// `torcrun run SPEC [options]`: the one-command way to run a workflow. An embedded server
// (SQLite at <output>/torcrun.db, 127.0.0.1, an ephemeral port or --port, its URL in
// <output>/url while it serves) on its own thread, the spec
// submitted as `torcrun submit` does, a worker over this machine's resources in the main thread
// (logging to <output>/worker.log unless --verbose), live progress on stderr, and a summary on
// stdout. Exit 0 when every job completed, 1 otherwise, 2 for bad input (an output directory
// that already holds a workflow's database is one: it is never reused by a new workflow).
#include "torcrun/cli/commands.hpp"

#include "cli/positional_command.hpp"
#include "config_options.hpp"
#include "embedded_server.hpp"
#include "failure_watch.hpp"
#include "run_directory.hpp"
#include "report_gathering.hpp"
#include "run_output.hpp"
#include "spec_submission.hpp"
#include "worker_setup.hpp"

#include "torcrun/worker/worker_fsm.hpp"

#include <boost/program_options.hpp>

#include <unistd.h>

#include <charconv>
#include <utility>
#include <filesystem>
#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr char const* usage =
    "usage: torcrun run SPEC [options]\n\n"
    "Runs a Torc workflow spec (JSON, JSON5 or YAML) on this machine: starts a server with its\n"
    "database in the output directory, submits the spec, runs a worker until the workflow is\n"
    "done, shows progress on stderr and a summary on stdout. Exit 0: every job completed;\n"
    "1: a job did not complete or the run failed; 2: the spec or the options are wrong.\n";

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun run: " << message << "\n";
    return status;
}

struct run_options {
    std::string spec;
    core::worker_config config;
    core::config_sources sources;  // of `config`'s keys, for the workflow's execution_config
    spec_options spec_flags;
    bool quiet = false;
    bool verbose = false;
    double progress_interval = 10;
    std::uint16_t port = 0;  // of the embedded server; 0 = any free port
};

// --port: a decimal TCP port, 0 to 65535.
std::optional<std::uint16_t> parse_port(std::string const& text)
{
    unsigned value = 0;
    auto const* end = text.data() + text.size();
    auto const [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc{} || ptr != end || value > 65535) return std::nullopt;
    return static_cast<std::uint16_t>(value);
}

// The options, or the exit status after the help (0) or an error (2).
std::variant<run_options, int> parse(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "quiet,q", "no progress lines, only the summary")(
        "verbose,v", "worker and server logs on stderr instead of files in the output directory")(
        "progress-interval", po::value<double>()->value_name("S")->default_value(10),
        "seconds between progress lines when stderr is not a terminal")(
        "skip-checks", "skip the multi-node scheduler check, as Torc's --skip-checks")(
        "no-resource-monitoring", "no default resource monitor, as Torc's option of that name")(
        "port", po::value<std::string>()->value_name("P"),
        "the embedded server's port on 127.0.0.1 (default: any free port); its URL is in "
        "<output-dir>/url while the run lasts");
    options.add(worker_config_options());
    auto parsed = parse_positional_command(
        args, options,
        {"run", "spec", "SPEC", usage, "a spec file is required (torcrun run SPEC)"});
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    auto const& flags = std::get<po::variables_map>(parsed);
    for (char const* own : {"url", "workflow"}) {
        if (flags.count(own))
            return fail(std::string("--") + own + ": torcrun run starts its own server and "
                        "workflow; use torcrun worker to join another", 2);
    }
    auto config = load_sourced_worker_config(flags);
    if (!config) return fail(config.error().message, 2);
    run_options out{flags["spec"].as<std::string>(), std::move(config->config),
                    std::move(config->sources),
                    {!flags.count("no-resource-monitoring"), flags.count("skip-checks") > 0},
                    flags.count("quiet") > 0, flags.count("verbose") > 0,
                    flags["progress-interval"].as<double>()};
    if (!(out.progress_interval >= 0.1 && out.progress_interval <= 3600))
        return fail("--progress-interval: " + std::to_string(out.progress_interval) +
                        " is out of range (0.1 to 3600)", 2);
    if (flags.count("port")) {
        auto const& text = flags["port"].as<std::string>();
        auto port = parse_port(text);
        if (!port) return fail("--port: \"" + text + "\" is not a port (0 to 65535)", 2);
        out.port = *port;
    }
    return out;
}

struct run_logs {
    io::logger worker;
    io::logger server;
    std::string worker_path;  // empty with --verbose
};

core::result<run_logs> open_logs(run_options const& o, std::string const& output_dir)
{
    auto const level = log_level_of(o.config.log_level);
    if (o.verbose) return run_logs{io::stderr_logger(level), io::stderr_logger(level), {}};
    auto const worker_path = output_dir + "/worker.log";
    auto worker = file_logger(worker_path, level);
    if (!worker) return worker.error();
    auto server = file_logger(output_dir + "/server.log", level);
    if (!server) return server.error();
    return run_logs{std::move(*worker), std::move(*server), worker_path};
}

// `<output>/url` for as long as the run's server serves: removed when the run ends however it
// ends, after the server stopped.
class url_file {
public:
    url_file() = default;
    explicit url_file(std::string dir) : dir_(std::move(dir)) {}
    url_file(url_file&& other) noexcept : dir_(std::exchange(other.dir_, {})) {}
    url_file& operator=(url_file&& other) noexcept
    {
        std::swap(dir_, other.dir_);
        return *this;
    }
    ~url_file()
    {
        if (!dir_.empty()) remove_url_file(dir_);
    }

private:
    std::string dir_;
};

// What the run has once the workflow exists on the embedded server.
struct started_run {
    url_file url;  // declared first: removed after the server stopped
    std::unique_ptr<embedded_server> server;
    std::unique_ptr<torc_client> client;
    run_logs logs;
    std::string output_dir;
    std::int64_t workflow_id = 0;
    std::chrono::steady_clock::time_point start;
};

// The spec planned, the output directory, the logs, the server and the submission; the exit
// status when one of them fails.
std::variant<started_run, int> start_run(run_options& o)
{
    auto plan = plan_spec_file(o.spec, o.spec_flags);
    if (!plan) return fail(plan.error().message, 2);
    for (auto const& w : plan->warnings) std::cerr << "torcrun run: warning: " << w << "\n";
    // A second workflow in the same database would leave two runs' logs in one directory.
    if (auto const db = fs::path(o.config.output_dir) / run_database_name; fs::exists(db))
        return fail(o.config.output_dir + " already holds a workflow (" + db.string() +
                        "); its logs stay as they are: give another --output-dir, or remove " +
                        o.config.output_dir + " to start over",
                    2);
    std::error_code ec;
    fs::create_directories(o.config.output_dir, ec);
    if (ec) return fail(o.config.output_dir + ": cannot create: " + ec.message(), 1);
    started_run run;
    run.output_dir = fs::absolute(o.config.output_dir).lexically_normal().string();
    o.config.output_dir = run.output_dir;
    auto logs = open_logs(o, run.output_dir);
    if (!logs) return fail(logs.error().message, 1);
    run.logs = std::move(*logs);
    auto server = embedded_server::start(run.output_dir + "/" + run_database_name,
                                         run.logs.server, o.port);
    if (!server) return fail(server.error().message, 1);
    run.server = std::move(*server);
    if (auto written = write_url_file(run.output_dir, run.server->url()); !written)
        return fail(written.error().message, 1);
    run.url = url_file(run.output_dir);
    io::client_settings settings;
    settings.server = *io::parse_base_url(run.server->url());
    run.client = std::make_unique<torc_client>(std::move(settings));
    run.start = std::chrono::steady_clock::now();
    auto wf = submit_plan(*run.client, std::move(*plan), true);
    if (!wf) return fail(wf.error().message, 1);
    run.workflow_id = *wf;
    // The URL ends its line, so that it is copied without punctuation.
    std::cerr << "torcrun run: workflow " << *wf << " (output in " << run.output_dir
              << ") served at " << run.server->url() << std::endl;
    return run;
}

// The worker until it stops, with the progress shown meanwhile; then the summary.
int execute(run_options& o, started_run& run)
{
    o.config.server.url = run.server->url();
    o.config.workflow_id = run.workflow_id;
    o.config.limits.sole_worker = true;  // its one worker: jobs that never fit end the run at once
    auto record = read_workflow_record(*run.client, run.workflow_id);
    if (!record) return fail(record.error().message, 1);
    auto workflow = workflow_settings_of(*record, {o.config, o.sources});
    if (!workflow) return fail(workflow.error().message, 2);
    auto setup = make_worker_setup(std::move(*workflow), run.logs.worker);
    if (!setup) return fail(setup.error().message, 2);
    bool const terminal = ::isatty(STDERR_FILENO) == 1 && !o.verbose;
    progress_display progress(terminal, run.start);
    if (!o.quiet) {
        auto const interval = std::chrono::milliseconds(
            terminal ? 500 : static_cast<std::int64_t>(o.progress_interval * 1000));
        run.server->watch(run.workflow_id, interval,
                          [&progress](core::status_counts const& c) { progress.show(c); });
    }
    // The worker's never-fit lines, printed with the summary: the run exits 1 instead of waiting.
    std::vector<std::string> never_fit;
    auto worker_log = run.logs.worker;
    worker_log.sink = [&never_fit, sink = run.logs.worker.sink](io::log_level level,
                                                                std::string_view line) {
        constexpr std::string_view marker = "worker: never fits: ";
        if (auto const at = line.find(marker);
            level == io::log_level::err && at != std::string_view::npos)
            never_fit.emplace_back(line.substr(at + marker.size()));
        if (sink) sink(level, line);
    };
    std::optional<failure_watch> failures;
    if (!o.quiet) {
        io::client_settings own;  // a connection of its own, beside the main thread's
        own.server = *io::parse_base_url(run.server->url());
        failures.emplace(std::move(own), run.workflow_id, run.output_dir,
                         [&progress](std::string const& text) { progress.note(text); });
    }
    int const worker_rc = run_worker_here(std::move(*setup), worker_log);
    if (failures) failures->stop();
    run.server->unwatch();
    auto counts = run.server->counts(run.workflow_id);
    if (!counts) return fail(counts.error().message, 1);
    if (!o.quiet) progress.finish(*counts);
    auto summary = read_summary(*run.client, run.workflow_id, *counts, run.output_dir);
    if (!summary) return fail(summary.error().message, 1);
    summary->wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
    summary->database = run.output_dir + "/" + run_database_name;
    summary->output_dir = run.output_dir;
    summary->worker_log = run.logs.worker_path;
    auto const report_path = run.output_dir + "/report.html";
    if (auto report = write_report(*run.client, run.workflow_id, run.output_dir, report_path))
        summary->report = report_path;
    else
        std::cerr << "torcrun run: warning: no report: " << report.error().message << "\n";
    run.server->stop();
    std::cout << core::format_summary(*summary) << std::flush;
    for (auto const& line : never_fit) std::cerr << "torcrun run: can never run: " << line << "\n";
    if (worker_rc == core::never_fits_exit_code)
        return fail("stopped: the jobs above can never run on this machine", 1);
    if (worker_rc != 0)
        return fail("the worker exited with status " + std::to_string(worker_rc), 1);
    return core::run_exit_status(*counts);
}

}  // namespace

int cmd_run(arguments const& args)
{
    auto parsed = parse(args);
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    auto& options = std::get<run_options>(parsed);
    auto started = start_run(options);
    if (auto const* status = std::get_if<int>(&started)) return *status;
    return execute(options, std::get<started_run>(started));
}

}  // namespace torcrun::apps
