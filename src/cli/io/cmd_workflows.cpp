// `torcrun workflows [--json] [--url URL | --output-dir D]`: every workflow of the server with
// its state and completed jobs (core::format_workflow_table), as `torc workflows list` lists
// them but for all users (a torcrun server is usually one user's). `torcrun workflows list`,
// Torc's spelling, is the same command. `torcrun workflows sync-status WF` is Torc's orphan
// cleanup (cmd_sync_status.cpp).
#include "torcrun/cli/commands.hpp"

#include "cli/command_line_parse.hpp"
#include "cli/positional_command.hpp"
#include "torc_client.hpp"
#include "workflow_summary.hpp"
#include "torcrun/cli/workflow_listing.hpp"
#include "torcrun/server/job_status.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun workflows: " << message << "\n";
    return status;
}

core::workflow_line line_of(json::object const& s)
{
    core::workflow_line w;
    w.id = s.at("id").as_int64();
    w.name = text_of(&s.at("name"));
    w.user = text_of(&s.at("user"));
    auto const flag = [&s](std::string_view key) {
        auto const* v = s.if_contains(key);
        return v && v->is_bool() && v->as_bool();
    };
    w.is_complete = flag("is_complete");
    w.is_canceled = flag("is_canceled");
    auto const& jobs = s.at("jobs").as_object();
    for (auto const st : core::all_job_statuses)
        w.jobs[st] = jobs.at(core::to_string(st)).as_int64();
    return w;
}

}  // namespace

int cmd_workflows(arguments const& args)
{
    if (!args.empty() && args.front() == "sync-status")
        return cmd_sync_status(arguments(args.begin() + 1, args.end()));
    po::options_description options("options");
    options.add_options()("help,h", "print this help")("json", "print one JSON array");
    options.add(client_options()).add(output_dir_option());
    po::options_description all;
    all.add(options).add_options()("words", po::value<std::vector<std::string>>());
    po::positional_options_description positional;
    positional.add("words", -1);
    po::variables_map flags;
    try {
        po::store(parse_command_line(args, all, &positional), flags);
    } catch (po::error const& e) {
        return fail(command_line_error(e, options), 2);
    }
    if (flags.count("help")) {
        std::cout << "usage: torcrun workflows [list] [options]\n"
                     "       torcrun workflows sync-status WF [--dry-run] [--json]: fail the "
                     "jobs of allocations Slurm no longer runs\n\n"
                  << options;
        return 0;
    }
    if (flags.count("words")) {
        auto const& words = flags["words"].as<std::vector<std::string>>();
        for (auto const& w : words) {
            if (w != "list" || words.size() > 1)
                return fail("unexpected argument \"" + w + "\" (torcrun workflows [options])", 2);
        }
    }
    auto target = client_target_from(flags);
    if (!target) return fail(target.error().message, 2);
    torc_client client(std::move(target->settings));
    auto listed = client.list_all("/workflows");
    if (!listed) return fail(listed.error().message, 1);
    json::array summaries;
    std::vector<core::workflow_line> lines;
    for (auto const& w : *listed) {
        auto const* id = field(w, "id");
        if (!id || !id->is_int64()) return fail("GET /workflows: a workflow without an id", 1);
        auto summary = workflow_summary(client, id->as_int64());
        if (!summary) return fail(summary.error().message, 1);
        lines.push_back(line_of(*summary));
        (*summary)["status"] = std::string(core::workflow_state(lines.back()));
        summaries.push_back(std::move(*summary));
    }
    if (flags.count("json")) {
        std::cout << json::serialize(summaries) << "\n";
    } else {
        std::cout << core::format_workflow_table(lines);
    }
    return 0;
}

}  // namespace torcrun::apps
