// `torcrun submit SPEC [--url URL] [--no-initialize]`: creates a workflow from a Torc workflow
// spec with the calls of Torc's `workflows create` (api::submission), then initializes it, and
// prints the workflow id alone on stdout so scripts can capture it. A spec problem exits 2 and
// creates nothing; a failure once the workflow exists deletes it (DELETE cascades) and exits 1.
#include "torcrun/cli/commands.hpp"

#include "cli/positional_command.hpp"
#include "spec_submission.hpp"
#include "torc_client.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

constexpr char const* usage =
    "usage: torcrun submit SPEC [options]\n\n"
    "Creates the workflow a Torc spec (JSON, JSON5 or YAML) describes on a Torc-compatible\n"
    "server, initializes it, and prints its id. Exit 2: the spec or the options are wrong;\n"
    "exit 1: the server refused (the half-made workflow is deleted again).\n";

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

}  // namespace

int cmd_submit(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "no-initialize", "create the workflow but do not call initialize_jobs")(
        "skip-checks", "skip the multi-node scheduler check, as Torc's --skip-checks")(
        "no-resource-monitoring", "no default resource monitor, as Torc's option of that name");
    options.add(client_options());
    auto parsed = parse_positional_command(
        args, options, {"submit", "spec", usage, "a spec file is required (torcrun submit SPEC)"});
    if (auto const* status = std::get_if<int>(&parsed)) return *status;
    auto const& flags = std::get<po::variables_map>(parsed);
    auto settings = client_settings_from(flags);
    if (!settings) return fail(settings.error().message, 2);
    spec_options const spec{!flags.count("no-resource-monitoring"), flags.count("skip-checks") > 0};
    auto plan = plan_spec_file(flags["spec"].as<std::string>(), spec);
    if (!plan) return fail(plan.error().message, 2);
    for (auto const& warning : plan->warnings)
        std::cerr << "torcrun submit: warning: " << warning << "\n";
    torc_client client(std::move(*settings));
    auto wf = submit_plan(client, std::move(*plan), !flags.count("no-initialize"));
    if (!wf) return fail_lines(wf.error().message, 1);
    std::cout << *wf << "\n";
    return 0;
}

}  // namespace torcrun::apps
