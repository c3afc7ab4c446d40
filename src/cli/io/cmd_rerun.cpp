// `torcrun rerun WF [--failed] [--job NAME ...] [--url URL | --output-dir D]`: a workflow's jobs
// run again, as Torc's `torc workflows reset-status [--failed-only] --reinitialize` (the calls in
// workflow_reset.hpp): every job, the failed, canceled and terminated ones (--failed), or the
// named ones (--job); with each, the jobs that depend on them. The workflow's run id goes up by
// one, so each attempt of the rerun logs to a directory of its own (`r<run>_a<attempt>`).
// Against a server (--url, $TORC_API_URL) the jobs become ready for a `torcrun worker` started
// now; workers that joined the previous run cannot take part (they keep their run id), so a
// workflow with active compute nodes is refused. Against a finished `torcrun run` (--output-dir
// D) it runs them here as that run did: the embedded server on D/torcrun.db, a worker in D, the
// same progress and summary. Exit 0: reset (and with --output-dir, every job completed); 1: the
// server refused or a job did not complete; 2: bad options.
#include "torcrun/cli/commands.hpp"

#include "cli/positional_command.hpp"
#include "config_options.hpp"
#include "run_directory.hpp"
#include "run_session.hpp"
#include "torc_client.hpp"
#include "workflow_reset.hpp"

#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>
#include <optional>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

constexpr char const* usage =
    "usage: torcrun rerun WF [--failed] [--job NAME ...] [--url URL | --output-dir D]\n\n"
    "Runs a workflow's jobs again as a new run (every job; --failed: the failed, canceled and\n"
    "terminated ones; --job: the named ones), with the jobs that depend on them. Each attempt\n"
    "logs to new job_stdio/job_wf<W>_j<J>_r<run>_a<attempt> files; earlier logs stay. Against a\n"
    "server the jobs wait for a torcrun worker; with --output-dir D (a finished torcrun run)\n"
    "they run here.\n";

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun rerun: " << message << "\n";
    return status;
}

std::string listed(std::vector<std::string> const& names)
{
    constexpr std::size_t shown = 10;
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > shown) out += ", ...";
    return out;
}

void say_reset(std::int64_t wf, reset_outcome const& done)
{
    std::cerr << "torcrun rerun: workflow " << wf << " run " << done.run_id << ": "
              << done.to_run.size() << (done.to_run.size() == 1 ? " job" : " jobs") << " to run"
              << (done.to_run.empty() ? "" : " (" + listed(done.to_run) + ")") << std::endl;
}

// The named jobs' ids into `request`, before anything is reset; the exit status when a name is
// wrong (2) or the server failed (1).
std::optional<int> resolve_names(torc_client& client, std::int64_t wf,
                                 std::vector<std::string> const& names, reset_request& request)
{
    if (request.jobs != reset_request::which::named) return std::nullopt;
    auto named = ids_of_names(client, wf, names);
    if (!named.error.empty()) return fail(named.error, named.bad_names ? 2 : 1);
    request.job_ids = std::move(named.ids);
    return std::nullopt;
}

// Against a server: reset, and say what a worker will run.
int rerun_on_server(po::variables_map const& flags, std::int64_t wf,
                    std::vector<std::string> const& names, reset_request request)
{
    auto settings = client_settings_from(flags);
    if (!settings) return fail(settings.error().message, 2);
    torc_client client(std::move(*settings));
    if (auto status = resolve_names(client, wf, names, request)) return *status;
    auto done = reset_for_rerun(client, wf, request);
    if (!done) return fail(done.error().message, 1);
    say_reset(wf, *done);
    if (!done->to_run.empty())
        std::cerr << "torcrun rerun: start a worker to run them: torcrun worker --workflow " << wf
                  << std::endl;
    return 0;
}

// Against a finished `torcrun run` in `dir`: reset, then run them here.
int rerun_in_directory(po::variables_map const& flags, std::int64_t wf, std::string const& dir,
                       std::vector<std::string> const& names, reset_request request)
{
    if (flags.count("url")) return fail("--url and --output-dir: give one", 2);
    if (!std::filesystem::exists(std::filesystem::path(dir) / run_database_name))
        return fail("--output-dir " + dir + ": no torcrun run here (" + dir + "/" +
                        run_database_name + " does not exist)", 2);
    if (live_run_server(dir))
        return fail("--output-dir " + dir + ": its torcrun run still serves it (" + dir +
                        "/url); wait for it to end", 1);
    auto config = load_sourced_worker_config(flags);
    if (!config) return fail(config.error().message, 2);
    run_settings settings{std::move(config->config), std::move(config->sources)};
    if (auto ok = read_display_options(flags, settings); !ok) return fail(ok.error().message, 2);
    auto session = open_session(settings);
    if (!session) return fail(session.error().message, 1);
    if (auto status = resolve_names(*session->client, wf, names, request)) return *status;
    request.release_stale_nodes = true;  // no worker can hold this database's jobs now
    auto done = reset_for_rerun(*session->client, wf, request);
    if (!done) return fail(done.error().message, 1);
    session->workflow_id = wf;
    say_reset(wf, *done);
    std::cerr << "torcrun rerun: output in " << session->output_dir << ", served at "
              << session->server->url() << std::endl;
    return run_to_end(settings, *session, "rerun");
}

}  // namespace

int cmd_rerun(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "failed", "only the failed, canceled and terminated jobs (and what depends on them)")(
        "job", po::value<std::vector<std::string>>()->composing()->value_name("NAME"),
        "only this job (and what depends on it); repeatable");
    options.add(client_options());
    options.add(output_dir_option());
    options.add(run_display_options());
    auto parsed = parse_positional_command(
        args, options,
        {"rerun", "workflow", "WF", usage, "a workflow id is required (torcrun rerun WF)"});
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    auto const& flags = std::get<po::variables_map>(parsed);
    auto wf = parse_workflow_id(flags["workflow"].as<std::string>());
    if (!wf) return fail(wf.error().message, 2);
    reset_request request;
    std::vector<std::string> names;
    if (flags.count("job")) {
        if (flags.count("failed")) return fail("--failed and --job: give one", 2);
        request.jobs = reset_request::which::named;
        names = flags["job"].as<std::vector<std::string>>();
    } else if (flags.count("failed")) {
        request.jobs = reset_request::which::failed;
    }
    if (flags.count("output-dir"))
        return rerun_in_directory(flags, *wf, flags["output-dir"].as<std::string>(), names,
                                  request);
    return rerun_on_server(flags, *wf, names, request);
}

}  // namespace torcrun::apps
