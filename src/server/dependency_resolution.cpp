// initialize_jobs works on job indices with adjacency lists; resolve_completions works in
// rounds (all dependents of the current frontier, each judged once per round), so a fan-in job
// with many blockers is read once per round, not once per finished blocker.
#include "torcrun/server/dependency_resolution.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_set>

namespace torcrun::core {
namespace {

// Edges of the initialize pass by index: who waits for whom, both directions.
struct index_graph {
    std::vector<std::vector<std::size_t>> dependents;
    std::vector<std::vector<std::size_t>> blockers;
};

index_graph index_edges(std::span<job_node const> jobs, std::span<dependency_edge const> edges)
{
    std::unordered_map<std::int64_t, std::size_t> index;
    for (std::size_t i = 0; i < jobs.size(); ++i) index.emplace(jobs[i].id, i);
    index_graph g{std::vector<std::vector<std::size_t>>(jobs.size()),
                  std::vector<std::vector<std::size_t>>(jobs.size())};
    for (auto const& e : edges) {
        auto const waiter = index.find(e.job_id);
        auto const blocker = index.find(e.depends_on_job_id);
        if (waiter == index.end() || blocker == index.end()) continue;
        g.dependents[blocker->second].push_back(waiter->second);
        g.blockers[waiter->second].push_back(blocker->second);
    }
    return g;
}

// The jobs reachable downstream from `seeds` (seeds included).
std::vector<bool> closure(std::vector<std::size_t> seeds, index_graph const& g)
{
    std::vector<bool> reached(g.dependents.size(), false);
    for (auto const s : seeds) reached[s] = true;
    while (!seeds.empty()) {
        auto const node = seeds.back();
        seeds.pop_back();
        for (auto const d : g.dependents[node]) {
            if (!reached[d]) {
                reached[d] = true;
                seeds.push_back(d);
            }
        }
    }
    return reached;
}

bool kept_when_released(job_status s)
{
    return s == job_status::completed || s == job_status::failed || s == job_status::canceled;
}

// Jobs that will not end in a releasing status: everything in scope that runs (again), jobs
// out of scope that have not finished, and kept jobs downstream of either.
std::vector<bool> holding_back(std::vector<job_status> const& start,
                               std::vector<bool> const& in_scope, index_graph const& g)
{
    auto const n = start.size();
    std::vector<bool> holds(n, false);
    std::vector<std::size_t> queue;
    for (std::size_t i = 0; i < n; ++i) {
        holds[i] = in_scope[i] ? !kept_when_released(start[i]) : !satisfies_dependency(start[i]);
        if (holds[i]) queue.push_back(i);
    }
    while (!queue.empty()) {
        auto const node = queue.back();
        queue.pop_back();
        for (auto const d : g.dependents[node]) {
            if (in_scope[d] && !holds[d]) {
                holds[d] = true;
                queue.push_back(d);
            }
        }
    }
    return holds;
}

job_status overlaid(job_node const& job,
                    std::unordered_map<std::int64_t, job_status> const& decided)
{
    auto const it = decided.find(job.id);
    return it == decided.end() ? job.status : it->second;
}

}  // namespace

std::vector<status_update> initialize_jobs(std::span<job_node const> jobs,
                                           std::span<dependency_edge const> edges,
                                           bool only_uninitialized)
{
    auto const g = index_edges(jobs, edges);
    auto const n = jobs.size();
    std::vector<bool> in_scope(n, true);
    if (only_uninitialized) {
        std::vector<std::size_t> seeds;
        for (std::size_t i = 0; i < n; ++i) {
            if (jobs[i].status == job_status::uninitialized) seeds.push_back(i);
        }
        in_scope = closure(std::move(seeds), g);
    }
    std::vector<job_status> start(n);
    for (std::size_t i = 0; i < n; ++i) {
        bool const reset =
            only_uninitialized && in_scope[i] && jobs[i].status != job_status::disabled;
        start[i] = reset ? job_status::uninitialized : jobs[i].status;
    }
    auto const holds_back = holding_back(start, in_scope, g);

    std::vector<status_update> updates;
    for (std::size_t i = 0; i < n; ++i) {
        if (!in_scope[i] || start[i] == job_status::disabled) continue;
        bool const waits = std::any_of(g.blockers[i].begin(), g.blockers[i].end(),
                                       [&](std::size_t b) { return holds_back[b]; });
        job_status const to = waits                          ? job_status::blocked
                              : kept_when_released(start[i]) ? start[i]
                                                             : job_status::ready;
        if (to != jobs[i].status) updates.push_back({jobs[i].id, jobs[i].status, to});
    }
    std::sort(updates.begin(), updates.end(),
              [](auto const& a, auto const& b) { return a.job_id < b.job_id; });
    return updates;
}

unblock_outcome resolve_completions(std::span<std::int64_t const> finished, dependency_view& view)
{
    unblock_outcome out;
    std::unordered_map<std::int64_t, job_status> decided;
    std::set<std::int64_t> frontier(finished.begin(), finished.end());
    while (!frontier.empty()) {
        std::map<std::int64_t, job_node> candidates;
        for (auto const id : frontier) {
            for (auto const& d : view.dependents_of(id)) {
                if (d.status == job_status::blocked && !decided.contains(d.id)) {
                    candidates.emplace(d.id, d);
                }
            }
        }
        frontier.clear();
        for (auto const& [id, job] : candidates) {
            bool released = true;
            bool failure = false;
            for (auto const& b : view.blockers_of(id)) {
                auto const s = overlaid(b, decided);
                released = released && satisfies_dependency(s);
                failure = failure || is_blocking_failure(s);
            }
            if (!released) continue;
            if (failure && job.cancel_on_blocking_job_failure) {
                decided[id] = job_status::canceled;
                out.canceled.push_back(id);
                frontier.insert(id);
            } else {
                decided[id] = job_status::ready;
                out.ready.push_back(id);
            }
        }
    }
    std::sort(out.ready.begin(), out.ready.end());
    std::sort(out.canceled.begin(), out.canceled.end());
    return out;
}

std::vector<std::int64_t> downstream_jobs(std::span<std::int64_t const> roots,
                                          dependency_view& view)
{
    std::unordered_set<std::int64_t> seen;
    std::set<std::int64_t> found;
    std::deque<std::int64_t> queue(roots.begin(), roots.end());
    while (!queue.empty()) {
        auto const id = queue.front();
        queue.pop_front();
        for (auto const& d : view.dependents_of(id)) {
            if (!seen.insert(d.id).second) continue;
            if (d.status != job_status::disabled) found.insert(d.id);
            queue.push_back(d.id);
        }
    }
    return {found.begin(), found.end()};
}

graph_view::graph_view(std::span<job_node const> jobs, std::span<dependency_edge const> edges)
{
    for (auto const& job : jobs) jobs_.emplace(job.id, job);
    for (auto const& e : edges) {
        if (!jobs_.contains(e.job_id) || !jobs_.contains(e.depends_on_job_id)) continue;
        dependents_[e.depends_on_job_id].push_back(e.job_id);
        blockers_[e.job_id].push_back(e.depends_on_job_id);
    }
}

std::vector<job_node> graph_view::dependents_of(std::int64_t job_id)
{
    ++reads_;
    std::vector<job_node> out;
    if (auto it = dependents_.find(job_id); it != dependents_.end()) {
        for (auto const id : it->second) out.push_back(jobs_.at(id));
    }
    return out;
}

std::vector<job_node> graph_view::blockers_of(std::int64_t job_id)
{
    ++reads_;
    std::vector<job_node> out;
    if (auto it = blockers_.find(job_id); it != blockers_.end()) {
        for (auto const id : it->second) out.push_back(jobs_.at(id));
    }
    return out;
}

void graph_view::set_status(std::int64_t job_id, job_status s)
{
    if (auto it = jobs_.find(job_id); it != jobs_.end()) it->second.status = s;
}

}  // namespace torcrun::core
