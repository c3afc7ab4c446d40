// The creation plan (docs/TORC-COMPATIBILITY.md §4.9): Torc's client defaults for the workflow
// record, the JSON texts Torc stores (failure-handler rules, monitor settings, slurm_defaults), the
// level-by-level bulk_jobs batches, the actions and the scheduler checks (§4.3, §4.2, §4.8; section
// numbers in this file are those of docs/TORC-COMPATIBILITY.md). Torc keeps a name listed twice in
// an action's `jobs` and counts it twice in required_triggers; torcrun lists each job once, with a
// warning, so the trigger count is the number of jobs.
#include "torcrun/spec/creation_plan.hpp"

#include "json_text.hpp"
#include "message_text.hpp"
#include "spec_regex.hpp"
#include "torcrun/spec/parameter_values.hpp"
#include "torcrun/spec/template_substitution.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace torcrun::core::spec {

namespace detail {

namespace {

std::string action_prefix(action_spec const& a, std::size_t index)
{
    return concat({a.where, ": actions[", std::to_string(index), "]: "});
}

// The jobs an action with `jobs` or `job_name_regexes` selects (§4.3).
result<std::vector<std::string>> select_jobs(action_spec const& a, std::size_t index,
                                             std::vector<expanded_job> const& jobs,
                                             std::unordered_set<std::string_view> const& known,
                                             regex_cache& cache, std::vector<std::string>& warnings)
{
    std::string const prefix = action_prefix(a, index);
    std::vector<std::string> names;
    std::unordered_set<std::string> chosen;
    for (auto const& n : a.jobs.value_or(std::vector<std::string>{})) {
        if (!known.contains(n)) return error{concat({prefix, "jobs ", quoted(n), " names no job"})};
        if (chosen.insert(n).second) {
            names.push_back(n);
        } else {
            warnings.push_back(concat({prefix, "jobs lists ", quoted(n),
                                       " twice; torcrun counts "
                                       "it once (Torc 0.10 waits for it twice)"}));
        }
    }
    for (auto const& pattern : a.job_name_regexes.value_or(std::vector<std::string>{})) {
        auto const regex = cache.get(pattern);
        if (!regex) {
            return error{concat({prefix, "job_name_regexes ", quoted(pattern),
                                 " is not a valid regular expression: ", regex.error().message})};
        }
        for (auto const& j : jobs)
            if (search(**regex, j.name) && chosen.insert(j.name).second) names.push_back(j.name);
    }
    if (names.empty()) return error{concat({prefix, "jobs and job_name_regexes select no job"})};
    return names;
}

// §4.3: each action's job selection against the created jobs.
result<std::vector<planned_action>> plan_actions(workflow_spec const& spec,
                                                 std::vector<expanded_job> const& jobs,
                                                 std::vector<std::string>& warnings)
{
    std::vector<planned_action> out;
    regex_cache cache;
    std::unordered_set<std::string_view> known;
    if (!spec.actions.empty())
        for (auto const& j : jobs) known.insert(j.name);
    for (std::size_t i = 0; i < spec.actions.size(); ++i) {
        auto const& a = spec.actions[i];
        std::optional<std::vector<std::string>> selected;  // null job_ids without either field
        if (a.jobs || a.job_name_regexes) {
            auto names = select_jobs(a, i, jobs, known, cache, warnings);
            if (!names) return names.error();
            selected = std::move(*names);
        }
        planned_action p{a.trigger_type,
                         a.action_type,
                         a.commands.value_or(std::vector<std::string>{}),
                         a.scheduler,
                         a.scheduler_type,
                         a.num_allocations,
                         a.start_one_worker_per_node,
                         a.max_parallel_jobs,
                         std::move(selected),
                         a.persistent,
                         1,
                         a.where};
        bool const per_job =
            a.trigger_type == "on_jobs_ready" || a.trigger_type == "on_jobs_complete";
        if (per_job && p.job_names)
            p.required_triggers = static_cast<std::int64_t>(p.job_names->size());
        out.push_back(std::move(p));
    }
    return out;
}

// §4.2, as Torc 0.25 has it (validate_scheduler_node_requirements): on a multi-node Slurm
// scheduler of a schedule_nodes action, single-node jobs are placed node by node, and a
// multi-node job must span the whole allocation. A job asking for more than one node but not
// the scheduler's count is an error; Torc 0.10 instead asked that some job take them all.
result<void> check_scheduler_nodes(workflow_spec const& spec, std::vector<expanded_job> const& jobs)
{
    std::unordered_map<std::string, std::int64_t> nodes_of_rr;
    for (auto const& rr : spec.resource_requirements) nodes_of_rr.emplace(rr.name, rr.num_nodes);
    for (std::size_t i = 0; i < spec.actions.size(); ++i) {
        auto const& a = spec.actions[i];
        if (a.action_type != "schedule_nodes" || a.scheduler_type != "slurm") continue;
        auto const s = std::find_if(spec.slurm_schedulers.begin(), spec.slurm_schedulers.end(),
                                    [&](auto const& x) { return x.name == a.scheduler; });
        if (s == spec.slurm_schedulers.end() || s->nodes <= 1) continue;
        std::vector<std::string_view> mismatched;
        for (auto const& j : jobs) {
            if (j.scheduler != s->name) continue;
            auto const rr = j.resource_requirements ? nodes_of_rr.find(*j.resource_requirements)
                                                    : nodes_of_rr.end();
            std::int64_t const wanted = rr == nodes_of_rr.end() ? 1 : rr->second;
            if (wanted > 1 && wanted != s->nodes) mismatched.push_back(j.name);
        }
        if (mismatched.empty()) continue;
        std::string names;
        for (std::size_t k = 0; k < mismatched.size() && k < 3; ++k)
            names.append(k ? ", " : "").append(quoted(mismatched[k]));
        if (mismatched.size() > 3)
            names.append(concat({", ... (", std::to_string(mismatched.size()), " jobs)"}));
        std::string const n = std::to_string(s->nodes);
        return error{concat({action_prefix(a, i), "scheduler ", quoted(s->name), " allocates ", n,
                             " nodes, but jobs ", names,
                             " ask for another multi-node count (resource_requirements "
                             "num_nodes); give them num_nodes ", n,
                             ", or 1 for single-node jobs, as Torc 0.25 requires"})};
    }
    return {};
}

// Torc's --dry-run warning about schedulers that differ while some jobs name none.
void warn_heterogeneous_schedulers(workflow_spec const& spec, std::vector<expanded_job> const& jobs,
                                   std::vector<std::string>& warnings)
{
    auto const& s = spec.slurm_schedulers;
    if (s.size() < 2 || spec.sort_method) return;
    bool const differ = std::any_of(s.begin() + 1, s.end(), [&](auto const& x) {
        return x.gres != s[0].gres || x.mem != s[0].mem || x.walltime != s[0].walltime
               || x.partition != s[0].partition;
    });
    bool const unscheduled =
        std::any_of(jobs.begin(), jobs.end(), [](auto const& j) { return !j.scheduler; });
    if (differ && unscheduled) {
        warnings.push_back("slurm_schedulers: the schedulers differ in gres, mem, walltime or "
                           "partition and some jobs name no scheduler, so any node may claim "
                           "them; jobs_sort_method is unset");
    }
}

}  // namespace

}  // namespace detail

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

// v0.10's four keys, which are the jobs' settings; the split form adds `jobs` (the same
// settings, as newer Torc reads them), the flush interval when written and `compute_node`
// with its four fields when written (as newer Torc serializes it).
std::string monitor_text(resource_monitor_spec const& m)
{
    boost::json::object o;
    o["enabled"] = m.enabled;
    o["granularity"] = to_string(m.granularity);
    o["sample_interval_seconds"] = m.sample_interval_seconds;
    o["generate_plots"] = m.generate_plots;
    if (m.split) {
        o["jobs"] = {{"enabled", m.enabled}, {"granularity", to_string(m.granularity)}};
        if (m.flush_interval_seconds) o["flush_interval_seconds"] = *m.flush_interval_seconds;
        if (auto const& n = m.compute_node)
            o["compute_node"] = {{"enabled", n->enabled},
                                 {"granularity", to_string(n->granularity)},
                                 {"cpu", n->cpu},
                                 {"memory", n->memory}};
    }
    return compact_json(o, false);
}

// Workflow env values take the workflow's parameters that have exactly one value (Torc's rule);
// other placeholders stay literal.
boost::json::object workflow_env(workflow_spec const& spec, std::vector<std::string>& warnings)
{
    combination single;
    for (auto const& [name, text] : spec.parameters) {
        auto parsed = parse_parameter_values(text, name);
        if (parsed && parsed->values.size() == 1) single.push_back({name, parsed->values[0]});
    }
    boost::json::object out;
    for (auto const& [name, value] : spec.env) {
        auto substituted = substitute(value, single, spec.newer_form.empty());
        for (auto& w : substituted.warnings) warnings.push_back(concat({"workflow env: ", w}));
        out[name] = substituted.text;
    }
    return out;
}

// The spec's execution_config with every job's `stdio` moved into job_stdio_overrides.
result<std::optional<boost::json::object>>
execution_config_body(workflow_spec const& spec, std::vector<expanded_job> const& jobs)
{
    std::optional<boost::json::object> out;
    boost::json::object overrides;
    if (auto const& c = spec.execution_config) {
        out = c->written;
        std::unordered_set<std::string> names;
        for (auto const& j : jobs) names.insert(j.name);
        for (auto const& [name, stdio] : c->job_stdio_overrides) {
            if (!names.contains(name)) {
                auto const* where = c->location_of("job_stdio_overrides");
                return error{concat({where ? *where : c->where,
                                     ": execution_config: job_stdio_overrides ", quoted(name),
                                     " names no job"})};
            }
            overrides[name] = stdio_json(stdio);
        }
    }
    for (auto const& j : jobs)
        if (j.stdio) overrides[j.name] = stdio_json(*j.stdio);
    if (overrides.empty()) {
        if (out) out->erase("job_stdio_overrides");
        return out;
    }
    if (!out) out.emplace();
    (*out)["job_stdio_overrides"] = std::move(overrides);
    return out;
}

planned_workflow plan_workflow(workflow_spec const& spec, plan_options const& options,
                               std::vector<std::string>& warnings)
{
    planned_workflow w;
    w.name = spec.name;
    w.user = options.submitting_user;
    if (spec.user && *spec.user != options.submitting_user) {
        warnings.push_back(concat({"workflow: the spec's user ", quoted(*spec.user),
                                   " is not stored: the workflow belongs to the submitting user ",
                                   quoted(options.submitting_user), ", as in Torc"}));
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
        w.default_monitor = true;
    }
    if (spec.slurm_defaults) w.slurm_defaults = compact_json(*spec.slurm_defaults);
    w.use_pending_failed = spec.use_pending_failed;
    w.enable_ro_crate = spec.enable_ro_crate;
    w.project = spec.project;
    w.dynamic_jobs = spec.dynamic_jobs;
    w.access_groups = spec.access_groups;
    w.metadata = spec.metadata;
    if (!spec.env.empty()) w.env = workflow_env(spec, warnings);
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
    std::unordered_map<std::string_view, std::size_t> index;
    index.reserve(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) index.emplace(jobs[j].name, j);
    // Each job's dependencies by index, looked up once (names that are no job are dropped).
    std::vector<std::vector<std::size_t>> deps(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        deps[j].reserve(jobs[j].depends_on.size());
        for (auto const& d : jobs[j].depends_on)
            if (auto const it = index.find(d); it != index.end()) deps[j].push_back(it->second);
    }
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
            if (next < deps[j].size()) {
                std::size_t const d = deps[j][next++];
                if (state[d] == 0) {
                    state[d] = 1;
                    stack.push_back({d, 0});
                }
                continue;
            }
            for (std::size_t const d : deps[j])
                if (state[d] == 2) level[j] = std::max(level[j], level[d] + 1);
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
    auto execution = execution_config_body(spec, workflow.jobs);
    if (!execution) return execution.error();
    plan.workflow.execution_config = std::move(*execution);
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
    plan.datasets = plan_datasets(spec, workflow.jobs);
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
