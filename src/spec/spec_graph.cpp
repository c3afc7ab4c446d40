// expand_workflow's driver and the job graph: explicit and implied edges
// (docs/TORC-COMPATIBILITY.md §4.7) and the cycle check over both. Torc 0.10 checks only explicit
// edges; a cycle through files leaves its jobs blocked forever there, so torcrun refuses it too.
// The graph is worked on as job indices, so a dense fan-in costs one hash lookup per edge; the
// implied edges are counted against the limit on edges (spec_limits.hpp) as they are found.
#include "spec_expand.hpp"

#include "message_text.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <unordered_map>
#include <unordered_set>

namespace torcrun::core::spec {

namespace {

struct index_edge {
    std::size_t job = 0;
    std::size_t depends_on = 0;
};

using name_index = std::unordered_map<std::string_view, std::size_t>;

name_index index_jobs(std::vector<expanded_job> const& jobs)
{
    name_index index;
    index.reserve(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) index.emplace(jobs[j].name, j);
    return index;
}

std::uint64_t pair_key(std::size_t job, std::size_t depends_on, std::size_t jobs)
{
    return static_cast<std::uint64_t>(job) * jobs + depends_on;
}

// The explicit edges as indices: each job's depends_on names distinct jobs (expand_workflow's
// lists hold distinct names), so the pairs are distinct.
std::vector<index_edge> explicit_pairs(expanded_workflow const& w, name_index const& index)
{
    std::vector<index_edge> out;
    for (std::size_t j = 0; j < w.jobs.size(); ++j)
        for (auto const& d : w.jobs[j].depends_on) out.push_back({j, index.at(d)});
    return out;
}

// The implied edges: distinct pairs in reader order, then list order, then writer order, files
// before user data. Stops after the reader that takes their count past `limit`, whose index it
// then returns as `over`.
struct implied_result {
    std::vector<index_edge> edges;
    std::optional<std::size_t> over;
};

// Who writes each file (or user data entry), by job index.
using writer_map = std::unordered_map<std::string_view, std::vector<std::size_t>>;

writer_map writers_of(std::vector<expanded_job> const& jobs,
                      std::vector<std::string> expanded_job::*outputs)
{
    writer_map out;
    for (std::size_t j = 0; j < jobs.size(); ++j)
        for (auto const& name : jobs[j].*outputs) out[name].push_back(j);
    return out;
}

// Calls `f` with every writer of what `inputs` lists (repeats included).
template <class F>
void for_each_writer(std::vector<std::string> const& inputs, writer_map const& writers, F&& f)
{
    for (auto const& name : inputs) {
        if (auto const it = writers.find(name); it != writers.end())
            for (std::size_t const writer : it->second) f(writer);
    }
}

// Repeats are dropped per reader: a writer is marked with the reader it was added for. The
// user data pass marks the reader's file writers again first, so a pair already made through
// a file is not made twice.
implied_result implied_pairs(expanded_workflow const& w, std::size_t limit)
{
    auto const& jobs = w.jobs;
    auto const file_writers = writers_of(jobs, &expanded_job::output_files);
    auto const data_writers = writers_of(jobs, &expanded_job::output_user_data);
    constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    implied_result out;
    for (int pass = 0; pass < 2; ++pass) {
        auto const& writers = pass == 0 ? file_writers : data_writers;
        if (writers.empty()) continue;
        std::vector<std::size_t> added_for(jobs.size(), none);
        for (std::size_t r = 0; r < jobs.size(); ++r) {
            auto const add = [&](std::size_t writer) {
                if (std::exchange(added_for[writer], r) != r) out.edges.push_back({r, writer});
            };
            if (pass == 1) {
                if (jobs[r].input_user_data.empty()) continue;
                for_each_writer(jobs[r].input_files, file_writers,
                                [&](std::size_t writer) { added_for[writer] = r; });
                for_each_writer(jobs[r].input_user_data, data_writers, add);
            } else {
                for_each_writer(jobs[r].input_files, file_writers, add);
            }
            if (out.edges.size() > limit) {
                out.over = r;
                return out;
            }
        }
    }
    return out;
}

std::vector<job_edge> named(std::vector<index_edge> const& edges,
                            std::vector<expanded_job> const& jobs)
{
    std::vector<job_edge> out;
    out.reserve(edges.size());
    for (auto const& e : edges) out.push_back({jobs[e.job].name, jobs[e.depends_on].name});
    return out;
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

// Kahn's algorithm over `deps` (a pair listed twice is waited for twice, which orders the same);
// returns which jobs got an order.
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

std::size_t explicit_count(expanded_workflow const& w)
{
    std::size_t n = 0;
    for (auto const& job : w.jobs) n += job.depends_on.size();
    return n;
}

}  // namespace

std::vector<job_edge> explicit_edges(expanded_workflow const& workflow)
{
    std::vector<job_edge> out;
    out.reserve(explicit_count(workflow));
    for (auto const& job : workflow.jobs)
        for (auto const& d : job.depends_on) out.push_back({job.name, d});
    return out;
}

std::vector<job_edge> implied_edges(expanded_workflow const& workflow)
{
    return named(implied_pairs(workflow, std::numeric_limits<std::size_t>::max()).edges,
                 workflow.jobs);
}

namespace detail {

result<void> check_graph(expanded_workflow const& workflow, workflow_spec const& spec,
                         std::size_t max_edges)
{
    auto const& jobs = workflow.jobs;
    std::size_t const explicit_total = explicit_count(workflow);
    // Merging same-named expansions only removes explicit edges, so this cannot wrap.
    auto const implied = implied_pairs(workflow, max_edges - explicit_total);
    if (implied.over) {
        auto const& reader = jobs[*implied.over];
        auto const& t = spec.jobs[reader.source];
        std::string const implied_total = std::to_string(implied.edges.size());
        return error{concat(
            {instance_prefix(t.where, "jobs", reader.source, t.name, reader.name),
             "the writers of its input files and user data bring the spec to ",
             std::to_string(explicit_total + implied.edges.size()), " dependency edges (",
             std::to_string(explicit_total), " explicit, ", implied_total,
             " implied so far), past torcrun's limit of ", std::to_string(max_edges)})};
    }
    auto const index = index_jobs(jobs);
    std::vector<std::vector<std::size_t>> deps(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        deps[j].reserve(jobs[j].depends_on.size());
        for (auto const& d : jobs[j].depends_on) deps[j].push_back(index.at(d));
    }
    for (auto const& e : implied.edges) deps[e.job].push_back(e.depends_on);
    auto const ordered = order_jobs(deps);
    if (std::find(ordered.begin(), ordered.end(), false) == ordered.end()) return {};
    auto const cycle = find_cycle(deps, ordered);
    std::unordered_set<std::uint64_t> explicit_keys;
    for (auto const& e : explicit_pairs(workflow, index))
        explicit_keys.insert(pair_key(e.job, e.depends_on, jobs.size()));
    std::string path;
    bool only_explicit = true;
    for (std::size_t k = 0; k < cycle.size(); ++k) {
        path.append(concat({k ? " -> " : "", quoted(jobs[cycle[k]].name)}));
        if (k && !explicit_keys.contains(pair_key(cycle[k - 1], cycle[k], jobs.size())))
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

result<expanded_workflow> expand_workflow(workflow_spec const& spec, expansion_limits const& limits)
{
    detail::warning_list warnings;
    warnings.compare_with_0_10 = spec.newer_form.empty();
    for (auto const& w : spec.warnings) warnings.add(w);
    if (auto totals = detail::check_totals(spec, limits); !totals) return totals.error();
    auto files = detail::expand_files(spec, warnings);
    if (!files) return files.error();
    auto user_data = detail::expand_user_data(spec, warnings);
    if (!user_data) return user_data.error();
    auto instances = detail::expand_job_templates(spec, warnings);
    if (!instances) return instances.error();
    auto sources = detail::make_variable_sources(*files, *user_data);
    for (auto const& d : spec.datasets) sources.dataset_paths.emplace(d.name, d.path);
    for (auto& i : *instances) detail::substitute_variables(i, sources, warnings);
    auto jobs = detail::link_jobs(std::move(*instances), spec, *files, *user_data, limits.edges,
                                  warnings);
    if (!jobs) return jobs.error();
    if (auto checked = detail::check_dataset_names(*jobs, spec); !checked) return checked.error();
    expanded_workflow out{std::move(*files), std::move(*user_data), std::move(*jobs), {}};
    if (auto checked = detail::check_graph(out, spec, limits.edges); !checked)
        return checked.error();
    out.warnings = std::move(warnings.items);
    return out;
}

}  // namespace torcrun::core::spec
