// `torcrun cancel WF [--json] [--url URL | --output-dir D]`: Torc's `torc workflows cancel`. The
// server marks the workflow canceled and its pending and running jobs `canceled`, so no worker
// claims again; each worker holding jobs sees the flag at its next check, stops them
// (termination signal, then SIGKILL after the grace) and exits. Then every Slurm allocation of
// the workflow that is still pending or active is scancel'ed and its record marked `canceled`.
// Exit 0; 1 when the server refused, or an allocation could not be scancel'ed (each said on
// stderr). --json (Torc's `-f json`) prints Torc v0.25.1's object instead of the lines: {status:
// "success" or "partial_success", workflow_id, canceled_slurm_jobs: [Slurm job ids], errors:
// null or texts}.
#include "torcrun/cli/commands.hpp"

#include "json_fields.hpp"
#include "allocation_records.hpp"
#include "sbatch_files.hpp"
#include "torc_client.hpp"
#include "torcrun/common/json_writer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <iostream>
#include <string>
#include <vector>

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

// What the allocations' cancel did: the Slurm jobs scancel'ed, and each failure's text.
struct allocations_canceled {
    json::array canceled;  // Slurm job ids
    std::vector<std::string> errors;
};

// scancel each Slurm allocation still pending or active, and mark its record canceled; a line
// per allocation unless `quiet` (--json).
core::result<allocations_canceled> cancel_allocations(torc_client& client, std::int64_t wf,
                                                      bool quiet)
{
    auto records = live_slurm_allocations(client, wf);
    if (!records) return records.error();
    allocations_canceled out;
    for (auto const& r : *records) {
        auto const slurm_job = integer_of(r, "scheduler_id");
        if (auto done = run_scancel(slurm_job); !done) {
            if (!quiet) std::cerr << "torcrun cancel: " << done.error().message << "\n";
            out.errors.push_back(done.error().message);
            continue;
        }
        if (auto put = set_allocation_status(client, wf, r, "canceled"); !put) return put.error();
        auto const id = std::to_string(integer_of(r, "id"));
        out.canceled.push_back(slurm_job);
        if (!quiet)
            std::cout << "Slurm job " << slurm_job << " scancel'ed (allocation record " << id
                      << ": canceled)\n";
    }
    return out;
}

}  // namespace

int cmd_cancel(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "json", "print Torc's result object: status, workflow_id, canceled_slurm_jobs, errors");
    auto command_line = parse_workflow_command(args, options, "cancel");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const wf = command.workflow_id;
    bool const as_json = command.flags.count("json") > 0;
    torc_client client(std::move(command.settings));
    auto held = held_jobs(client, wf);
    if (!held) return fail(held.error().message, 1);
    auto canceled = client.call("PUT", "/workflows/" + std::to_string(wf) + "/cancel");
    if (!canceled) return fail(canceled.error().message, 1);
    if (!as_json)
        std::cout << "workflow " << wf << " canceled: " << *held << " pending or running "
                  << (*held == 1 ? "job" : "jobs") << " canceled; their workers stop them\n";
    auto allocations = cancel_allocations(client, wf, as_json);
    if (!allocations) return fail(allocations.error().message, 1);
    if (as_json) {  // Torc v0.25.1's handle_cancel with -f json
        json::value errors = nullptr;
        if (!allocations->errors.empty()) {
            json::array texts;
            for (auto const& e : allocations->errors) texts.push_back(json::string(e));
            errors = std::move(texts);
        }
        json::object out{{"status", allocations->errors.empty() ? "success" : "partial_success"},
                         {"workflow_id", wf},
                         {"canceled_slurm_jobs", std::move(allocations->canceled)},
                         {"errors", std::move(errors)}};
        std::cout << core::write_json(out, 2) << "\n";
    }
    if (!allocations->errors.empty())
        return fail("some allocations could not be scancel'ed" +
                        std::string(as_json ? " (errors)" : " (above)"),
                    1);
    return 0;
}

}  // namespace torcrun::apps
