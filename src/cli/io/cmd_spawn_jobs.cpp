// `torcrun spawn-jobs [REQUEST | -] [--lineage L] [--converge] [--state JSON] [--generation]`:
// the call a running job makes to add jobs to its workflow (newer Torc's dynamic jobs, `POST
// /jobs/{id}/spawn_jobs`). Torc has no command for it (its jobs call the API through the
// `torc` Python client's `Orchestrator`); this command is torcrun's, and the Python module in
// python/torc wraps it under Torc's names. Who calls comes from the job's environment
// (core::spawn_identity_from): the server (TORC_API_URL, or --url), the workflow, the job, and
// the attempt and run that fence the request, so a process of an attempt the server has ended
// cannot spawn. REQUEST is a SpawnJobsRequest as JSON (`-`: stdin); --converge sends
// `jobs: []`, the lineage's convergence. The reply ({"spawned_job_ids": [...], "iteration": N})
// goes to stdout. A request whose reply never came is sent again, the same, until
// --retry-seconds pass: the server answers a replay with the jobs the first one created, so
// none is created twice. --generation prints the lineage's current generation and spawns nothing.
// Exit 0; 1 when the server refused (its message on stderr) or never answered; 2 for bad
// arguments or environment.
#include "torcrun/cli/commands.hpp"

#include "cli/command_line_parse.hpp"
#include "machine_facts.hpp"
#include "torc_client.hpp"
#include "torcrun/cli/spawn_call.hpp"

#include <boost/json/value.hpp>
#include <boost/program_options.hpp>

#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun spawn-jobs: " << message << "\n";
    return status;
}

core::result<std::string> read_request(std::string const& path)
{
    std::ostringstream text;
    if (path == "-") {
        text << std::cin.rdbuf();
        return core::result<std::string>(boost::system::in_place_value, text.str());
    }
    std::ifstream in(path);
    if (!in) return core::error{path + ": cannot be read"};
    text << in.rdbuf();
    return core::result<std::string>(boost::system::in_place_value, text.str());
}

int print_generation(torc_client& client, core::spawn_identity const& id)
{
    if (!id.lineage)
        return fail("--generation needs the lineage: --lineage L (a spawned job has "
                    "TORC_ORCHESTRATOR_LINEAGE_ID)",
                    2);
    auto records = client.list_all("/user_data?workflow_id=" + std::to_string(id.workflow_id));
    if (!records) return fail(records.error().message, 1);
    std::vector<std::string> names;
    for (auto const& r : *records) {
        if (auto const* n = r.is_object() ? r.get_object().if_contains("name") : nullptr;
            n && n->is_string())
            names.emplace_back(n->get_string());
    }
    std::cout << core::lineage_generation(names, *id.lineage) << "\n";
    return 0;
}

}  // namespace

int cmd_spawn_jobs(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "request", po::value<std::string>(), "SpawnJobsRequest JSON file ('-': stdin)")(
        "lineage", po::value<std::string>(),
        "the orchestrator lineage (default: $TORC_ORCHESTRATOR_LINEAGE_ID, else the server "
        "uses the job's name)")("converge", "spawn nothing: record the lineage's convergence")(
        "state", po::value<std::string>(), "the state to record, as JSON")(
        "generation", "print the lineage's current generation (0 before its first spawn)")(
        "retry-seconds", po::value<int>()->default_value(300),
        "send the request again for this long while the server does not answer");
    options.add(client_options());
    po::positional_options_description positional;
    positional.add("request", 1);
    po::variables_map flags;
    try {
        po::store(parse_command_line(args, options, &positional),
                  flags);
        po::notify(flags);
    } catch (po::error const& e) {
        return fail(e.what(), 2);
    }
    if (flags.count("help")) {
        std::cout << "usage: torcrun spawn-jobs [REQUEST | -] [--lineage L] [--converge] "
                     "[--state JSON] [--generation]\n\nRun inside a job: adds jobs that wait "
                     "for it to the workflow.\n\n"
                  << options;
        return 0;
    }
    auto lineage = flags.count("lineage") ? std::optional(flags["lineage"].as<std::string>())
                                          : std::nullopt;
    auto id = core::spawn_identity_from(read_process_environment(), lineage);
    if (!id) return fail(id.error().message, 2);
    auto settings = client_settings_from(flags);
    if (!settings) return fail(settings.error().message, 2);
    torc_client client(std::move(*settings));
    if (flags.count("generation")) return print_generation(client, *id);

    std::string request_text;
    if (flags.count("request")) {
        auto text = read_request(flags["request"].as<std::string>());
        if (!text) return fail(text.error().message, 2);
        request_text = std::move(*text);
    } else if (!flags.count("converge")) {
        return fail("give the request (a file, or - for stdin) or --converge", 2);
    }
    auto state = flags.count("state") ? std::optional(flags["state"].as<std::string>())
                                      : std::nullopt;
    auto body = core::spawn_body(request_text, flags.count("converge") > 0, state, *id);
    if (!body) return fail(body.error().message, 2);

    auto const path = core::spawn_path(*id);
    auto const give_up = std::chrono::steady_clock::now() +
                         std::chrono::seconds(std::max(0, flags["retry-seconds"].as<int>()));
    for (int attempt = 1;; ++attempt) {
        auto reply = client.exchange("POST", path, *body);
        if (reply) {
            std::cout << reply->body << "\n";
            return 0;
        }
        if (!reply.error().transient() || std::chrono::steady_clock::now() >= give_up)
            return fail(failure_message("POST", path, reply.error(), client.url()), 1);
        std::cerr << "torcrun spawn-jobs: " << reply.error().message << "; sending it again\n";
        pause_before_retry(attempt, give_up);
    }
}

}  // namespace torcrun::apps
