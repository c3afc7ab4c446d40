// The rows of `torcrun allocations` and the counts of `torcrun status`.
#include "torcrun/cli/allocation_listing.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

namespace {

core::allocation_entry entry(std::int64_t id, std::string status)
{
    core::allocation_entry e;
    e.slurm_id = id;
    e.status = std::move(status);
    e.nodes = 2;
    e.walltime = "00:10:00";
    e.partition = "debug";
    e.scheduler = "work";
    return e;
}

core::slurm_job_facts facts(std::string state, std::string reason = "")
{
    auto const started = state == "PENDING" ? "" : "2026-12-02T09:00:05";
    return {std::move(state), std::move(reason), "n[1-2]", "2026-12-02T09:00:00", started, "", ""};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation_listing)

BOOST_AUTO_TEST_CASE(states_from_the_record_and_slurm)
{
    BOOST_TEST(core::allocation_row_of(entry(5, "pending")).state == "queued");
    auto started = entry(5, "pending");
    started.slurm = facts("RUNNING");
    BOOST_TEST(core::allocation_row_of(started).state == "running");
    BOOST_TEST(core::allocation_row_of(entry(5, "active")).state == "running");
    BOOST_TEST(core::allocation_row_of(entry(5, "complete")).state == "done");
    BOOST_TEST(core::allocation_row_of(entry(5, "canceled")).state == "cancelled");
    auto timeout = entry(5, "complete");
    timeout.end_reason = "slurm: TIMEOUT (TimeLimit)";
    BOOST_TEST(core::allocation_row_of(timeout).state == "failed");
    auto left = entry(5, "complete");
    left.end_reason = "worker left: the ready jobs need another allocation (exit 3)";
    BOOST_TEST(core::allocation_row_of(left).state == "done");
    auto cancelled = entry(5, "complete");
    cancelled.end_reason = "slurm: CANCELLED";
    BOOST_TEST(core::allocation_row_of(cancelled).state == "cancelled");
    auto refused = entry(0, "complete");
    refused.end_reason = "sbatch refused: sbatch /x.sh: exited with 1: invalid account";
    auto const r = core::allocation_row_of(refused);
    BOOST_TEST(r.state == "failed");
    BOOST_TEST(r.why == refused.end_reason);
    auto gone = entry(5, "active");
    gone.slurm = facts("NODE_FAIL");
    BOOST_TEST(core::allocation_row_of(gone).state == "failed");
    BOOST_TEST(core::allocation_row_of(gone).why == "slurm: NODE_FAIL");
}

BOOST_AUTO_TEST_CASE(shape_from_the_record_else_the_scheduler)
{
    auto e = entry(5, "pending");
    BOOST_TEST(core::allocation_row_of(e).shape == "2 nodes, 00:10:00, debug (scheduler work)");
    e.shape = "2 nodes x gpu:4, 00:23:00, debug";
    BOOST_TEST(core::allocation_row_of(e).shape == e.shape);
    auto queued = entry(6, "pending");
    queued.slurm = facts("PENDING", "Resources");
    auto const q = core::allocation_row_of(queued);
    BOOST_TEST(q.why == "waiting: Resources");
    BOOST_TEST(q.submitted == "2026-12-02T09:00:00");
    BOOST_TEST(q.started.empty());
}

BOOST_AUTO_TEST_CASE(id_ranges_compress_runs)
{
    BOOST_TEST(core::id_ranges({2, 3, 4, 5, 9, 11, 12}) == "2-5,9,11-12");
    BOOST_TEST(core::id_ranges({58}) == "58");
    BOOST_TEST(core::id_ranges({}).empty());
}

BOOST_AUTO_TEST_CASE(table_json_and_counts)
{
    auto a = entry(5, "complete");
    a.made_for = "2-41";
    a.node = "n[1-2]";
    a.end_reason = "slurm: COMPLETED";
    auto b = entry(6, "canceled");
    std::vector<core::allocation_row> const rows{core::allocation_row_of(a), core::allocation_row_of(b)};
    auto const table = core::format_allocation_table(rows);
    BOOST_TEST(table.find("SLURM_ID  STATE") == 0u, table);
    BOOST_TEST(table.find("5         done       2 nodes, 00:10:00, debug (scheduler work)  2-41  n[1-2]") != std::string::npos, table);
    auto const json = boost::json::serialize(core::allocations_to_json(rows));
    BOOST_TEST(json.find(R"("slurm_id":5,"state":"done")") != std::string::npos, json);
    auto const counts = core::allocation_counts(rows);
    BOOST_TEST(counts.at("done") == 1);
    BOOST_TEST(counts.at("cancelled") == 1);
    BOOST_TEST(!counts.contains("queued"));
}

BOOST_AUTO_TEST_SUITE_END()
