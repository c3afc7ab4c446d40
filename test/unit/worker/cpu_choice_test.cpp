// Which CPUs a GPU job is bound to, on made-up topologies: two NUMA nodes of 8 CPUs, GPUs on
// either; near CPUs first while free, the rest from anywhere with the reason, unknown topology,
// and not bound when fewer CPUs are free than the job holds.
#include "torcrun/worker/cpu_choice.hpp"

#include <boost/test/unit_test.hpp>

#include <numeric>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(cpu_choice)

std::vector<unsigned> range(unsigned from, unsigned to)  // [from, to]
{
    std::vector<unsigned> v(to - from + 1);
    std::iota(v.begin(), v.end(), from);
    return v;
}

BOOST_AUTO_TEST_CASE(near_cpus_first)
{
    auto const all = range(0, 15);
    auto const node1 = range(8, 15);
    auto const c = core::choose_cpus(all, {}, node1, 4);
    BOOST_TEST(c.cpus == range(8, 11), boost::test_tools::per_element());
    BOOST_TEST(c.near);
    BOOST_TEST(c.note.empty());
    // The next GPU job on node 1 packs after the first.
    auto const next = core::choose_cpus(all, {8, 9, 10, 11}, node1, 4);
    BOOST_TEST(next.cpus == range(12, 15), boost::test_tools::per_element());
    BOOST_TEST(next.near);
}

BOOST_AUTO_TEST_CASE(the_rest_from_anywhere_said_why)
{
    auto const all = range(0, 15);
    std::set<unsigned> busy;
    for (auto c : range(8, 13)) busy.insert(c);
    auto const c = core::choose_cpus(all, busy, range(8, 15), 4);
    std::vector<unsigned> const want{0, 1, 14, 15};
    BOOST_TEST(c.cpus == want, boost::test_tools::per_element());
    BOOST_TEST(!c.near);
    BOOST_TEST(c.note
               == "2 of the 4 CPUs are near its GPUs (CPUs 8-15; the others are taken); "
                  "bound to CPUs 0-1,14-15");
}

BOOST_AUTO_TEST_CASE(unknown_topology_binds_anywhere)
{
    auto const c = core::choose_cpus(range(0, 3), {1}, {}, 2);
    std::vector<unsigned> const want{0, 2};
    BOOST_TEST(c.cpus == want, boost::test_tools::per_element());
    BOOST_TEST(!c.near);
    BOOST_TEST(c.note == "the CPUs near its GPUs are not known; bound to CPUs 0,2");
}

BOOST_AUTO_TEST_CASE(near_cpus_outside_the_workers_set_do_not_count)
{
    // The worker runs on CPUs 0-1 (its affinity), its GPU hangs off node 1 (CPUs 8-15).
    auto const c = core::choose_cpus(range(0, 1), {}, range(8, 15), 1);
    BOOST_TEST(c.cpus == std::vector<unsigned>{0}, boost::test_tools::per_element());
    BOOST_TEST(!c.near);
}

BOOST_AUTO_TEST_CASE(not_bound_when_too_few_are_free)
{
    auto const c = core::choose_cpus(range(0, 1), {0}, range(0, 1), 2);
    BOOST_TEST(c.cpus.empty());
    BOOST_TEST(c.note == "not bound: 1 of the worker's CPUs are free, it holds 2");
    BOOST_TEST(core::choose_cpus(range(0, 1), {}, {}, 0).cpus.empty());
}

BOOST_AUTO_TEST_SUITE_END()
