// `torcrun worker [WORKFLOW_ID] [flags]`: the allocation daemon. Reads the configuration, the
// environment and this machine once, chooses the mode and the pool, says so in its first log
// lines, and runs io::run_worker until it exits. Exit: the worker's code (0, or 1 when the
// server refused or was lost), 2 for a configuration or usage error.
#include "config_options.hpp"
#include "machine_facts.hpp"
#include "torcrun/apps/commands.hpp"
#include "torcrun/core/mode_choice.hpp"
#include "torcrun/core/resource_pool.hpp"
#include "torcrun/core/units.hpp"
#include "torcrun/io/worker_shell.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/program_options.hpp>

#include <exception>
#include <iostream>

namespace torcrun::apps {

namespace {

namespace po = boost::program_options;

int usage_error(std::string_view message)
{
    std::cerr << "torcrun worker: " << message << "\n";
    return 2;
}

io::log_level level_of(core::log_severity s)
{
    switch (s) {
    case core::log_severity::error: return io::log_level::err;
    case core::log_severity::warning: return io::log_level::warning;
    case core::log_severity::info: return io::log_level::info;
    case core::log_severity::debug: return io::log_level::debug;
    }
    return io::log_level::info;
}

core::requested_mode requested_of(core::run_mode mode)
{
    switch (mode) {
    case core::run_mode::direct: return core::requested_mode::direct;
    case core::run_mode::slurm: return core::requested_mode::slurm;
    case core::run_mode::automatic: break;
    }
    return core::requested_mode::auto_;
}

std::string joined(std::vector<std::string> const& ids)
{
    std::string out;
    for (auto const& id : ids) (out += out.empty() ? "" : ",") += id;
    return out.empty() ? "none" : out;
}

// resources.* in the configuration win over what the allocation says, on every node of the pool.
void apply_overrides(core::worker_config::resources_settings const& r,
                     std::vector<core::node_capacity>& pool)
{
    for (auto& node : pool) {
        if (r.cpus) node.cpus = *r.cpus;
        if (r.memory_bytes) node.memory_bytes = *r.memory_bytes;
        if (r.gpus) node.gpu_ids = *r.gpus;
    }
}

void log_start(io::logger const& log, core::allocation const& a, core::mode_decision const& d)
{
    log.write(io::log_level::info, "worker", "allocation",
              {{"slurm_job", a.in_slurm ? a.job_id : "none"},
               {"scope", core::to_string(a.scope)},
               {"nodes", std::to_string(a.nodes.size())}});
    for (auto const& n : a.nodes) {
        log.write(io::log_level::info, "worker", "node",
                  {{"name", n.capacity.name}, {"cpus", std::to_string(n.capacity.cpus)},
                   {"memory", core::format_memory(n.capacity.memory_bytes)},
                   {"gpus", joined(n.capacity.gpu_ids)}});
    }
    log.write(io::log_level::info, "worker", "mode",
              {{"mode", core::to_string(d.mode)}, {"why", d.reason}});
    for (auto const& n : d.pool) {
        log.write(io::log_level::info, "worker", "pool",
                  {{"node", n.name}, {"cpus", std::to_string(n.cpus)},
                   {"memory", core::format_memory(n.memory_bytes)},
                   {"gpus", joined(n.gpu_ids)}});
    }
    for (auto const& w : a.warnings) log.write(io::log_level::warning, "worker", w);
    for (auto const& w : d.warnings) log.write(io::log_level::warning, "worker", w);
}

po::options_description worker_options()
{
    po::options_description options(
        "usage: torcrun worker [WORKFLOW_ID] [options]\n\n"
        "Runs the jobs of a workflow on the resources of this allocation (or machine): claims\n"
        "what fits, runs it, reports the results, and exits when the workflow is done, the\n"
        "allocation ends, it is idle, or on SIGTERM / SIGINT / SIGUSR1.\n\noptions");
    options.add(worker_config_options());
    options.add_options()("help,h", "print this help");
    return options;
}

}  // namespace

int cmd_worker(arguments const& args)
{
    auto const options = worker_options();
    po::positional_options_description positional;
    positional.add("workflow", 1);
    po::variables_map flags;
    try {
        po::store(po::command_line_parser(args).options(options).positional(positional).run(),
                  flags);
    } catch (po::error const& e) {
        return usage_error(e.what());
    }
    if (flags.count("help")) return std::cout << options << "\n", 0;
    auto config = load_worker_config(flags);
    if (!config) return std::cerr << config.error().message << "\n", 2;
    if (!config->workflow_id) return usage_error("no workflow id: give WORKFLOW_ID or --workflow");
    auto const env = read_process_environment();
    auto const machine = measure_machine();
    auto const allocation = core::read_allocation(env, machine);
    if (!allocation) return usage_error(allocation.error().message);
    auto decision = core::choose_mode(*allocation, requested_of(config->mode));
    if (!decision) return usage_error(decision.error().message);
    apply_overrides(config->resources, decision->pool);
    auto pool = core::resource_pool::create(decision->pool);
    if (!pool) return usage_error(pool.error().message);
    if (!config->termination.end_time && allocation->end_time)
        config->termination.end_time = static_cast<double>(*allocation->end_time);
    auto log = io::stderr_logger(level_of(config->log_level));
    log_start(log, *allocation, *decision);

    io::worker_setup setup{.config = *config,
                           .mode = decision->mode,
                           .pool = std::move(*pool),
                           .worker_env = env,
                           .hostname = machine.host_name,
                           .slurm_job_id = allocation->job_id,
                           .look_up_end_time = allocation->in_slurm &&
                                               !config->termination.end_time,
                           .handle_signals = true};
    boost::asio::io_context ioc;
    int code = 1;
    boost::asio::co_spawn(ioc, io::run_worker(std::move(setup), log),
                          [&](std::exception_ptr e, int result) {
                              if (e) {
                                  try {
                                      std::rethrow_exception(e);
                                  } catch (std::exception const& x) {
                                      log.write(io::log_level::err, "worker", x.what());
                                  }
                              }
                              code = e ? 1 : result;
                              ioc.stop();  // requests still in flight are abandoned
                          });
    ioc.run();
    return code;
}

}  // namespace torcrun::apps
