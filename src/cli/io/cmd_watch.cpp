// `torcrun watch WF [--auto-schedule ...]`: Torc's `watch`, polling a workflow until it is
// complete and, with --auto-schedule, submitting the Slurm allocations its ready jobs need
// (workflow_watch.hpp).
#include "torcrun/cli/commands.hpp"

#include "torc_client.hpp"
#include "workflow_watch.hpp"

#include <boost/program_options.hpp>

#include <iostream>

namespace torcrun::apps {

int cmd_watch(arguments const& args)
{
    auto options = watch_options(false);
    options.add_options()("help,h", "print this help");
    auto command_line = parse_workflow_command(args, options, "watch");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto settings = watch_settings_from(command.flags, command.settings, "torcrun watch");
    if (!settings) {
        std::cerr << "torcrun watch: " << settings.error().message << "\n";
        return 2;
    }
    torc_client client(std::move(command.settings));
    return watch_workflow(client, command.workflow_id, std::move(*settings));
}

}  // namespace torcrun::apps
