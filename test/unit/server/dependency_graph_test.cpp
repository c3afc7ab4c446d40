// Implied edges from files and user data (docs/TORC-COMPATIBILITY.md §4.7, with its diamond), Kahn
// levels, and the cycle named in a spec error.
#include "torcrun/server/dependency_graph.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using core::data_link;
using core::dependency_edge;
using core::index_edge;

namespace {

struct implied_case {
    std::string name;
    std::vector<data_link> inputs;
    std::vector<data_link> outputs;
    std::vector<dependency_edge> existing;
    std::vector<dependency_edge> added;
};
std::ostream& operator<<(std::ostream& os, implied_case const& c) { return os << c.name; }

// Diamond: preprocess(1) writes f2,f3; work1(2) f2->f4; work2(3) f3->f5; postprocess(4) f4,f5->f6.
std::vector<implied_case> const implied_cases{
    {"diamond", {{1, 11}, {2, 12}, {3, 13}, {4, 14}, {4, 15}},
     {{1, 12}, {1, 13}, {2, 14}, {3, 15}, {4, 16}}, {},
     {{2, 1}, {3, 1}, {4, 2}, {4, 3}}},
    {"a consumer waits for every producer", {{5, 1}}, {{1, 1}, {2, 1}, {3, 1}}, {},
     {{5, 1}, {5, 2}, {5, 3}}},
    {"reading and writing one file is a self-edge", {{7, 1}}, {{7, 1}}, {}, {{7, 7}}},
    {"files nobody writes add nothing", {{1, 1}, {2, 2}}, {{3, 9}}, {}, {}},
    {"explicit edges are not repeated", {{2, 1}, {3, 1}}, {{1, 1}}, {{2, 1}}, {{3, 1}}},
    {"repeated links give one edge", {{2, 1}, {2, 1}, {2, 5}}, {{1, 1}, {1, 5}}, {}, {{2, 1}}},
    {"sorted by waiting job, then blocker", {{9, 1}, {4, 1}}, {{8, 1}, {3, 1}}, {},
     {{4, 3}, {4, 8}, {9, 3}, {9, 8}}},
    {"nothing at all", {}, {}, {}, {}},
};

struct levels_case {
    std::string name;
    std::size_t nodes;
    std::vector<index_edge> edges;
    core::topological_order order;
    std::vector<std::size_t> cycle;
};
std::ostream& operator<<(std::ostream& os, levels_case const& c) { return os << c.name; }

std::vector<levels_case> const levels_cases{
    {"no edges: one level", 3, {}, {{{0, 1, 2}}, {}}, {}},
    {"no nodes", 0, {}, {{}, {}}, {}},
    {"chain", 3, {{2, 1}, {1, 0}}, {{{0}, {1}, {2}}, {}}, {}},
    {"diamond", 4, {{1, 0}, {2, 0}, {3, 1}, {3, 2}}, {{{0}, {1, 2}, {3}}, {}}, {}},
    {"repeated edge", 2, {{1, 0}, {1, 0}}, {{{0}, {1}}, {}}, {}},
    {"self-dependency", 2, {{1, 1}}, {{{0}}, {1}}, {1}},
    {"two-cycle and a job behind it", 4, {{1, 2}, {2, 1}, {3, 2}}, {{{0}}, {1, 2, 3}}, {1, 2}},
    {"three-cycle starts at its smallest index", 5, {{4, 2}, {2, 3}, {3, 4}, {0, 1}},
     {{{1}, {0}}, {2, 3, 4}}, {2, 3, 4}},
    {"cycle reached from an acyclic part", 4, {{0, 1}, {1, 2}, {2, 3}, {3, 1}},
     {{}, {0, 1, 2, 3}}, {1, 2, 3}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(dependency_graph)

BOOST_DATA_TEST_CASE(implied_edges_as_insert_or_ignore, bdata::make(implied_cases), c)
{
    auto const added = core::implied_edges(c.inputs, c.outputs, c.existing);
    BOOST_TEST(added == c.added, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(user_data_after_files_skips_the_file_edges)
{
    std::vector<dependency_edge> existing{{3, 1}};
    auto const files = core::implied_edges(std::vector<data_link>{{2, 1}},
                                           std::vector<data_link>{{1, 1}}, existing);
    existing.insert(existing.end(), files.begin(), files.end());
    auto const user_data = core::implied_edges(std::vector<data_link>{{2, 1}, {3, 2}},
                                               std::vector<data_link>{{1, 1}, {1, 2}}, existing);
    BOOST_TEST(files == (std::vector<dependency_edge>{{2, 1}}), boost::test_tools::per_element());
    BOOST_TEST(user_data.empty());
}

BOOST_DATA_TEST_CASE(kahn_levels_and_one_cycle, bdata::make(levels_cases), c)
{
    auto const order = core::topological_levels(c.nodes, c.edges);
    BOOST_TEST_REQUIRE(order.levels.size() == c.order.levels.size());
    for (std::size_t i = 0; i < order.levels.size(); ++i) {
        BOOST_TEST(order.levels[i] == c.order.levels[i], boost::test_tools::per_element());
    }
    BOOST_TEST(order.unplaced == c.order.unplaced, boost::test_tools::per_element());
    auto const cycle = core::find_cycle(c.nodes, c.edges);
    BOOST_TEST(cycle == c.cycle, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_long_chain_does_not_exhaust_the_stack)
{
    std::size_t const n = 200'000;
    std::vector<index_edge> edges;
    for (std::size_t i = 1; i < n; ++i) edges.push_back({i - 1, i});  // 0 waits for 1 ...
    edges.push_back({n - 1, 0});
    auto const cycle = core::find_cycle(n, edges);
    BOOST_TEST(cycle.size() == n);
    BOOST_TEST(cycle.front() == 0u);
    edges.pop_back();
    BOOST_TEST(core::find_cycle(n, edges).empty());
    BOOST_TEST(core::topological_levels(n, edges).levels.size() == n);
}

BOOST_AUTO_TEST_SUITE_END()
