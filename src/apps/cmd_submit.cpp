// `torcrun submit SPEC [--url URL] [--no-initialize]`: creates a workflow from a Torc workflow
// spec with the calls of Torc's `workflows create` (api::submission), then initializes it, and
// prints the workflow id alone on stdout so scripts can capture it. A spec problem exits 2 and
// creates nothing; a failure once the workflow exists deletes it (DELETE cascades) and exits 1.
#include "torcrun/apps/commands.hpp"

#include "config_options.hpp"
#include "torc_client.hpp"
#include "torcrun/api/submission.hpp"
#include "torcrun/core/spec/creation_plan.hpp"
#include "torcrun/core/spec/spec_reader.hpp"

#include <boost/program_options.hpp>

#include <cstdlib>
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

std::string current_user()
{
    for (char const* name : {"USER", "USERNAME"}) {
        if (char const* value = std::getenv(name); value && *value) return value;
    }
    return "unknown";
}

core::result<core::spec::creation_plan> plan_from(std::string const& path,
                                                  po::variables_map const& flags)
{
    auto text = read_text_file(path);
    if (!text) return text.error();
    auto parsed = core::spec::read_spec(*text, path);
    if (!parsed) return parsed.error();
    core::spec::plan_options options{current_user(), !flags.count("no-resource-monitoring"),
                                     flags.count("skip-checks") > 0};
    return core::spec::plan_spec(*parsed, options);
}

// Runs every call; on a failure after the workflow exists, deletes it and says so.
int send_all(torc_client& client, api::submission& sub)
{
    while (auto call = sub.next()) {
        auto answer = client.send(call->method, call->path, call->body);
        auto accepted =
            answer ? sub.accept(*answer)
                   : core::result<void>(core::error{call->what + ": " + answer.error().message});
        if (accepted) continue;
        std::cerr << "torcrun submit: " << accepted.error().message << "\n";
        if (auto const wf = sub.workflow_id()) {
            auto const path = "/workflows/" + std::to_string(*wf);
            auto removed = client.call("DELETE", path);
            if (!removed)
                return fail("could not delete workflow " + std::to_string(*wf) + ": " +
                                removed.error().message,
                            1);
            std::cerr << "torcrun submit: deleted workflow " << *wf << "\n";
        }
        return 1;
    }
    std::cout << sub.workflow_id().value_or(0) << "\n";
    return 0;
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
    po::options_description hidden;
    hidden.add_options()("spec", po::value<std::string>());
    po::options_description all;
    all.add(options).add(hidden);
    po::positional_options_description positional;
    positional.add("spec", 1);
    po::variables_map flags;
    try {
        po::store(po::command_line_parser(args).options(all).positional(positional).run(), flags);
    } catch (po::error const& e) {
        return fail(e.what(), 2);
    }
    if (flags.count("help")) return std::cout << usage << "\n" << options, 0;
    if (!flags.count("spec")) return fail("a spec file is required (torcrun submit SPEC)", 2);
    auto settings = client_settings_from(flags);
    if (!settings) return fail(settings.error().message, 2);
    auto plan = plan_from(flags["spec"].as<std::string>(), flags);
    if (!plan) return fail(plan.error().message, 2);
    for (auto const& warning : plan->warnings)
        std::cerr << "torcrun submit: warning: " << warning << "\n";
    api::submission sub(std::move(*plan), !flags.count("no-initialize"));
    torc_client client(std::move(*settings));
    return send_all(client, sub);
}

}  // namespace torcrun::apps
