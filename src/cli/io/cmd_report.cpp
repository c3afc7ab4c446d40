// `torcrun report WF --html FILE [--url URL | --output-dir D]`: the workflow's HTML report
// (run_report.hpp), written to FILE. With --output-dir, failed attempts link to their logs.
#include "torcrun/cli/commands.hpp"

#include "report_gathering.hpp"
#include "torc_client.hpp"

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
    auto command_line = parse_workflow_command(args, options, "report");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    if (!command.flags.count("html")) {
        std::cerr << "torcrun report: --html FILE is required (where to write the page)\n";
        return 2;
    }
    auto const html = command.flags["html"].as<std::string>();
    std::optional<std::string> output_dir;
    if (command.flags.count("output-dir"))
        output_dir = command.flags["output-dir"].as<std::string>();
    torc_client client(std::move(command.settings));
    if (auto written = write_report(client, command.workflow_id, output_dir, html); !written) {
        std::cerr << "torcrun report: " << written.error().message << "\n";
        return 1;
    }
    std::cout << "torcrun report: wrote " << html << "\n";
    return 0;
}

}  // namespace torcrun::apps
