// `torcrun allocations WF [--json]`: the workflow's Slurm allocations, one a line
// (core::allocation_row): Slurm id, state, shape, the jobs it was made for, its nodes, submit,
// start and end times, why it ended. Live ones are asked of Slurm (scontrol) as well.
#include "torcrun/cli/commands.hpp"

#include "allocation_records.hpp"
#include "torc_client.hpp"

#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;

int cmd_allocations(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")("json", "print a JSON array");
    auto command_line = parse_workflow_command(args, options, "allocations");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    torc_client client(std::move(command.settings));
    auto entries = allocation_entries(client, command.workflow_id, true);
    if (!entries) {
        std::cerr << "torcrun allocations: " << entries.error().message << "\n";
        return 1;
    }
    std::vector<core::allocation_row> rows;
    for (auto const& e : *entries) rows.push_back(core::allocation_row_of(e));
    if (command.flags.count("json")) {
        std::cout << boost::json::serialize(core::allocations_to_json(rows)) << "\n";
    } else if (rows.empty()) {
        std::cout << "workflow " << command.workflow_id << " has no Slurm allocation\n";
    } else {
        std::cout << core::format_allocation_table(rows);
    }
    return 0;
}

}  // namespace torcrun::apps
