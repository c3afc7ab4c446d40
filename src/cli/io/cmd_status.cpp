// `torcrun status WF [--json] [--url URL | --output-dir D]`: a workflow's name, user, run id,
// whether it is complete or canceled, and how many jobs are in each status, the ready ones by
// label when any has one, how many jobs spawn_jobs added when any (workflow_summary.hpp), its
// Slurm allocations by state (queued, running, done, failed, cancelled; `torcrun allocations`
// lists them) when it has any, and its datasets when it has any (dataset_listing.hpp;
// `datasets` in the JSON).
#include "torcrun/cli/commands.hpp"

#include "allocation_records.hpp"
#include "dataset_records.hpp"
#include "torc_client.hpp"
#include "workflow_summary.hpp"
#include "torcrun/cli/dataset_listing.hpp"
#include "torcrun/cli/ready_labels.hpp"
#include "torcrun/server/job_status.hpp"

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
    std::cerr << "torcrun status: " << message << "\n";
    return status;
}

void print_summary(std::ostream& out, json::object const& s)
{
    out << "workflow " << text_of(&s.at("id")) << ": " << text_of(&s.at("name")) << " (user "
        << text_of(&s.at("user")) << ")\n"
        << "run id: " << text_of(&s.at("run_id")) << "\n"
        << "is complete: " << text_of(&s.at("is_complete")) << "\n"
        << "is canceled: " << text_of(&s.at("is_canceled")) << "\n";
    auto const& jobs = s.at("jobs").as_object();
    out << "jobs: " << jobs.at("total").as_int64() << "\n";
    for (auto const st : core::all_job_statuses) {
        auto const n = jobs.at(core::to_string(st)).as_int64();
        if (n != 0) out << "  " << core::to_string(st) << ": " << n << "\n";
        if (st == core::job_status::ready && s.contains("ready_by_label"))
            out << ready_label_lines(s.at("ready_by_label").as_object());
    }
    if (s.contains("spawned_jobs"))
        out << "spawned by orchestrator jobs (spawn_jobs): " << s.at("spawned_jobs").as_int64()
            << " of them (torcrun jobs shows each one's ORIGIN)\n";
    if (auto const* a = s.if_contains("allocations")) {
        auto const& counts = a->as_object();
        out << "allocations: " << counts.at("total").as_int64() << "\n";
        for (auto const* state : {"queued", "running", "done", "failed", "cancelled"}) {
            if (auto const* n = counts.if_contains(state)) out << "  " << state << ": " << n->as_int64() << "\n";
        }
    }
    if (auto const* sets = s.if_contains("datasets"); sets && sets->is_array())
        out << dataset_lines(sets->as_array());
}

}  // namespace

int cmd_status(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")("json", "print one JSON object");
    auto command_line = parse_workflow_command(args, options, "status");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const& flags = command.flags;
    torc_client client(std::move(command.settings));
    auto summary = workflow_summary(client, command.workflow_id);
    if (!summary) return fail(summary.error().message, 1);
    auto allocations = allocation_entries(client, command.workflow_id, false);
    if (!allocations) return fail(allocations.error().message, 1);
    if (!allocations->empty()) {
        std::vector<core::allocation_row> rows;
        for (auto const& e : *allocations) rows.push_back(core::allocation_row_of(e));
        json::object counts{{"total", static_cast<std::int64_t>(rows.size())}};
        for (auto const& [state, n] : core::allocation_counts(rows)) counts[state] = n;
        (*summary)["allocations"] = std::move(counts);
    }
    auto datasets = workflow_datasets(client, command.workflow_id);
    if (!datasets) return fail(datasets.error().message, 1);
    if (!datasets->empty()) (*summary)["datasets"] = std::move(*datasets);
    if (flags.count("json")) {
        std::cout << json::serialize(*summary) << "\n";
    } else {
        print_summary(std::cout, *summary);
    }
    return 0;
}

}  // namespace torcrun::apps
