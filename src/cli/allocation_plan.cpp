// Spec schedulers and actions into sbatch requests (core::allocation_request, shared with the
// workers' schedule_nodes actions), then the scripts' text.
#include "torcrun/cli/allocation_plan.hpp"

#include <algorithm>
#include <string_view>

namespace torcrun::core {
namespace {

std::string located(std::string const& where, std::string const& message)
{
    return where.empty() ? message : where + ": " + message;
}

scheduler_options options_of(spec::slurm_scheduler_spec const& s, std::int64_t id)
{
    return {s.name, s.account, s.nodes, s.walltime, s.partition, s.qos, s.mem, s.gres, s.tmp,
            s.extra, id, s.serialize_allocations};
}

}  // namespace

std::vector<std::size_t> workflow_start_actions(spec::creation_plan const& plan)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < plan.actions.size(); ++i) {
        auto const& a = plan.actions[i];
        if (a.trigger_type == "on_workflow_start" && a.action_type == "schedule_nodes")
            out.push_back(i);
    }
    return out;
}

std::vector<std::size_t> schedulable_actions(spec::creation_plan const& plan)
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < plan.actions.size(); ++i) {
        auto const& a = plan.actions[i];
        if (a.action_type != "schedule_nodes") continue;
        if (a.trigger_type == "on_workflow_start" || a.scheduler_type == "slurm") out.push_back(i);
    }
    return out;
}

result<std::vector<planned_allocation>> plan_allocations(spec::creation_plan const& plan,
                                                         allocation_settings const& settings,
                                                         worker_config const& config)
{
    return plan_allocations(plan, workflow_start_actions(plan), settings, config);
}

result<std::vector<planned_allocation>> plan_allocations(spec::creation_plan const& plan,
                                                         std::vector<std::size_t> const& actions,
                                                         allocation_settings const& settings,
                                                         worker_config const& config)
{
    std::vector<planned_allocation> out;
    auto const launch =
        worker_launch_from(plan.workflow.execution_config.value_or(boost::json::object()),
                           settings.workflow_id);
    if (!launch) return error{"execution_config: " + launch.error().message};
    for (auto const i : actions) {
        auto const& a = plan.actions.at(i);
        if (a.action_type != "schedule_nodes") continue;
        auto const name = a.scheduler.value_or("");
        auto const what = "actions[" + std::to_string(i) +
                          "] (schedule_nodes, slurm_schedulers \"" + name + "\")";
        if (a.scheduler_type != "slurm") {
            return error{located(a.where, what + ": scheduler_type \"" +
                                              a.scheduler_type.value_or("") +
                                              "\": torcrun submit schedules only slurm "
                                              "allocations (use --no-schedule)")};
        }
        auto const s = std::find_if(plan.slurm_schedulers.begin(), plan.slurm_schedulers.end(),
                                    [&](auto const& x) { return x.name == name; });
        if (s == plan.slurm_schedulers.end()) {
            return error{located(a.where, what + ": no slurm_schedulers entry of that name")};
        }
        if (a.num_allocations < 1) {
            return error{located(a.where, what + ": num_allocations " +
                                              std::to_string(a.num_allocations) +
                                              " must be at least 1")};
        }
        allocation_target const target{settings.workflow_id, settings.output_dir,
                                       settings.torcrun_path, settings.config_path, settings.url,
                                       *launch,              settings.tls_ca_cert};
        schedule_options const options{a.start_one_worker_per_node, a.max_parallel_jobs,
                                       a.num_allocations};
        auto const id = settings.scheduler_ids.find(name);
        auto const scheduler =
            options_of(*s, id == settings.scheduler_ids.end() ? 0 : id->second);
        auto const base =
            allocation_request(scheduler, plan.workflow.slurm_defaults, options, target);
        if (!base) return error{located(a.where, what + ": " + base.error().message)};
        for (std::int64_t n = 1; n <= a.num_allocations; ++n) {
            auto request = *base;
            request.job_name = "torcrun_wf" + std::to_string(settings.workflow_id) + "_" + name +
                               "_a" + std::to_string(i) + "_" + std::to_string(n);
            auto text = render_sbatch_script(request, config);
            if (!text) {
                return error{located(s->where.empty() ? a.where : s->where,
                                     what + ": " + text.error().message)};
            }
            auto path = settings.output_dir + "/" + *request.job_name + ".sh";
            out.push_back({i, what, name, static_cast<std::size_t>(n), std::move(request),
                           std::move(*text), std::move(path)});
        }
    }
    return out;
}

std::optional<std::string> unreachable_url_warning(std::string const& url)
{
    auto const scheme = url.find("://");
    auto host = std::string_view(url).substr(scheme == std::string::npos ? 0 : scheme + 3);
    if (auto const at = host.find('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
    host = host.substr(0, host.find('/'));
    if (host.starts_with('[')) {
        host = host.substr(0, host.find(']') + 1);
    } else {
        host = host.substr(0, host.find(':'));
    }
    bool const loopback = host == "localhost" || host.starts_with("127.") || host == "[::1]";
    if (!loopback) return std::nullopt;
    return "the server URL " + url +
           " is a loopback address: workers on other compute nodes cannot reach it (pass --url "
           "with a host name the nodes resolve)";
}

}  // namespace torcrun::core
