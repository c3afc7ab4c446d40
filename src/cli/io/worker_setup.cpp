// The worker's start-up facts and its reactor. The resource overrides replace what detection
// found on every node of the pool, since they are per-node amounts like the capacities they
// replace.
#include "worker_setup.hpp"

#include "machine_facts.hpp"
#include "torcrun/slurm/mode_choice.hpp"
#include "torcrun/worker/resource_pool.hpp"
#include "torcrun/slurm/slurm_env.hpp"
#include "torcrun/common/units.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>

namespace torcrun::apps {

namespace {

core::requested_mode requested(core::run_mode mode)
{
    switch (mode) {
        case core::run_mode::direct: return core::requested_mode::direct;
        case core::run_mode::slurm: return core::requested_mode::slurm;
        case core::run_mode::automatic: break;
    }
    return core::requested_mode::auto_;
}

void apply_overrides(std::vector<core::node_capacity>& nodes,
                     core::worker_config::resources_settings const& r)
{
    for (auto& node : nodes) {
        if (r.cpus) node.cpus = *r.cpus;
        if (r.memory_bytes) node.memory_bytes = *r.memory_bytes;
        if (r.gpus) node.gpu_ids = *r.gpus;
    }
}

std::string joined(std::vector<std::string> const& ids)
{
    std::string out;
    for (auto const& id : ids) (out += out.empty() ? "" : ",") += id;
    return out.empty() ? "none" : out;
}

// The first log lines: the allocation, its nodes, the mode and why, the pool, the warnings.
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

}  // namespace

core::result<io::worker_setup> make_worker_setup(workflow_settings workflow,
                                                 io::logger const& log)
{
    auto config = std::move(workflow.config.config);
    auto env = read_process_environment();
    auto const machine = measure_machine();
    auto allocation = core::read_allocation(env, machine);
    if (!allocation) return allocation.error();
    auto decision = core::choose_mode(*allocation, requested(config.mode));
    if (!decision) return decision.error();
    auto const effective = decision->mode == core::execution_mode::slurm ? core::run_mode::slurm
                                                                          : core::run_mode::direct;
    if (auto ok = core::check_execution_config(workflow.execution_config, effective,
                                               config.workflow_id.value_or(0));
        !ok)
        return ok.error();
    apply_overrides(decision->pool, config.resources);
    auto pool = core::resource_pool::create(decision->pool);
    if (!pool) return pool.error();
    log_start(log, *allocation, *decision);
    io::worker_setup setup{std::move(config),  decision->mode,    std::move(*pool),
                           std::move(env),     std::move(workflow.env), machine.host_name,
                           allocation->job_id, std::nullopt};
    setup.sample_interval_seconds = workflow.sample_interval_seconds;
    setup.node_monitor = workflow.node_monitor;
    setup.look_up_end_time = allocation->in_slurm && !allocation->end_time &&
                             !setup.config.termination.end_time;
    if (allocation->end_time && !setup.config.termination.end_time)
        setup.config.termination.end_time = static_cast<double>(*allocation->end_time);
    return setup;
}

int run_worker_here(io::worker_setup setup, io::logger const& log)
{
    boost::asio::io_context ioc{1};
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
