// `torcrun run SPEC [options]`: the one-command way to run a workflow. An embedded server
// (SQLite at <output>/torcrun.db, 127.0.0.1, an ephemeral port or --port, its URL in
// <output>/url while it serves) on its own thread, the spec submitted as `torcrun submit` does, a
// worker over this machine's resources in the main thread, live progress on stderr and a summary
// on stdout (run_session.hpp). An output directory that already holds a workflow's database is
// never given a second workflow: without --resume that is exit 2; with --resume the stored
// workflow must be the spec's (else exit 2 naming the difference), and its jobs that did not
// complete run again as a new run (workflow_reset.hpp), each attempt in a directory of its own.
// Exit 0 when every job completed, 1 otherwise, 2 for bad input.
#include "torcrun/cli/commands.hpp"

#include "cli/positional_command.hpp"
#include "config_options.hpp"
#include "json_fields.hpp"
#include "run_directory.hpp"
#include "run_session.hpp"
#include "spec_submission.hpp"
#include "start_file_check.hpp"
#include "workflow_reset.hpp"

#include "torcrun/cli/spec_match.hpp"

#include <boost/program_options.hpp>

#include <charconv>
#include <filesystem>
#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr char const* usage =
    "usage: torcrun run SPEC [options]\n\n"
    "Runs a Torc workflow spec (JSON, JSON5, YAML or KDL) on this machine: starts a server with\n"
    "its database in the output directory, submits the spec, runs a worker until the workflow\n"
    "is done, shows progress on stderr and a summary on stdout. With --resume, an output\n"
    "directory that holds this spec's workflow runs what did not complete, as a new run. Exit\n"
    "0: every job completed; 1: a job did not complete or the run failed; 2: the spec or the\n"
    "options are wrong, or a required input file (read by a job, written by none) is missing\n"
    "(nothing is started; --ignore-missing-data goes on).\n";

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun run: " << message << "\n";
    return status;
}

struct run_options {
    std::string spec;
    run_settings settings;
    spec_options spec_flags;
    bool resume = false;
    bool ignore_missing_data = false;
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
        "resume", "the output directory holds this spec's workflow: run what did not complete")(
        "skip-checks", "skip the multi-node scheduler check, as Torc's --skip-checks")(
        "no-resource-monitoring", "no default resource monitor, as Torc's option of that name")(
        ignore_missing_data_flags,
        "start even when a required input file (read by a job, written by none) is missing")(
        "port", po::value<std::string>()->value_name("P"),
        "the embedded server's port on 127.0.0.1 (default: any free port); its URL is in "
        "<output-dir>/url while the run lasts");
    options.add(run_display_options());
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
    run_options out{flags["spec"].as<std::string>(),
                    {std::move(config->config), std::move(config->sources)},
                    {!flags.count("no-resource-monitoring"), flags.count("skip-checks") > 0},
                    flags.count("resume") > 0, flags.count(ignore_missing_data_option) > 0};
    if (auto ok = read_display_options(flags, out.settings); !ok)
        return fail(ok.error().message, 2);
    if (flags.count("port")) {
        auto const& text = flags["port"].as<std::string>();
        auto port = parse_port(text);
        if (!port) return fail("--port: \"" + text + "\" is not a port (0 to 65535)", 2);
        out.settings.port = *port;
    }
    return out;
}

// The one workflow of a resumed run's database, checked against the spec's plan.
core::result<std::int64_t> stored_workflow(torc_client& client,
                                           core::spec::creation_plan const& plan,
                                           std::string const& where)
{
    auto workflows = client.list_all("/workflows");
    if (!workflows) return workflows.error();
    if (workflows->size() != 1)
        return core::error{where + " holds " + std::to_string(workflows->size()) +
                           " workflows; --resume needs the one of a torcrun run"};
    auto const& wf = workflows->front();
    auto const id = integer_of(wf, "id");
    auto jobs = client.workflow_jobs(id);
    if (!jobs) return jobs.error();
    std::vector<core::stored_job> stored;
    for (auto const& j : *jobs)
        stored.push_back({text_of(field(j, "name")), text_of(field(j, "command"))});
    if (auto differs = core::spec_difference(plan, text_of(field(wf, "name")), stored, where))
        return core::error{"--resume: " + *differs};
    return id;
}

// The session with its workflow: submitted afresh, or resumed; the exit status when that fails.
std::variant<run_session, int> start_run(run_options& o)
{
    auto plan = plan_spec_file(o.spec, o.spec_flags);
    if (!plan) return fail(plan.error().message, 2);
    for (auto const& w : plan->warnings) std::cerr << "torcrun run: warning: " << w << "\n";
    auto const& dir = o.settings.config.output_dir;
    auto const db = (fs::path(dir) / run_database_name).string();
    bool const held = fs::exists(db);
    // A second workflow in the same database would leave two runs' logs in one directory.
    if (held && !o.resume)
        return fail(dir + " already holds a workflow (" + db + "); its logs stay as they are: "
                    "pass --resume to run what did not complete, give another --output-dir, or "
                    "remove " + dir + " to start over",
                    2);
    if (!held && o.resume)
        return fail("--resume: " + dir + " holds no workflow (" + db + " does not exist)", 2);
    if (held && live_run_server(dir))  // a run that still serves owns the database
        return fail("--resume: a torcrun run is serving " + dir + " now (" + dir +
                        "/url); wait for it to end",
                    2);
    if (!files_allow_start(*plan, o.ignore_missing_data, o.resume, "run")) return 2;
    auto session = open_session(o.settings);
    if (!session) return fail(session.error().message, 1);
    auto& run = *session;
    if (o.resume) {
        auto wf = stored_workflow(*run.client, *plan, db);
        if (!wf) return fail(wf.error().message, 2);
        run.workflow_id = *wf;
        reset_request request{reset_request::which::failed, {}, true};
        auto reset = reset_for_rerun(*run.client, *wf, request);
        if (!reset) return fail(reset.error().message, 1);
        std::cerr << "torcrun run: resuming workflow " << *wf << " as run " << reset->run_id
                  << ": " << reset->to_run.size() << " of its jobs to run (output in "
                  << run.output_dir << ") served at " << run.server->url() << std::endl;
        return std::move(*session);
    }
    // Its own server is a torcrun server: the records as `submit` creates them there, the jobs
    // through streamed creation.
    auto wf = submit_plan(*run.client, std::move(*plan), true, nullptr, run.dialect);
    if (!wf) return fail(wf.error().message, 1);
    run.workflow_id = *wf;
    // The URL ends its line, so that it is copied without punctuation.
    std::cerr << "torcrun run: workflow " << *wf << " (output in " << run.output_dir
              << ") served at " << run.server->url() << std::endl;
    return std::move(*session);
}

}  // namespace

int cmd_run(arguments const& args)
{
    auto parsed = parse(args);
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    auto& options = std::get<run_options>(parsed);
    auto started = start_run(options);
    if (auto const* status = std::get_if<int>(&started)) return *status;
    return run_to_end(options.settings, std::get<run_session>(started), "run");
}

}  // namespace torcrun::apps
