// The creation plan (docs/TORC-COMPATIBILITY.md §4.9): Torc's client defaults for the workflow
// record, the JSON texts Torc stores (failure-handler rules, monitor settings, slurm_defaults), the
// level-by-level bulk_jobs batches, and the actions.
#include "torcrun/spec/creation_plan.hpp"

#include "json_text.hpp"
#include "message_text.hpp"
#include "plan_actions.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace torcrun::core::spec {

namespace {

std::string rules_text(std::vector<failure_handler_rule_spec> const& rules)
{
    boost::json::array out;
    for (auto const& r : rules) {
        boost::json::object o;
        if (!r.exit_codes.empty())
            o["exit_codes"] = boost::json::array(r.exit_codes.begin(), r.exit_codes.end());
        if (r.match_all_exit_codes) o["match_all_exit_codes"] = true;
        if (r.recovery_script) o["recovery_script"] = *r.recovery_script;
        o["max_retries"] = r.max_retries;
        out.push_back(std::move(o));
    }
    return compact_json(out, false);
}

std::string monitor_text(resource_monitor_spec const& m)
{
    boost::json::object o;
    o["enabled"] = m.enabled;
    o["granularity"] = to_string(m.granularity);
    o["sample_interval_seconds"] = m.sample_interval_seconds;
    o["generate_plots"] = m.generate_plots;
    return compact_json(o, false);
}

planned_workflow plan_workflow(workflow_spec const& spec, plan_options const& options,
                               std::vector<std::string>& warnings)
{
    planned_workflow w;
    w.name = spec.name;
    w.user = spec.user.value_or(options.fallback_user);
    if (spec.user) {
        warnings.push_back(concat({"workflow: Torc 0.10 ignores the spec's user and stores $USER; "
                                   "torcrun stores ",
                                   quoted(*spec.user)}));
    }
    w.description = spec.description;
    w.compute_node_expiration_buffer_seconds = spec.compute_node_expiration_buffer_seconds;
    w.compute_node_wait_for_new_jobs_seconds = spec.compute_node_wait_for_new_jobs_seconds;
    w.compute_node_ignore_workflow_completion = spec.compute_node_ignore_workflow_completion;
    w.compute_node_wait_for_healthy_database_minutes =
        spec.compute_node_wait_for_healthy_database_minutes;
    if (spec.sort_method) w.jobs_sort_method = std::string(to_string(*spec.sort_method));
    if (spec.resource_monitor) {
        w.resource_monitor_config = monitor_text(*spec.resource_monitor);
    } else if (options.resource_monitoring) {
        w.resource_monitor_config = monitor_text(default_resource_monitor());
    }
    if (spec.slurm_defaults) w.slurm_defaults = compact_json(*spec.slurm_defaults);
    w.use_pending_failed = spec.use_pending_failed;
    return w;
}

// One batch per level in level order, jobs in expansion order, split every 1000.
std::vector<job_batch> batches_of(std::vector<std::size_t> const& levels)
{
    std::map<std::size_t, std::vector<std::size_t>> by_level;
    for (std::size_t j = 0; j < levels.size(); ++j) by_level[levels[j]].push_back(j);
    std::vector<job_batch> out;
    for (auto const& [level, jobs] : by_level) {
        for (std::size_t first = 0; first < jobs.size(); first += bulk_jobs_batch_size) {
            std::size_t const last = std::min(jobs.size(), first + bulk_jobs_batch_size);
            out.push_back({level, std::vector<std::size_t>(
                                      jobs.begin() + static_cast<std::ptrdiff_t>(first),
                                      jobs.begin() + static_cast<std::ptrdiff_t>(last))});
        }
    }
    return out;
}

}  // namespace

std::vector<std::size_t> topological_levels(std::vector<expanded_job> const& jobs)
{
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t j = 0; j < jobs.size(); ++j) index.emplace(jobs[j].name, j);
    std::vector<std::size_t> level(jobs.size(), 0);
    std::vector<int> state(jobs.size(), 0);  // 0 new, 1 in progress, 2 done
    // Iterative depth-first search; expand_workflow has already refused cycles, and a job
    // met again while in progress is left at its current level rather than looping.
    for (std::size_t root = 0; root < jobs.size(); ++root) {
        if (state[root]) continue;
        std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
        state[root] = 1;
        while (!stack.empty()) {
            auto& [j, next] = stack.back();
            if (next < jobs[j].depends_on.size()) {
                auto const it = index.find(jobs[j].depends_on[next++]);
                if (it != index.end() && state[it->second] == 0) {
                    state[it->second] = 1;
                    stack.push_back({it->second, 0});
                }
                continue;
            }
            for (auto const& d : jobs[j].depends_on) {
                auto const it = index.find(d);
                if (it != index.end() && state[it->second] == 2)
                    level[j] = std::max(level[j], level[it->second] + 1);
            }
            state[j] = 2;
            stack.pop_back();
        }
    }
    return level;
}

result<creation_plan> plan_creation(workflow_spec const& spec, expanded_workflow workflow,
                                    plan_options const& options)
{
    creation_plan plan;
    plan.warnings = std::move(workflow.warnings);
    plan.workflow = plan_workflow(spec, options, plan.warnings);
    if (!options.skip_checks) {
        if (auto checked = detail::check_scheduler_nodes(spec, workflow.jobs); !checked)
            return checked.error();
    }
    detail::warn_heterogeneous_schedulers(spec, workflow.jobs, plan.warnings);
    auto actions = detail::plan_actions(spec, workflow.jobs, plan.warnings);
    if (!actions) return actions.error();
    plan.actions = std::move(*actions);
    plan.explicit_edges = explicit_edges(workflow);
    plan.implied_edges = implied_edges(workflow);
    plan.job_batches = batches_of(topological_levels(workflow.jobs));
    plan.files = std::move(workflow.files);
    plan.user_data = std::move(workflow.user_data);
    plan.jobs = std::move(workflow.jobs);
    plan.resource_requirements = spec.resource_requirements;
    plan.slurm_schedulers = spec.slurm_schedulers;
    for (auto const& h : spec.failure_handlers)
        plan.failure_handlers.push_back({h.name, rules_text(h.rules)});
    return plan;
}

result<creation_plan> plan_spec(workflow_spec const& spec, plan_options const& options)
{
    auto expanded = expand_workflow(spec);
    if (!expanded) return expanded.error();
    return plan_creation(spec, std::move(*expanded), options);
}

boost::json::object action_config(planned_action const& action, std::int64_t scheduler_id)
{
    boost::json::object o;
    if (action.action_type == "run_commands") {
        o["commands"] = boost::json::array(action.commands.begin(), action.commands.end());
        return o;
    }
    o["scheduler_type"] = action.scheduler_type.value_or("");
    o["scheduler_id"] = action.scheduler_type == "slurm" ? scheduler_id : 0;
    o["num_allocations"] = action.num_allocations;
    o["start_one_worker_per_node"] = action.start_one_worker_per_node;
    if (action.max_parallel_jobs) o["max_parallel_jobs"] = *action.max_parallel_jobs;
    return o;
}

}  // namespace torcrun::core::spec
