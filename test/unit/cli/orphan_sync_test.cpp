// `workflows sync-status`'s decision (Torc v0.25.1's orphan cleanup): which allocations are
// gone by squeue's word, which jobs fail, and the texts printed.
#include "torcrun/cli/orphan_sync.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(orphan_sync)

struct alive_case {
    std::string state;
    bool alive;
};
std::ostream& operator<<(std::ostream& os, alive_case const& c) { return os << c.state; }

std::vector<alive_case> const alive_cases{
    {"PENDING", true},    {"CONFIGURING", true}, {"RUNNING", true},   {"COMPLETING", false},
    {"COMPLETED", false}, {"CANCELLED", false},  {"TIMEOUT", false},  {"NODE_FAIL", false},
    {"", false},          {"running", false},
};

BOOST_DATA_TEST_CASE(squeue_states, bdata::make(alive_cases), c)
{
    BOOST_TEST(core::slurm_job_alive(c.state) == c.alive);
}

// Allocation records 1 (Slurm job 11, gone), 2 (Slurm job 12, running), 3 (pending, gone),
// 4 (pending, still queued); nodes 7 (a Torc runner's: by record) and 8 (a torcrun worker's: by
// Slurm job) of record 1, 9 of record 2, 10 of none (a local worker).
std::vector<core::sync_allocation> const allocations{
    {1, 11, "active", ""},
    {2, 12, "active", "RUNNING"},
    {3, 13, "pending", ""},
    {4, 14, "pending", "PENDING"},
    {5, 15, "complete", ""},
};
std::vector<core::sync_node> const nodes{{7, 1, 0}, {8, 0, 11}, {9, 2, 0}, {10, 0, 0}};
std::vector<core::sync_job> const jobs{
    {100, "a", "running", 1, 7}, {101, "b", "running", 2, 8},  {102, "c", "running", 1, 9},
    {103, "d", "pending", 1, 7}, {104, "e", "completed", 1, 7}, {105, "f", "running", 1, 10},
};

BOOST_AUTO_TEST_CASE(gone_allocations_fail_their_nodes_jobs)
{
    auto const sync = core::plan_status_sync(allocations, nodes, jobs);
    BOOST_TEST_REQUIRE(sync.failed.size() == 3u);
    BOOST_TEST(sync.failed[0].job_id == 100);
    BOOST_TEST(sync.failed[0].compute_node_id == 7);
    BOOST_TEST(sync.failed[0].reason == "Slurm job 11 no longer running");
    BOOST_TEST(sync.failed[1].job_id == 103);
    BOOST_TEST(sync.failed[2].job_id == 101);
    BOOST_TEST(sync.failed[2].attempt_id == 2);
    BOOST_TEST(sync.failed[2].compute_node_id == 8);
    BOOST_TEST((sync.inactive_nodes == std::vector<std::int64_t>{7, 8}));
    BOOST_TEST((sync.completed_allocations == std::vector<std::int64_t>{1}));
    BOOST_TEST((sync.dead_pending == std::vector<std::int64_t>{3}));
}

BOOST_AUTO_TEST_CASE(nothing_gone_nothing_changes)
{
    auto const sync = core::plan_status_sync({{2, 12, "active", "RUNNING"}}, nodes, jobs);
    BOOST_TEST(sync.failed.empty());
    BOOST_TEST(sync.inactive_nodes.empty());
    BOOST_TEST(sync.completed_allocations.empty());
    BOOST_TEST(sync.dead_pending.empty());
    BOOST_TEST(core::render_sync_text(sync, false) == "No orphaned jobs found\n");
    BOOST_TEST(core::render_sync_json(sync) ==
               "{\n  \"slurm_jobs_failed\": 0,\n  \"pending_allocations_cleaned\": 0,\n"
               "  \"running_jobs_failed\": 0\n}");
}

BOOST_AUTO_TEST_CASE(texts_as_torc_prints_them)
{
    auto const sync = core::plan_status_sync(allocations, nodes, jobs);
    BOOST_TEST(core::render_sync_text(sync, false) ==
               "Cleaned up orphaned jobs:\n"
               "  - 3 job(s) from terminated Slurm allocations\n"
               "  - 1 pending allocation(s) that no longer exist in Slurm\n"
               "\nAffected jobs:\n"
               "  - Job 100 (a): Allocation terminated (Slurm job 11)\n"
               "  - Job 103 (d): Allocation terminated (Slurm job 11)\n"
               "  - Job 101 (b): Allocation terminated (Slurm job 11)\n");
    BOOST_TEST(core::render_sync_text(sync, true).starts_with("Would clean up orphaned jobs:\n"));
    auto const one = core::plan_status_sync({{1, 11, "active", "CANCELLED"}}, {{7, 0, 11}},
                                            {{100, "a \"q\"", "running", 1, 7}});
    BOOST_TEST(core::render_sync_json(one) ==
               "{\n  \"slurm_jobs_failed\": 1,\n  \"pending_allocations_cleaned\": 0,\n"
               "  \"running_jobs_failed\": 0,\n  \"failed_job_details\": [\n    {\n"
               "      \"job_id\": 100,\n      \"job_name\": \"a \\\"q\\\"\",\n"
               "      \"reason\": \"Slurm job 11 no longer running\",\n"
               "      \"slurm_job_id\": \"11\"\n    }\n  ]\n}");
}

BOOST_AUTO_TEST_SUITE_END()
