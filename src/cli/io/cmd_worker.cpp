// `torcrun worker [WORKFLOW_ID] [flags]`: the allocation daemon. Reads the configuration, the
// environment and this machine once, chooses the mode and the pool, says so in its first log
// lines, and runs io::run_worker until it exits. Exit: the worker's code (0, 1 when the
// server refused or was lost, 3 when every job left can never run here), 2 for a configuration
// or usage error. The setup and the reactor
// are worker_setup.hpp (src/cli/io), which `torcrun run` starts its worker with too.
#include "config_options.hpp"
#include "sbatch_files.hpp"
#include "torcrun/cli/commands.hpp"

#include "cli/command_line_parse.hpp"
#include "cli/positional_command.hpp"
#include "server_probe.hpp"
#include "worker_setup.hpp"
#include "workflow_settings.hpp"

#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>
#include <random>
#include <thread>

namespace torcrun::apps {

namespace {

namespace po = boost::program_options;

int usage_error(std::string_view message)
{
    std::cerr << "torcrun worker: " << message << "\n";
    return 2;
}

po::options_description worker_options()
{
    po::options_description options(
        "usage: torcrun worker [WORKFLOW_ID] [options]\n\n"
        "Runs the jobs of a workflow on the resources of this allocation (or machine): claims\n"
        "what fits, runs it, reports the results, and exits when the workflow is done, the\n"
        "allocation ends, it is idle, or on SIGTERM / SIGINT / SIGUSR1.\n\n"
        "exit status: 0 when it ended as asked (workflow complete, signal, deadline, idle);\n"
        "1 when the server refused it or stayed unreachable; 2 for bad options or\n"
        "configuration, the workflow's execution_config included (read before the mode is\n"
        "chosen; the file and the flags win over it); 3 when nothing runs and every ready\n"
        "job can never run in this allocation when it would stop for idleness (each named\n"
        "with what it needs, at error level).\n\noptions");
    options.add(worker_config_options());
    options.add_options()("help,h", "print this help");
    return options;
}

// poll.startup_delay_seconds (--startup-delay-seconds, which allocation scripts pass under
// staggered_start): a uniform draw in [0, N) seconds, slept before the reactor starts, so the
// workers of one action reach the server spread out rather than in the same second.
void stagger_start(double most_seconds, io::logger const& log)
{
    if (most_seconds <= 0) return;
    std::mt19937_64 random(std::random_device{}());
    auto const seconds = std::uniform_real_distribution<double>(0, most_seconds)(random);
    log.write(io::log_level::info, "worker",
              "startup delay: " + std::to_string(seconds) + " s of at most " +
                  std::to_string(most_seconds) + " s (poll.startup_delay_seconds)");
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace

int cmd_worker(arguments const& args)
{
    auto const options = worker_options();
    po::positional_options_description positional;
    positional.add("workflow", 1);
    po::variables_map flags;
    try {
        po::store(parse_command_line(args, options, &positional),
                  flags);
    } catch (po::error const& e) {
        return usage_error(command_line_error(e, options));
    }
    if (flags.count("help")) return std::cout << options << "\n", 0;
    auto config = load_sourced_worker_config(flags, true);
    if (!config) return std::cerr << config.error().message << "\n", 2;
    if (!config->config.workflow_id)
        return usage_error("no workflow id: give WORKFLOW_ID or --workflow");
    // A server that refused or stayed unreachable is the worker's exit 1; an execution_config
    // it cannot follow is a configuration error.
    auto dialect = read_server_dialect(config->config);
    if (!dialect) return std::cerr << "torcrun worker: " << dialect.error().message << "\n", 1;
    auto record = read_workflow_record(config->config);
    if (!record) return std::cerr << "torcrun worker: " << record.error().message << "\n", 1;
    auto workflow = workflow_settings_of(*record, std::move(*config));
    if (!workflow) return usage_error(workflow.error().message);
    auto log = io::stderr_logger(log_level_of(workflow->config.config.log_level));
    auto setup = make_worker_setup(std::move(*workflow), log);
    if (!setup) return usage_error(setup.error().message);
    settle_extensions(setup->config, *dialect, log);
    if (setup->config.label && !setup->config.server.extensions)
        return usage_error("label " + *setup->config.label +
                           ": a labelled worker needs torcrun's server and its extensions "
                           "(server.use_extensions); a Torc server would hand it any job");
    if (flags.count("config")) {
        setup->config_path = absolute_path(flags["config"].as<std::string>());
    }
    stagger_start(setup->config.poll.startup_delay_seconds, log);
    return run_worker_here(std::move(*setup), log);
}

}  // namespace torcrun::apps
