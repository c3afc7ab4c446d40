// See run_session.hpp.
#include "run_session.hpp"

#include "config_options.hpp"
#include "failure_watch.hpp"
#include "report_gathering.hpp"
#include "run_directory.hpp"
#include "run_output.hpp"
#include "server_probe.hpp"
#include "workflow_settings.hpp"
#include "worker_setup.hpp"

#include "torcrun/worker/worker_fsm.hpp"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace fs = std::filesystem;

po::options_description run_display_options()
{
    po::options_description options("display");
    options.add_options()("quiet,q", "no progress lines, only the summary")(
        "verbose,v", "worker and server logs on stderr instead of files in the output directory")(
        "progress-interval", po::value<double>()->value_name("S")->default_value(10),
        "seconds between progress lines when stderr is not a terminal");
    return options;
}

core::result<void> read_display_options(po::variables_map const& flags, run_settings& settings)
{
    settings.quiet = flags.count("quiet") > 0;
    settings.verbose = flags.count("verbose") > 0;
    settings.progress_interval = flags["progress-interval"].as<double>();
    if (!(settings.progress_interval >= 0.1 && settings.progress_interval <= 3600))
        return core::error{"--progress-interval: " + std::to_string(settings.progress_interval) +
                           " is out of range (0.1 to 3600)"};
    return {};
}

url_file::url_file(url_file&& other) noexcept : dir_(std::exchange(other.dir_, {})) {}

url_file& url_file::operator=(url_file&& other) noexcept
{
    std::swap(dir_, other.dir_);
    return *this;
}

url_file::~url_file()
{
    if (!dir_.empty()) remove_url_file(dir_);
}

core::result<run_session> open_session(run_settings& settings)
{
    auto& dir = settings.config.output_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return core::error{dir + ": cannot create: " + ec.message()};
    run_session session;
    session.output_dir = fs::absolute(dir).lexically_normal().string();
    dir = session.output_dir;
    auto const level = log_level_of(settings.config.log_level);
    if (settings.verbose) {
        session.worker_log = io::stderr_logger(level);
        session.server_log = io::stderr_logger(level);
    } else {
        session.worker_log_path = session.output_dir + "/worker.log";
        auto worker = file_logger(session.worker_log_path, level);
        if (!worker) return worker.error();
        auto server = file_logger(session.output_dir + "/server.log", level);
        if (!server) return server.error();
        session.worker_log = std::move(*worker);
        session.server_log = std::move(*server);
    }
    auto server = embedded_server::start(session.output_dir + "/" + run_database_name,
                                         session.server_log, settings.port);
    if (!server) return server.error();
    session.server = std::move(*server);
    if (auto written = write_url_file(session.output_dir, session.server->url()); !written)
        return written.error();
    session.url = url_file(session.output_dir);
    io::client_settings client;
    client.server = *io::parse_base_url(session.server->url());
    session.client = std::make_unique<torc_client>(std::move(client));
    auto dialect = read_server_dialect(*session.client);
    if (!dialect) return dialect.error();
    session.dialect = *dialect;
    session.start = std::chrono::steady_clock::now();
    return session;
}

int run_to_end(run_settings& o, run_session& run, std::string const& name)
{
    auto const fail = [&name](std::string const& message, int status) {
        std::cerr << "torcrun " << name << ": " << message << "\n";
        return status;
    };
    o.config.server.url = run.server->url();
    o.config.workflow_id = run.workflow_id;
    o.config.limits.sole_worker = true;  // its one worker: jobs that never fit end the run at once
    auto record = read_workflow_record(*run.client, run.workflow_id);
    if (!record) return fail(record.error().message, 1);
    auto workflow = workflow_settings_of(*record, {o.config, o.sources});
    if (!workflow) return fail(workflow.error().message, 2);
    auto setup = make_worker_setup(std::move(*workflow), run.worker_log);
    if (!setup) return fail(setup.error().message, 2);
    settle_extensions(setup->config, run.dialect, run.worker_log);
    bool const terminal = ::isatty(STDERR_FILENO) == 1 && !o.verbose;
    progress_display progress(terminal, run.start);
    if (!o.quiet) {
        auto const interval = std::chrono::milliseconds(
            terminal ? 500 : static_cast<std::int64_t>(o.progress_interval * 1000));
        run.server->watch(run.workflow_id, interval,
                          [&progress](core::status_counts const& c) { progress.show(c); });
    }
    // The worker's never-fit lines, printed with the summary: the run exits 1 instead of waiting;
    // and why it stopped claiming when it could not start jobs itself (a full disk).
    std::vector<std::string> never_fit;
    std::string cannot_start;
    auto worker_log = run.worker_log;
    worker_log.sink = [&never_fit, &cannot_start, sink = run.worker_log.sink](
                          io::log_level level, std::string_view line) {
        constexpr std::string_view marker = "worker: never fits: ";
        constexpr std::string_view stops = "worker: stops claiming: ";
        if (level != io::log_level::err) {  // a job's lines: not searched
            if (sink) sink(level, line);
            return;
        }
        if (auto const at = line.find(marker);
            level == io::log_level::err && at != std::string_view::npos)
            never_fit.emplace_back(line.substr(at + marker.size()));
        if (auto const at = line.find(stops);
            level == io::log_level::err && at != std::string_view::npos)
            cannot_start = line.substr(at + stops.size());
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
    summary->worker_log = run.worker_log_path;
    auto const report_path = run.output_dir + "/report.html";
    if (auto report = write_report(*run.client, run.workflow_id, run.output_dir, report_path))
        summary->report = report_path;
    else
        std::cerr << "torcrun " << name << ": warning: no report: " << report.error().message
                  << "\n";
    run.server->stop();
    std::cout << core::format_summary(*summary) << std::flush;
    for (auto const& line : never_fit)
        std::cerr << "torcrun " << name << ": can never run: " << line << "\n";
    if (worker_rc == core::never_fits_exit_code)
        return fail("stopped: the jobs above can never run on this machine", 1);
    if (worker_rc == core::worker_fault_exit_code && !cannot_start.empty())
        return fail("stopped: " + cannot_start, 1);
    if (worker_rc != 0)
        return fail("the worker exited with status " + std::to_string(worker_rc), 1);
    return core::run_exit_status(*counts);
}

}  // namespace torcrun::apps
