// `torcrun logs WF JOB [--stderr] [--follow] [--attempt N] [--run R] [--url URL | --output-dir D]
// [--worker-output-dir D]`: the stdout (or stderr) of one attempt of a job, named by id or name.
// The files are where the worker wrote them, <worker output dir>/job_stdio/job_wf<W>_j<J>_r<R>_a<A>
// .o, .e or .log (core::attempt_log_paths; an older worker's attempt directory's stdout, stderr
// or output), under the worker output directory worker_output_dirs.hpp finds for the attempt. --follow prints what the job
// writes until it is no longer pending or running, polling the file and the job's status; on a
// job that has not started yet it first says so and waits for a worker to start it.
#include "torcrun/cli/commands.hpp"

#include "json_fields.hpp"
#include "torc_client.hpp"
#include "worker_output_dirs.hpp"
#include "torcrun/cli/log_selection.hpp"
#include "torcrun/worker/launch_plan.hpp"

#include <boost/program_options.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <thread>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

// How often --follow looks at the file and asks for the job's status.
constexpr auto follow_poll = std::chrono::milliseconds(250);

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun logs: " << message << "\n";
    return status;
}

bool in_flight(std::string_view status) { return status == "pending" || status == "running"; }

// Statuses of a job no worker holds yet that will run: --follow waits for them to start.
bool not_started(std::string_view status)
{
    return status == "uninitialized" || status == "blocked" || status == "ready";
}

// The job JOB names, by id or name.
core::result<core::named_job> resolve_job(torc_client& client, std::int64_t wf,
                                          std::string const& text)
{
    auto jobs = client.workflow_jobs(wf);
    if (!jobs) return jobs.error();
    std::vector<core::named_job> named;
    for (auto const& j : *jobs) named.push_back({integer_of(j, "id"), text_of(field(j, "name"))});
    return core::find_job(named, text, wf);
}

struct chosen_log {
    core::named_job job;
    std::string path;
    std::string root;  // the output directory of the worker that ran it, as found
};

// Whether anything of the attempt is under its output directory: its stdio files or its
// directory.
bool attempt_present(core::attempt_paths const& paths)
{
    std::error_code ec;
    return std::filesystem::exists(paths.stdout_file, ec) ||
           std::filesystem::exists(paths.stderr_file, ec) ||
           std::filesystem::is_directory(paths.dir, ec);
}

// The file that holds the stream: the flat file of the attempt's stdio mode (.o, .e, or the
// combined .log), else, from an older worker, its directory's stdout, stderr or output.
std::string stream_file(std::string const& root, core::torc_job_identity const& ids,
                        bool want_stderr)
{
    auto const paths = core::attempt_log_paths(root, ids);
    auto const combined = core::attempt_log_paths(root, ids, core::stdio_mode::combined);
    auto const own = want_stderr ? paths.stderr_file : paths.stdout_file;
    std::error_code ec;
    for (auto const& candidate :
         {own, combined.stdout_file, paths.dir + (want_stderr ? "/stderr" : "/stdout"),
          paths.dir + "/output"})
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    return own;
}

// The output directory that holds the attempt's files: the one its node recorded (or the
// one named), else, for an attempt no result names (in flight), the first candidate where its
// files exist, else the first candidate.
std::string attempt_root(worker_output_dirs const& dirs, std::optional<std::int64_t> node,
                         core::torc_job_identity const& ids)
{
    if (node)
        if (auto known = dirs.known(*node)) return *known;
    auto const candidates = dirs.candidates();
    for (auto const& root : candidates)
        if (attempt_present(core::attempt_log_paths(root, ids))) return root;
    return candidates.front();
}

// The job, its attempt and the file of the stream asked for.
core::result<chosen_log> choose_log(torc_client& client, std::int64_t wf, std::string const& text,
                                    std::optional<std::int64_t> attempt,
                                    std::optional<std::int64_t> run, bool want_stderr,
                                    worker_output_dirs dirs)
{
    auto const w = std::to_string(wf);
    auto job = resolve_job(client, wf, text);
    if (!job) return job.error();
    auto record = client.call("GET", "/jobs/" + std::to_string(job->id));
    if (!record) return record.error();
    auto nodes = client.list_all("/compute_nodes?workflow_id=" + w);
    if (!nodes) return nodes.error();
    dirs.add_nodes(*nodes);
    // Every attempt's result, not only the current one of each job, with the node it ran on.
    auto results = client.list_all("/results?workflow_id=" + w + "&all_runs=true");
    if (!results) return results.error();
    std::vector<core::attempt_key> attempts;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> node_of;
    for (auto const& r : *results) {
        if (integer_of(r, "job_id") != job->id) continue;
        core::attempt_key const key{integer_of(r, "run_id"), integer_of(r, "attempt_id", 1)};
        attempts.push_back(key);
        node_of[{key.run_id, key.attempt_id}] = integer_of(r, "compute_node_id");
    }
    auto const ids_of = [&](core::attempt_key const& a) {
        return core::torc_job_identity{wf, job->id, job->name, a.run_id, a.attempt_id,
                                     std::nullopt};
    };
    auto const status = text_of(field(*record, "status"));
    // The attempt in flight has no result yet; nor has one canceled while it ran until its
    // worker reports it (or when the worker is gone), but its logs are on disk.
    if (in_flight(status) || status == "canceled" || status == "terminated") {
        auto current_run = client.run_id(wf);
        if (!current_run) return current_run.error();
        core::attempt_key const current{*current_run, integer_of(*record, "attempt_id", 1)};
        auto const paths = core::attempt_log_paths(
            attempt_root(dirs, std::nullopt, ids_of(current)), ids_of(current));
        if (in_flight(status) || attempt_present(paths)) attempts.push_back(current);
    }
    auto const label = "\"" + job->name + "\" (job " + std::to_string(job->id) + ")";
    auto picked = core::pick_attempt(std::move(attempts), attempt, label, status, run);
    if (!picked) return picked.error();
    std::optional<std::int64_t> node;
    if (auto it = node_of.find({picked->run_id, picked->attempt_id}); it != node_of.end())
        node = it->second;
    auto root = attempt_root(dirs, node, ids_of(*picked));
    auto path = stream_file(root, ids_of(*picked), want_stderr);
    return chosen_log{std::move(*job), std::move(path), std::move(root)};
}

// Copies the bytes of `in` from where it stands to stdout; false on a read error.
bool copy_new(std::ifstream& in)
{
    char buffer[65536];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        std::cout.write(buffer, in.gcount());
        if (in.eof()) break;
    }
    std::cout.flush();
    bool const ok = !in.bad();
    in.clear();  // at the end: later bytes are read by the next call
    return ok;
}

core::result<std::string> job_status(torc_client& client, std::int64_t job)
{
    auto record = client.call("GET", "/jobs/" + std::to_string(job));
    if (!record) return record.error();
    return core::result<std::string>(boost::system::in_place_value,
                                     text_of(field(*record, "status")));
}

// --follow on a job that has not started: one line saying so, then its status polled until a
// worker holds it (or it ended some other way, canceled with its blocker, say).
core::result<void> wait_for_start(torc_client& client, std::int64_t wf, std::string const& text)
{
    auto job = resolve_job(client, wf, text);
    if (!job) return job.error();
    bool said = false;
    for (;;) {
        auto status = job_status(client, job->id);
        if (!status) return status.error();
        if (!not_started(*status)) return {};
        if (!said) {
            std::cerr << "torcrun logs: \"" << job->name << "\" (job " << job->id
                      << ") has not started (status " << *status
                      << "); waiting for a worker to start it" << std::endl;
            said = true;
        }
        std::this_thread::sleep_for(follow_poll);
    }
}

int follow(torc_client& client, chosen_log const& log, std::ifstream& in)
{
    for (;;) {
        if (!copy_new(in)) return fail(log.path + ": cannot read", 1);
        auto status = job_status(client, log.job.id);
        if (!status) return fail(status.error().message, 1);
        if (!in_flight(*status)) {
            // What it wrote before it ended.
            return copy_new(in) ? 0 : fail(log.path + ": cannot read", 1);
        }
        std::this_thread::sleep_for(follow_poll);
    }
}

}  // namespace

int cmd_logs(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")("stderr", "the job's stderr, not stdout")(
        "follow,f", "keep printing what the job writes until it finishes")(
        "attempt", po::value<std::int64_t>()->value_name("N"),
        "attempt N of the latest run that has one (default: the latest attempt)")(
        "run", po::value<std::int64_t>()->value_name("R"),
        "an attempt of run R (a rerun is a new run; default: the latest run)");
    options.add(worker_output_dir_option());
    auto command_line = parse_workflow_command(args, options, "logs", "job");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const& flags = command.flags;
    std::optional<std::int64_t> attempt;
    if (flags.count("attempt")) {
        attempt = flags["attempt"].as<std::int64_t>();
        if (*attempt < 1)
            return fail("--attempt: " + std::to_string(*attempt) + " is not an attempt (1 or more)",
                        2);
    }
    std::optional<std::int64_t> run;
    if (flags.count("run")) {
        run = flags["run"].as<std::int64_t>();
        if (*run < 0) return fail("--run: " + std::to_string(*run) + " is not a run (0 or more)", 2);
    }
    worker_output_dirs dirs(named_worker_output_dir(flags));
    torc_client client(std::move(command.settings));
    if (flags.count("follow")) {
        auto const& job = flags["job"].as<std::string>();
        auto started = wait_for_start(client, command.workflow_id, job);
        if (!started) return fail(started.error().message, 1);
    }
    auto log = choose_log(client, command.workflow_id, flags["job"].as<std::string>(), attempt, run,
                          flags.count("stderr") > 0, std::move(dirs));
    if (!log) return fail(log.error().message, 1);
    std::ifstream in(log->path, std::ios::binary);
    // A job just claimed has not opened its files yet.
    while (!in && flags.count("follow")) {
        auto status = job_status(client, log->job.id);
        if (!status) return fail(status.error().message, 1);
        if (!in_flight(*status)) break;
        std::this_thread::sleep_for(follow_poll);
        in.open(log->path, std::ios::binary);
    }
    if (!in)
        return fail(log->path + ": no such file (is " + log->root +
                        " the output directory of the worker that ran it? give "
                        "--worker-output-dir DIR)",
                    1);
    if (flags.count("follow")) return follow(client, *log, in);
    return copy_new(in) ? 0 : fail(log->path + ": cannot read", 1);
}

}  // namespace torcrun::apps
