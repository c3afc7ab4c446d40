// expand_workflow's driver and the job graph: explicit and implied edges
// (docs/TORC-COMPATIBILITY.md §4.7) and the cycle check over both. Torc 0.10 checks only explicit
// edges; a cycle through files leaves its jobs blocked forever there, so torcrun refuses it too.
#include "spec_expand.hpp"

#include "message_text.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace torcrun::core::spec {

namespace {

// Distinct pairs in insertion order.
class edge_list {
public:
    void add(std::string const& job, std::string const& depends_on)
    {
        if (seen_.insert(concat({job, std::string_view("\0", 1), depends_on})).second)
            edges_.push_back({job, depends_on});
    }
    std::vector<job_edge> take() { return std::move(edges_); }

private:
    std::unordered_set<std::string> seen_;
    std::vector<job_edge> edges_;
};

using producers = std::unordered_map<std::string, std::vector<std::string>>;

void add_implied(edge_list& edges, expanded_workflow const& w,
                 std::vector<std::string> expanded_job::*inputs,
                 std::vector<std::string> expanded_job::*outputs)
{
    producers writers;
    for (auto const& job : w.jobs)
        for (auto const& name : job.*outputs) writers[name].push_back(job.name);
    for (auto const& job : w.jobs) {
        for (auto const& name : job.*inputs) {
            auto const it = writers.find(name);
            if (it == writers.end()) continue;
            for (auto const& writer : it->second) edges.add(job.name, writer);
        }
    }
}

// One cycle among the jobs Kahn's algorithm could not order, walking from the first of them
// (each of those waits for another of them): the cycle, its first job repeated at the end.
std::vector<std::size_t> find_cycle(std::vector<std::vector<std::size_t>> const& deps,
                                    std::vector<bool> const& ordered)
{
    std::size_t cur = 0;
    while (ordered[cur]) ++cur;
    std::vector<std::size_t> path;
    std::unordered_map<std::size_t, std::size_t> at;
    for (;;) {
        if (auto const it = at.find(cur); it != at.end()) {
            std::vector<std::size_t> cycle(path.begin() + static_cast<std::ptrdiff_t>(it->second),
                                           path.end());
            cycle.push_back(cur);
            return cycle;
        }
        at.emplace(cur, path.size());
        path.push_back(cur);
        for (std::size_t const d : deps[cur]) {
            if (!ordered[d]) {
                cur = d;
                break;
            }
        }
    }
}

// Kahn's algorithm over `edges`; returns which jobs got an order.
std::vector<bool> order_jobs(std::vector<std::vector<std::size_t>> const& deps)
{
    std::size_t const n = deps.size();
    std::vector<std::vector<std::size_t>> dependents(n);
    std::vector<std::size_t> waiting(n, 0);
    for (std::size_t j = 0; j < n; ++j) {
        waiting[j] = deps[j].size();
        for (std::size_t const d : deps[j]) dependents[d].push_back(j);
    }
    std::deque<std::size_t> ready;
    for (std::size_t j = 0; j < n; ++j)
        if (waiting[j] == 0) ready.push_back(j);
    std::vector<bool> ordered(n, false);
    while (!ready.empty()) {
        std::size_t const j = ready.front();
        ready.pop_front();
        ordered[j] = true;
        for (std::size_t const k : dependents[j])
            if (--waiting[k] == 0) ready.push_back(k);
    }
    return ordered;
}

}  // namespace

// Expanded jobs have distinct names (merge_by_name), so a pair can repeat only inside one job's
// own list: each list is deduplicated alone, and no set of every pair is built.
std::vector<job_edge> explicit_edges(expanded_workflow const& workflow)
{
    std::vector<job_edge> out;
    std::unordered_set<std::string_view> seen;
    for (auto const& job : workflow.jobs) {
        seen.clear();
        for (auto const& d : job.depends_on)
            if (seen.insert(d).second) out.push_back({job.name, d});
    }
    return out;
}

std::vector<job_edge> implied_edges(expanded_workflow const& workflow)
{
    edge_list edges;
    add_implied(edges, workflow, &expanded_job::input_files, &expanded_job::output_files);
    add_implied(edges, workflow, &expanded_job::input_user_data, &expanded_job::output_user_data);
    return edges.take();
}

std::vector<job_edge> union_edges(expanded_workflow const& workflow)
{
    auto explicit_pairs = explicit_edges(workflow);
    auto const implied = implied_edges(workflow);
    if (implied.empty()) return explicit_pairs;
    edge_list edges;
    for (auto const& e : explicit_pairs) edges.add(e.job, e.depends_on);
    for (auto const& e : implied) edges.add(e.job, e.depends_on);
    return edges.take();
}

namespace detail {

result<void> check_cycles(expanded_workflow const& workflow, workflow_spec const& spec)
{
    auto const& jobs = workflow.jobs;
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t j = 0; j < jobs.size(); ++j) index.emplace(jobs[j].name, j);
    std::vector<std::vector<std::size_t>> deps(jobs.size());
    for (auto const& e : union_edges(workflow))
        deps[index.at(e.job)].push_back(index.at(e.depends_on));
    auto const ordered = order_jobs(deps);
    if (std::find(ordered.begin(), ordered.end(), false) == ordered.end()) return {};
    auto const cycle = find_cycle(deps, ordered);
    std::unordered_set<std::string> explicit_pairs;
    for (auto const& e : explicit_edges(workflow))
        explicit_pairs.insert(concat({e.job, std::string_view("\0", 1), e.depends_on}));
    std::string path;
    bool only_explicit = true;
    for (std::size_t k = 0; k < cycle.size(); ++k) {
        path.append(concat({k ? " -> " : "", quoted(jobs[cycle[k]].name)}));
        if (k
            && !explicit_pairs.contains(
                concat({jobs[cycle[k - 1]].name, std::string_view("\0", 1), jobs[cycle[k]].name})))
            only_explicit = false;
    }
    auto const& first = jobs[cycle.front()];
    return error{
        concat({spec.jobs[first.source].where, ": jobs: dependency cycle ", path,
                " (each job waits for the next",
                only_explicit ? ")"
                              : "; some wait through files or user data, which Torc 0.10 "
                                "does not check, so these jobs would never become ready)"})};
}

}  // namespace detail

result<expanded_workflow> expand_workflow(workflow_spec const& spec)
{
    detail::warning_list warnings;
    for (auto const& w : spec.warnings) warnings.add(w);
    auto files = detail::expand_files(spec, warnings);
    if (!files) return files.error();
    auto user_data = detail::expand_user_data(spec, warnings);
    if (!user_data) return user_data.error();
    auto instances = detail::expand_job_templates(spec, warnings);
    if (!instances) return instances.error();
    auto const sources = detail::make_variable_sources(*files, *user_data);
    for (auto& i : *instances) detail::substitute_variables(i, sources, warnings);
    auto jobs = detail::link_jobs(std::move(*instances), spec, *files, *user_data, warnings);
    if (!jobs) return jobs.error();
    expanded_workflow out{std::move(*files), std::move(*user_data), std::move(*jobs), {}};
    if (auto checked = detail::check_cycles(out, spec); !checked) return checked.error();
    out.warnings = std::move(warnings.items);
    return out;
}

}  // namespace torcrun::core::spec
