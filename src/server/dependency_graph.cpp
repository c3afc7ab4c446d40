// Graph helpers over plain vectors: adjacency lists are built once per call (compressed, by node
// index), and the cycle search is iterative so a 100,000-job chain cannot overflow the stack.
#include "torcrun/server/dependency_graph.hpp"

#include <boost/assert.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace torcrun::core {
namespace {

// For each node, the nodes it depends on (direction `from -> to` of the edge list).
struct adjacency {
    std::vector<std::size_t> start;  // node_count + 1 offsets into `to`
    std::vector<std::size_t> to;
};

adjacency build(std::size_t node_count, std::span<index_edge const> edges, bool forward)
{
    adjacency a{std::vector<std::size_t>(node_count + 1, 0),
                std::vector<std::size_t>(edges.size())};
    for (auto const& e : edges) {
        BOOST_ASSERT(e.node < node_count && e.depends_on < node_count);
        ++a.start[(forward ? e.node : e.depends_on) + 1];
    }
    for (std::size_t i = 0; i < node_count; ++i) a.start[i + 1] += a.start[i];
    std::vector<std::size_t> fill(a.start.begin(), a.start.end() - 1);
    for (auto const& e : edges) {
        auto const from = forward ? e.node : e.depends_on;
        a.to[fill[from]++] = forward ? e.depends_on : e.node;
    }
    return a;
}

}  // namespace

std::vector<dependency_edge> implied_edges(std::span<data_link const> inputs,
                                           std::span<data_link const> outputs,
                                           std::span<dependency_edge const> existing)
{
    // The candidates first, then the existing edges taken out of them: a workflow without data
    // links (or few) costs nothing per existing edge beyond one lookup, and none at all when
    // nothing is produced or consumed.
    if (inputs.empty() || outputs.empty()) return {};
    std::map<std::int64_t, std::vector<std::int64_t>> producers;
    for (auto const& link : outputs) producers[link.data_id].push_back(link.job_id);
    std::set<dependency_edge> added;
    for (auto const& link : inputs) {
        auto const it = producers.find(link.data_id);
        if (it == producers.end()) continue;
        for (auto const producer : it->second) added.insert({link.job_id, producer});
    }
    if (added.empty()) return {};
    for (auto const& edge : existing) added.erase(edge);
    return {added.begin(), added.end()};
}

topological_order topological_levels(std::size_t node_count, std::span<index_edge const> edges)
{
    auto const dependents = build(node_count, edges, false);
    std::vector<std::size_t> waiting(node_count, 0);
    for (auto const& e : edges) ++waiting[e.node];

    topological_order order;
    std::vector<std::size_t> level;
    for (std::size_t i = 0; i < node_count; ++i) {
        if (waiting[i] == 0) level.push_back(i);
    }
    std::size_t placed = 0;
    while (!level.empty()) {
        std::vector<std::size_t> next;
        for (auto const node : level) {
            for (auto k = dependents.start[node]; k < dependents.start[node + 1]; ++k) {
                if (--waiting[dependents.to[k]] == 0) next.push_back(dependents.to[k]);
            }
        }
        placed += level.size();
        std::sort(next.begin(), next.end());
        order.levels.push_back(std::move(level));
        level = std::move(next);
    }
    if (placed < node_count) {
        for (std::size_t i = 0; i < node_count; ++i) {
            if (waiting[i] != 0) order.unplaced.push_back(i);
        }
    }
    return order;
}

std::vector<std::size_t> find_cycle(std::size_t node_count, std::span<index_edge const> edges)
{
    auto const deps = build(node_count, edges, true);
    enum class mark : unsigned char { fresh, on_path, done };
    std::vector<mark> marks(node_count, mark::fresh);
    std::vector<std::size_t> path;    // the DFS path, root first
    std::vector<std::size_t> cursor;  // next edge to follow, per path entry
    for (std::size_t root = 0; root < node_count; ++root) {
        if (marks[root] != mark::fresh) continue;
        path.assign(1, root);
        cursor.assign(1, deps.start[root]);
        marks[root] = mark::on_path;
        while (!path.empty()) {
            auto const node = path.back();
            if (cursor.back() == deps.start[node + 1]) {
                marks[node] = mark::done;
                path.pop_back();
                cursor.pop_back();
                continue;
            }
            auto const next = deps.to[cursor.back()++];
            if (marks[next] == mark::on_path) {
                std::vector<std::size_t> cycle(std::find(path.begin(), path.end(), next),
                                               path.end());
                std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()),
                            cycle.end());
                return cycle;
            }
            if (marks[next] == mark::fresh) {
                marks[next] = mark::on_path;
                path.push_back(next);
                cursor.push_back(deps.start[next]);
            }
        }
    }
    return {};
}

}  // namespace torcrun::core
