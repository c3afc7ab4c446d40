// `torcrun report WF --html FILE [--url URL | --output-dir D] [--worker-output-dir DIR]`: the
// workflow's HTML report (run_report.hpp), written to FILE. Where the attempts' files are at hand
// (worker_output_dirs.hpp), the page has their GPU ids and series, and failed attempts link to
// their logs.
#include "torcrun/cli/commands.hpp"

#include "report_gathering.hpp"
#include "torc_client.hpp"
#include "worker_output_dirs.hpp"

#include <boost/program_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;

int cmd_report(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "html", po::value<std::string>()->value_name("FILE"),
        "write the report, one self-contained HTML page, to FILE");
    options.add(worker_output_dir_option());
    auto command_line = parse_workflow_command(args, options, "report");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    if (!command.flags.count("html")) {
        std::cerr << "torcrun report: --html FILE is required (where to write the page)\n";
        return 2;
    }
    auto const html = command.flags["html"].as<std::string>();
    auto const output_dir = named_worker_output_dir(command.flags);
    torc_client client(std::move(command.settings));
    if (auto written = write_report(client, command.workflow_id, output_dir, html); !written) {
        std::cerr << "torcrun report: " << written.error().message << "\n";
        return 1;
    }
    std::cout << "torcrun report: wrote " << html << "\n";
    return 0;
}

}  // namespace torcrun::apps
