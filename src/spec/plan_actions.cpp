// Actions in the creation plan and the scheduler checks (docs/TORC-COMPATIBILITY.md §4.3, §4.2,
// §4.8). Torc keeps a name listed twice in `jobs` and counts it twice in required_triggers; torcrun
// lists each job once, with a warning, so the trigger count is the number of jobs.
#include "plan_actions.hpp"

#include "message_text.hpp"
#include "spec_regex.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace torcrun::core::spec::detail {

namespace {

std::string action_prefix(action_spec const& a, std::size_t index)
{
    return concat({a.where, ": actions[", std::to_string(index), "]: "});
}

// The jobs an action with `jobs` or `job_name_regexes` selects (docs/TORC-COMPATIBILITY.md §4.3).
result<std::vector<std::string>> select_jobs(action_spec const& a, std::size_t index,
                                             std::vector<expanded_job> const& jobs,
                                             regex_cache& cache, std::vector<std::string>& warnings)
{
    std::string const prefix = action_prefix(a, index);
    std::unordered_set<std::string> known;
    for (auto const& j : jobs) known.insert(j.name);
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

}  // namespace

result<std::vector<planned_action>> plan_actions(workflow_spec const& spec,
                                                 std::vector<expanded_job> const& jobs,
                                                 std::vector<std::string>& warnings)
{
    std::vector<planned_action> out;
    regex_cache cache;
    for (std::size_t i = 0; i < spec.actions.size(); ++i) {
        auto const& a = spec.actions[i];
        std::optional<std::vector<std::string>> selected;  // null job_ids without either field
        if (a.jobs || a.job_name_regexes) {
            auto names = select_jobs(a, i, jobs, cache, warnings);
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
                         1};
        bool const per_job =
            a.trigger_type == "on_jobs_ready" || a.trigger_type == "on_jobs_complete";
        if (per_job && p.job_names)
            p.required_triggers = static_cast<std::int64_t>(p.job_names->size());
        out.push_back(std::move(p));
    }
    return out;
}

result<void> check_scheduler_nodes(workflow_spec const& spec, std::vector<expanded_job> const& jobs)
{
    std::unordered_map<std::string, std::int64_t> nodes_of_rr;
    for (auto const& rr : spec.resource_requirements) nodes_of_rr.emplace(rr.name, rr.num_nodes);
    for (std::size_t i = 0; i < spec.actions.size(); ++i) {
        auto const& a = spec.actions[i];
        if (a.action_type != "schedule_nodes" || a.scheduler_type != "slurm"
            || a.start_one_worker_per_node)
            continue;
        auto const s = std::find_if(spec.slurm_schedulers.begin(), spec.slurm_schedulers.end(),
                                    [&](auto const& x) { return x.name == a.scheduler; });
        if (s == spec.slurm_schedulers.end() || s->nodes <= 1) continue;
        bool used = false;
        bool fits = false;
        for (auto const& j : jobs) {
            if (j.scheduler != s->name) continue;
            used = true;
            auto const rr = j.resource_requirements ? nodes_of_rr.find(*j.resource_requirements)
                                                    : nodes_of_rr.end();
            fits = fits || (rr == nodes_of_rr.end() ? 1 : rr->second) == s->nodes;
        }
        if (used && !fits) {
            std::string const n = std::to_string(s->nodes);
            return error{concat({action_prefix(a, i), "scheduler ", quoted(s->name), " has ", n,
                                 " nodes, but none of its jobs asks for ", n,
                                 " nodes (resource_requirements num_nodes); Torc refuses this "
                                 "unless start_one_worker_per_node is true"})};
        }
    }
    return {};
}

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

}  // namespace torcrun::core::spec::detail
