// `torcrun cancel WF [--url URL | --output-dir D]`: Torc's `torc workflows cancel`. The server
// marks the workflow canceled and its pending and running jobs `canceled`, so no worker claims
// again; each worker holding jobs sees the flag at its next check, stops them (termination
// signal, then SIGKILL after the grace) and exits. Then every Slurm allocation of the workflow
// that is still pending or active is scancel'ed and its record marked `canceled`. Exit 0; 1 when
// the server refused, or an allocation could not be scancel'ed (each said on stderr).
#include "torcrun/cli/commands.hpp"

#include "json_fields.hpp"
#include "sbatch_files.hpp"
#include "torc_client.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun cancel: " << message << "\n";
    return status;
}

// How many of the workflow's jobs are pending or running: the ones the cancel stops.
core::result<std::int64_t> held_jobs(torc_client& client, std::int64_t wf)
{
    std::int64_t n = 0;
    for (char const* status : {"pending", "running"}) {
        auto const path = "/jobs?workflow_id=" + std::to_string(wf) + "&status=" + status +
                          "&offset=0&limit=1";
        auto page = client.call("GET", path);
        if (!page) return page.error();
        n += integer_of(*page, "total_count");
    }
    return n;
}

// scancel each Slurm allocation still pending or active, and mark its record canceled. Returns
// whether every one was.
core::result<bool> cancel_allocations(torc_client& client, std::int64_t wf)
{
    auto records = client.list_all("/scheduled_compute_nodes?workflow_id=" + std::to_string(wf));
    if (!records) return records.error();
    bool all = true;
    for (auto const& r : *records) {
        auto const status = text_of(field(r, "status"));
        auto const slurm_job = integer_of(r, "scheduler_id");
        if (text_of(field(r, "scheduler_type")) != "slurm" || slurm_job <= 0 ||
            (status != "pending" && status != "active"))
            continue;
        if (auto done = run_scancel(slurm_job); !done) {
            std::cerr << "torcrun cancel: " << done.error().message << "\n";
            all = false;
            continue;
        }
        json::object update{{"workflow_id", wf},
                            {"scheduler_id", slurm_job},
                            {"scheduler_config_id", integer_of(r, "scheduler_config_id")},
                            {"scheduler_type", "slurm"},
                            {"status", "canceled"}};
        auto const id = std::to_string(integer_of(r, "id"));
        auto put = client.call("PUT", "/scheduled_compute_nodes/" + id, json::serialize(update));
        if (!put) return put.error();
        std::cout << "Slurm job " << slurm_job << " scancel'ed (allocation record " << id
                  << ": canceled)\n";
    }
    return all;
}

}  // namespace

int cmd_cancel(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help");
    auto command_line = parse_workflow_command(args, options, "cancel");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const wf = command.workflow_id;
    torc_client client(std::move(command.settings));
    auto held = held_jobs(client, wf);
    if (!held) return fail(held.error().message, 1);
    auto canceled = client.call("PUT", "/workflows/" + std::to_string(wf) + "/cancel");
    if (!canceled) return fail(canceled.error().message, 1);
    std::cout << "workflow " << wf << " canceled: " << *held << " pending or running "
              << (*held == 1 ? "job" : "jobs") << " canceled; their workers stop them\n";
    auto allocations = cancel_allocations(client, wf);
    if (!allocations) return fail(allocations.error().message, 1);
    if (!*allocations) return fail("some allocations could not be scancel'ed (above)", 1);
    return 0;
}

}  // namespace torcrun::apps
