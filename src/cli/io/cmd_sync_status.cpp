// `torcrun workflows sync-status WF [--dry-run] [--json]`: Torc v0.25.1's `torc workflows
// sync-status` (orphan_detection.rs, cleanup_orphaned_jobs). Each Slurm allocation record of the
// workflow that is `active` or `pending` is looked up with squeue; for one that is gone
// (core::plan_status_sync), the jobs its compute nodes hold (nodes known by the record or the
// Slurm job their `scheduler` names) are failed with return code -128 (complete_job with a
// result of that code, as Torc), then the nodes are made inactive and the record `complete`.
// --dry-run changes nothing and says what it would do; --json (Torc's `-f json`) prints Torc's
// OrphanCleanupResult. Progress goes to stderr. Exit 0; 1 when the server or squeue failed.
#include "torcrun/cli/commands.hpp"

#include "json_fields.hpp"
#include "allocation_records.hpp"
#include "sbatch_files.hpp"
#include "torc_client.hpp"
#include "torcrun/cli/orphan_sync.hpp"
#include "torcrun/common/date_time.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun workflows sync-status: " << message << "\n";
    return status;
}

std::string query(std::int64_t wf) { return "?workflow_id=" + std::to_string(wf); }

// The workflow's Slurm allocations still pending or active, each with squeue's word on it.
core::result<std::vector<core::sync_allocation>> allocations(torc_client& client, std::int64_t wf)
{
    auto records = live_slurm_allocations(client, wf);
    if (!records) return records.error();
    std::vector<core::sync_allocation> out;
    for (auto const& r : *records) {
        auto const slurm_job = integer_of(r, "scheduler_id");
        auto state = run_squeue_state(slurm_job);
        if (!state) return state.error();
        out.push_back({integer_of(r, "id"), slurm_job, text_of(field(r, "status")), *state});
    }
    return out;
}

// The field `key` of a compute node's `scheduler`, an object or its JSON text; 0 when absent.
std::int64_t scheduler_field(json::value const& node, std::string_view key)
{
    auto const* scheduler = field(node, "scheduler");
    json::value parsed;
    if (scheduler && scheduler->is_string()) {
        boost::system::error_code ec;
        parsed = json::parse(scheduler->get_string(), ec);
        scheduler = ec ? nullptr : &parsed;
    }
    return scheduler ? integer_of(*scheduler, key) : 0;
}

// The workflow's compute nodes, when an active allocation is gone, and the jobs they hold.
core::result<void> nodes_and_jobs(torc_client& client, std::int64_t wf,
                                  std::vector<core::sync_allocation> const& allocations,
                                  std::vector<core::sync_node>& nodes,
                                  std::vector<core::sync_job>& jobs)
{
    bool const any_gone = std::ranges::any_of(allocations, [](auto const& a) {
        return a.status == "active" && !core::slurm_job_alive(a.squeue_state);
    });
    if (!any_gone) return {};
    auto listed = client.list_all("/compute_nodes" + query(wf));
    if (!listed) return listed.error();
    for (auto const& n : *listed) {
        auto const id = integer_of(n, "id");
        core::sync_node node{id, scheduler_field(n, "scheduler_id"),
                             scheduler_field(n, "slurm_job_id")};
        if (node.record_id == 0 && node.slurm_job_id == 0) continue;  // not of an allocation
        nodes.push_back(node);
        auto held = client.list_all("/jobs" + query(wf) + "&active_compute_node_id=" +
                                    std::to_string(id));
        if (!held) return held.error();
        for (auto const& j : *held)
            jobs.push_back({integer_of(j, "id"), text_of(field(j, "name")),
                            text_of(field(j, "status")), integer_of(j, "attempt_id", 1), id});
    }
    return {};
}

// Torc's order: the jobs first (a deactivated node's completions are refused), then the nodes,
// then the records.
core::result<void> apply(torc_client& client, std::int64_t wf, core::status_sync const& sync,
                         std::vector<core::sync_allocation> const& allocations)
{
    auto run = client.run_id(wf);
    if (!run) return run.error();
    auto const now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    for (auto const& f : sync.failed) {
        json::object result{{"job_id", f.job_id},
                            {"workflow_id", wf},
                            {"run_id", *run},
                            {"attempt_id", f.attempt_id},
                            {"compute_node_id", f.compute_node_id},
                            {"return_code", core::orphaned_job_return_code},
                            {"exec_time_minutes", 0.0},
                            {"completion_time", core::format_torc_time(now)},
                            {"status", "failed"}};
        auto const path = "/jobs/" + std::to_string(f.job_id) + "/complete_job/failed/" +
                          std::to_string(*run);
        if (auto done = client.call("POST", path, json::serialize(result)); !done)
            return core::error{"job " + std::to_string(f.job_id) + ": " + done.error().message};
        std::cerr << "job " << f.job_id << " (" << f.job_name << "): failed rc="
                  << core::orphaned_job_return_code << " (" << f.reason << ")\n";
    }
    for (auto const id : sync.inactive_nodes) {
        auto const path = "/compute_nodes/" + std::to_string(id);
        auto node = client.call("GET", path);
        if (!node) return node.error();
        if (!node->is_object()) return core::error{"GET " + path + ": not an object"};
        node->as_object()["is_active"] = false;
        if (auto put = client.call("PUT", path, json::serialize(*node)); !put) return put.error();
    }
    auto const complete = [&](std::int64_t record) -> core::result<void> {
        for (auto const& a : allocations) {
            if (a.record_id != record) continue;
            auto current = client.call("GET", "/scheduled_compute_nodes/" + std::to_string(record));
            if (!current) return current.error();
            if (auto put = set_allocation_status(client, wf, *current, "complete"); !put)
                return put.error();
        }
        return {};
    };
    for (auto const record : sync.completed_allocations)
        if (auto ok = complete(record); !ok) return ok;
    for (auto const record : sync.dead_pending)
        if (auto ok = complete(record); !ok) return ok;
    return {};
}

}  // namespace

int cmd_sync_status(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "dry-run", "say what would be done, change nothing")(
        "json", "print Torc's result object (slurm_jobs_failed, ...)");
    auto command_line = parse_workflow_command(args, options, "workflows sync-status");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const wf = command.workflow_id;
    bool const dry_run = command.flags.count("dry-run") > 0;
    torc_client client(std::move(command.settings));
    std::cerr << (dry_run ? "[DRY RUN] Checking for orphaned jobs in workflow "
                          : "Synchronizing job statuses for workflow ")
              << wf << "...\n";
    auto listed = allocations(client, wf);
    if (!listed) return fail(listed.error().message, 1);
    std::vector<core::sync_node> nodes;
    std::vector<core::sync_job> jobs;
    if (auto ok = nodes_and_jobs(client, wf, *listed, nodes, jobs); !ok)
        return fail(ok.error().message, 1);
    auto const sync = core::plan_status_sync(*listed, nodes, jobs);
    if (!dry_run) {
        if (auto ok = apply(client, wf, sync, *listed); !ok) return fail(ok.error().message, 1);
    }
    if (command.flags.count("json"))
        std::cout << core::render_sync_json(sync) << "\n";
    else
        std::cout << core::render_sync_text(sync, dry_run);
    return 0;
}

}  // namespace torcrun::apps
