// `torcrun submit SPEC [--url URL] [--no-initialize] [--no-schedule]`: creates a workflow from a
// Torc workflow spec with the calls of Torc's `workflows create` (api::submission), then
// initializes it, and prints the workflow id alone on stdout so scripts can capture it. A spec
// problem exits 2 and creates nothing; a failure once the workflow exists deletes it (DELETE
// cascades) and exits 1. A spec whose jobs name schedulers but which has no schedule_nodes
// action first gets one on_jobs_ready action per scheduler (core::derive_stage_actions). Then, as
// Torc's `workflows submit`, each schedule_nodes action whose trigger has fired (the pending
// list after initialize: on_workflow_start, on_jobs_ready over jobs ready at once) is carried
// out (core::plan_allocations): the scripts are written into
// --output-dir, sbatch'ed, and each Slurm job becomes a scheduled compute node, `pending`, whose
// scheduler_id is the Slurm job id. A failed sbatch keeps the workflow (and the allocations
// already made), prints sbatch's text and how to schedule again, and exits 1.
// With --auto-schedule no action is derived: submit then watches the workflow as `torcrun watch
// WF --auto-schedule` does (workflow_watch.hpp) and exits as it does.
#include "torcrun/cli/commands.hpp"

#include "cli/positional_command.hpp"
#include "sbatch_files.hpp"
#include "server_probe.hpp"
#include "spec_submission.hpp"
#include "start_file_check.hpp"
#include "torcrun/cli/allocation_plan.hpp"
#include "torcrun/cli/stage_actions.hpp"
#include "torc_client.hpp"
#include "workflow_watch.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <filesystem>

#include <algorithm>
#include <iostream>
#include <optional>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

constexpr char const* usage =
    "usage: torcrun submit SPEC [options]\n\n"
    "Creates the workflow a Torc spec (JSON, JSON5, YAML or KDL) describes on a\n"
    "Torc-compatible server, initializes it, and prints its id. Exit 2: the spec or the options\n"
    "are wrong, or a required input file (read by a job, written by none) is missing (nothing\n"
    "is created; --ignore-missing-data goes on); exit 1: the server refused (the half-made\n"
    "workflow is deleted again).\n"
    "Then each schedule_nodes action whose trigger has fired (on_workflow_start, on_jobs_ready\n"
    "over jobs ready at start) is carried out: its sbatch scripts are written into --output-dir\n"
    "and submitted (exit 1 if sbatch fails; the workflow stays). A spec whose jobs name\n"
    "slurm_schedulers but which has no schedule_nodes action gets one on_jobs_ready action per\n"
    "scheduler over the jobs naming it, as Torc's `slurm generate` makes. --max-parallel-jobs N\n"
    "caps the jobs each of these allocations' workers holds at once, as Torc's option.\n"
    "--auto-schedule: no action is derived; submit then stays, as `torcrun watch WF\n"
    "--auto-schedule`, submitting the allocations the ready jobs need until the workflow is\n"
    "complete (exit 0: every job completed; 1: some did not).\n";

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun submit: " << message << "\n";
    return status;
}

// Each line of a several-line message with the command's prefix.
int fail_lines(std::string const& message, int status)
{
    for (std::size_t start = 0; start <= message.size();) {
        auto const end = std::min(message.find('\n', start), message.size());
        fail(message.substr(start, end - start), status);
        start = end + 1;
    }
    return status;
}

std::optional<std::string> flag(po::variables_map const& vm, char const* name)
{
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<std::string>();
}

// Where the scripts' workers come from, and the configuration they get (its termination times
// set the USR1 warning).
struct schedule_context {
    core::allocation_settings settings;
    core::worker_config config;
};

core::result<schedule_context> schedule_settings(po::variables_map const& vm,
                                                 io::client_settings const& client)
{
    schedule_context c;
    c.settings.url = client.server.text();
    if (client.tls_ca_file) c.settings.tls_ca_cert = absolute_path(*client.tls_ca_file);
    auto config = load_worker_config(flag(vm, "config"), c.settings.url, "--url");
    if (!config) return config.error();
    c.config = std::move(*config);
    c.settings.output_dir = absolute_path(flag(vm, "output-dir").value_or(c.config.output_dir));
    if (auto given = flag(vm, "torcrun")) {
        c.settings.torcrun_path = *given;
    } else {
        auto self = this_torcrun_path("--torcrun");
        if (!self) return self.error();
        c.settings.torcrun_path = *self;
    }
    if (auto path = flag(vm, "config")) c.settings.config_path = absolute_path(*path);
    return c;
}

// sbatch, then the record; a record the server refuses cancels its Slurm job again, so no
// allocation runs unrecorded.
core::result<std::int64_t> schedule_one(torc_client& client, core::planned_allocation const& a,
                                        std::int64_t wf, std::int64_t scheduler_config_id)
{
    auto job = run_sbatch(a.script_path);
    if (!job) return job.error();
    boost::json::object body{{"workflow_id", wf},
                             {"scheduler_id", *job},
                             {"scheduler_config_id", scheduler_config_id},
                             {"scheduler_type", "slurm"},
                             {"status", "pending"}};
    auto made = client.call("POST", "/scheduled_compute_nodes", boost::json::serialize(body));
    if (made) return *job;
    auto message = "POST /scheduled_compute_nodes (Slurm job " + std::to_string(*job) +
                   "): " + made.error().message;
    auto canceled = run_scancel(*job);
    message += canceled ? "\ncanceled Slurm job " + std::to_string(*job)
                        : "\ncould not cancel Slurm job " + std::to_string(*job) + ": " +
                              canceled.error().message;
    return core::error{message};
}

// The ids of a listing of actions, in id order.
core::result<std::vector<std::int64_t>> listed_action_ids(torc_client& client,
                                                          std::string const& path)
{
    auto listed = client.call("GET", path);
    if (!listed) return listed.error();
    std::vector<std::int64_t> ids;
    if (auto const* items = listed->if_array()) {
        for (auto const& a : *items) {
            auto const* id = a.is_object() ? a.get_object().if_contains("id") : nullptr;
            if (id && id->is_int64()) ids.push_back(id->get_int64());
        }
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

// The server's action ids in creation order, which is the spec's.
core::result<std::vector<std::int64_t>> action_ids(torc_client& client, std::int64_t wf)
{
    return listed_action_ids(client, "/workflows/" + std::to_string(wf) + "/actions");
}

// The spec's schedule_nodes actions whose trigger has fired at initialize, as indices: the
// server's pending list for the triggers a submit can see fired. A job-gated action of another
// scheduler_type is left to whoever can run it, as Torc's runners leave it.
core::result<std::vector<std::size_t>> fired_actions(torc_client& client, std::int64_t wf,
                                                     std::vector<std::int64_t> const& ids,
                                                     core::spec::creation_plan const& plan)
{
    auto pending = listed_action_ids(
        client, "/workflows/" + std::to_string(wf) +
                    "/actions/pending?trigger_type=on_workflow_start&trigger_type=on_jobs_ready"
                    "&trigger_type=on_jobs_complete");
    if (!pending) return pending.error();
    std::vector<std::size_t> out;
    for (auto const i : core::schedulable_actions(plan)) {
        if (std::binary_search(pending->begin(), pending->end(), ids[i])) out.push_back(i);
    }
    return out;
}

// Claims the action before its allocations are submitted, as every worker would before running
// it: the action is then executed, and no runner submits it again. False: another claimed it.
core::result<bool> claim_action(torc_client& client, std::int64_t wf, std::int64_t action)
{
    auto const path = "/workflows/" + std::to_string(wf) + "/actions/" + std::to_string(action) +
                      "/claim";
    auto claimed = client.exchange("POST", path, "{}");
    if (claimed) return true;
    if (claimed.error().status == 409) return false;
    return core::error{claimed.error().message};
}

// Without initialize no job-gated trigger has fired: the on_workflow_start actions, as before.
int schedule_allocations(torc_client& client, schedule_context context, std::int64_t wf,
                         api::name_ids const& scheduler_ids, core::spec::creation_plan const& plan,
                         bool initialized)
{
    context.settings.workflow_id = wf;
    context.settings.scheduler_ids = scheduler_ids;
    if (plan.actions.empty()) return 0;
    auto const actions = action_ids(client, wf);
    if (!actions || actions->size() != plan.actions.size()) {
        return fail("GET /workflows/" + std::to_string(wf) + "/actions: " +
                        (actions ? "the server lists " + std::to_string(actions->size()) +
                                       " actions, the spec has " +
                                       std::to_string(plan.actions.size())
                                 : actions.error().message),
                    1);
    }
    auto fired = initialized ? fired_actions(client, wf, *actions, plan)
                             : core::result<std::vector<std::size_t>>(
                                   core::workflow_start_actions(plan));
    if (!fired) {
        return fail("GET /workflows/" + std::to_string(wf) + "/actions/pending: " +
                        fired.error().message,
                    1);
    }
    auto allocations = core::plan_allocations(plan, *fired, context.settings, context.config);
    if (!allocations) return fail(allocations.error().message, 1);
    if (allocations->empty()) return 0;
    std::error_code ec;
    std::filesystem::create_directories(context.settings.output_dir, ec);
    if (ec) {
        return fail("--output-dir: \"" + context.settings.output_dir + "\": " + ec.message(), 1);
    }
    if (auto warning = core::unreachable_url_warning(context.settings.url.value_or(""))) {
        std::cerr << "torcrun submit: warning: " << *warning << "\n";
    }
    std::optional<std::size_t> skipped;
    for (auto const& a : *allocations) {
        if (skipped == a.action) continue;
        if (a.number == 1) {
            auto claimed = claim_action(client, wf, (*actions)[a.action]);
            if (!claimed) return fail(a.what + ": claim: " + claimed.error().message, 1);
            if (!*claimed) {
                std::cerr << "torcrun submit: " << a.what << ": already claimed; not scheduled\n";
                skipped = a.action;
                continue;
            }
        }
        auto const id = scheduler_ids.find(a.scheduler);
        auto written = write_script(a.script_path, a.script_text, "--output-dir");
        auto job = id == scheduler_ids.end()
                       ? core::result<std::int64_t>(
                             core::error{"the server gave the scheduler no id"})
                   : !written ? core::result<std::int64_t>(written.error())
                              : schedule_one(client, a, wf, id->second);
        if (!job) {
            fail_lines(a.what + ", allocation " + std::to_string(a.number) + ": " +
                           job.error().message,
                       1);
            return fail("workflow " + std::to_string(wf) +
                            " is kept; schedule its allocations again with `torcrun slurm-script " +
                            std::to_string(wf) + " --time T [options] --submit`, or delete it "
                            "with DELETE /workflows/" + std::to_string(wf),
                        1);
        }
        std::cerr << "torcrun submit: " << a.what << ": Slurm job " << *job << " (" << a.script_path
                  << ")\n";
    }
    return 0;
}

// Torc's `submit --max-parallel-jobs N` (v0.25.1, WorkflowManager::start): N replaces each
// schedule_nodes action's max_parallel_jobs for the allocations this submit makes; the actions
// the server keeps are the spec's.
void override_max_parallel_jobs(core::spec::creation_plan& plan, std::optional<std::int32_t> n)
{
    if (!n) return;
    for (auto& action : plan.actions)
        if (action.action_type == "schedule_nodes") action.max_parallel_jobs = n;
}

}  // namespace

int cmd_submit(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "no-initialize", "create the workflow but do not call initialize_jobs")(
        "skip-checks", "skip the multi-node scheduler check, as Torc's --skip-checks")(
        "no-resource-monitoring", "no default resource monitor, as Torc's option of that name")(
        ignore_missing_data_flags,
        "initialize even when a required input file (read by a job, written by none) is "
        "missing")(
        "no-schedule", "do not carry out the schedule_nodes actions, nor derive any")(
        "max-parallel-jobs", po::value<std::int32_t>()->value_name("N"),
        "each worker of the allocations this submit makes holds at most N jobs at once "
        "(replaces the actions' max_parallel_jobs, as Torc's option)")(
        "output-dir", po::value<std::string>()->value_name("DIR"),
        "the sbatch scripts, Slurm and worker output (default: the config's output_dir)")(
        "config", po::value<std::string>()->value_name("FILE"),
        "worker configuration file, passed on to the allocations' workers")(
        "torcrun", po::value<std::string>()->value_name("PATH"),
        "absolute path of torcrun on the nodes (default: this binary)");
    options.add(client_options());
    options.add(watch_options(true));
    auto parsed = parse_positional_command(
        args, options,
        {"submit", "spec", "SPEC", usage, "a spec file is required (torcrun submit SPEC)"});
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    auto const& flags = std::get<po::variables_map>(parsed);
    auto settings = client_settings_from(flags);
    if (!settings) return fail(settings.error().message, 2);
    spec_options const spec{!flags.count("no-resource-monitoring"), flags.count("skip-checks") > 0};
    auto plan = plan_spec_file(flags["spec"].as<std::string>(), spec);
    if (!plan) return fail(plan.error().message, 2);
    for (auto const& warning : plan->warnings)
        std::cerr << "torcrun submit: warning: " << warning << "\n";
    bool const initialize = !flags.count("no-initialize");
    if (initialize &&
        !files_allow_start(*plan, flags.count(ignore_missing_data_option) > 0, false, "submit"))
        return 2;
    bool const scheduling = !flags.count("no-schedule");
    std::optional<std::int32_t> max_parallel_jobs;
    if (flags.count("max-parallel-jobs")) {
        max_parallel_jobs = flags["max-parallel-jobs"].as<std::int32_t>();
        if (*max_parallel_jobs < 1)
            return fail("--max-parallel-jobs: " + std::to_string(*max_parallel_jobs) +
                            " is not a count of jobs (at least 1)",
                        2);
    }
    bool const auto_schedule = flags.count("auto-schedule") > 0;
    std::optional<watch_settings> watching;
    if (auto_schedule) {
        if (!scheduling) return fail("--auto-schedule and --no-schedule exclude each other", 2);
        if (!initialize) return fail("--auto-schedule needs the workflow initialized", 2);
        auto made = watch_settings_from(flags, *settings, "torcrun submit");
        if (!made) return fail(made.error().message, 2);
        watching = std::move(*made);
    }
    std::optional<schedule_context> context;
    if (scheduling) {  // every script checked before anything is created
        auto made = schedule_settings(flags, *settings);
        if (!made) return fail(made.error().message, 2);
        if (!auto_schedule) {
            for (auto const& d : core::derive_stage_actions(*plan))
                std::cerr << "torcrun submit: " << d.description << "\n";
        }
        auto checked_plan = *plan;
        override_max_parallel_jobs(checked_plan, max_parallel_jobs);
        auto const checked_actions = core::schedulable_actions(checked_plan);
        if (auto checked = core::plan_allocations(checked_plan, checked_actions, made->settings,
                                                  made->config);
            !checked)
            return fail(checked.error().message, 2);
        context = std::move(*made);
    }
    torc_client client(std::move(*settings));
    auto const server = read_server_dialect(client);
    if (!server) return fail(server.error().message, 1);
    // The plan the allocations are made from; copied only when there are any to make (a copy
    // of a 100,000-job plan costs the client as much as encoding its batches).
    std::optional<core::spec::creation_plan> planned;
    if (context) {
        planned = *plan;
        override_max_parallel_jobs(*planned, max_parallel_jobs);
    }
    api::name_ids scheduler_ids;
    auto wf = submit_plan(client, std::move(*plan), initialize, &scheduler_ids, *server);
    if (!wf) return fail_lines(wf.error().message, 1);
    std::cout << *wf << "\n";
    std::cout.flush();
    if (!context) return 0;
    auto const scheduled = schedule_allocations(client, std::move(*context), *wf, scheduler_ids,
                                                *planned, initialize);
    if (scheduled != 0 || !watching) return scheduled;
    watching->allocation.workflow_id = *wf;
    return watch_workflow(client, *wf, std::move(*watching));
}

}  // namespace torcrun::apps
