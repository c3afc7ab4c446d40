// GET /workflows/{id}/status for both contracts: the object verbatim (v0.10's keys and 0.23's in
// one), the optional keys only when they mean something, and the walltime the allocations have
// left from their records.
#include "torcrun/server/workflow_status_answer.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;
using st = core::job_status;

namespace {

core::workflow_summary summary()
{
    core::workflow_summary s;
    s.workflow_id = 4;
    s.workflow_name = "w \"1\"";
    s.workflow_user = "alice";
    s.flags = {2, false, false, false};
    s.counts[st::ready] = 3;
    s.counts[st::completed] = 5;
    s.counts[st::pending_failed] = 1;
    s.total_exec_time_minutes = 12.5;
    s.active_compute_nodes = 2;
    s.pending_scheduled_nodes = 1;
    return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(workflow_status_answer)

BOOST_AUTO_TEST_CASE(both_contracts_in_one_object)
{
    BOOST_TEST(core::encode_workflow_status(summary()) ==
               R"({"id":4,"is_canceled":false,"is_archived":false,"run_id":2,)"
               R"("has_detected_need_to_run_completion_script":false,)"
               R"("workflow_id":4,"workflow_name":"w \"1\"","workflow_user":"alice","total_jobs":9,)"
               R"("jobs_by_status":{"uninitialized":0,"blocked":0,"ready":3,"pending":0,)"
               R"("running":0,"completed":5,"failed":0,"canceled":0,"terminated":0,"disabled":0,)"
               R"("pending_failed":1},"total_exec_time_minutes":12.5,"active_compute_nodes":2,)"
               R"("pending_scheduled_nodes":1,"active_scheduled_nodes":0,"is_complete":false,)"
               R"("runtime_blocked_ready_jobs":0})");
}

BOOST_AUTO_TEST_CASE(optional_keys_when_meaningful)
{
    auto s = summary();
    s.flags.is_canceled = true;
    s.is_complete = true;
    s.total_exec_time_minutes = 0;
    s.max_allocation_remaining_seconds = 600;
    auto const none_blocked = boost::json::parse(core::encode_workflow_status(s)).as_object();
    BOOST_TEST(none_blocked.at("max_allocation_remaining_seconds").as_int64() == 600);
    BOOST_TEST(!none_blocked.contains("longest_ready_runtime_seconds"));
    BOOST_TEST(none_blocked.at("is_canceled").as_bool());
    BOOST_TEST(none_blocked.at("is_complete").as_bool());
    BOOST_TEST(none_blocked.at("total_exec_time_minutes").is_number());
    s.ready = {2, 3600};
    auto const blocked = boost::json::parse(core::encode_workflow_status(s)).as_object();
    BOOST_TEST(blocked.at("runtime_blocked_ready_jobs").as_int64() == 2);
    BOOST_TEST(blocked.at("longest_ready_runtime_seconds").as_int64() == 3600);
}

BOOST_AUTO_TEST_CASE(walltime_left_to_the_allocations)
{
    double const now = 1767225600;  // 2026-01-01T00:00:00Z
    std::vector<core::allocation_clock> nodes{
        {"2025-12-31T23:00:00Z", "PT2H", {}},                       // 3600 s left
        {"2025-12-31T23:30:00.250000000+00:00", "PT1H30M10S", {}},  // 3610.25 s left: 3610
        {"2025-12-31T20:00:00Z", "PT1H", {}},                       // over: 0
        {"2025-12-31T23:59:00Z", std::nullopt, {}},                 // no walltime
    };
    BOOST_TEST(core::max_allocation_remaining(nodes, now).value_or(-1) == 3610);
    nodes.erase(nodes.begin(), nodes.begin() + 2);
    BOOST_TEST(core::max_allocation_remaining(nodes, now).value_or(-1) == 0);
    // 0.23's runner reports the end itself; it wins over start and limit.
    nodes.push_back({"2025-12-31T23:00:00Z", "PT2H", "2026-01-01T02:00:00+00:00"});
    BOOST_TEST(core::max_allocation_remaining(nodes, now).value_or(-1) == 7200);
    nodes.back().end_time = "soon";  // unreadable: start and limit
    BOOST_TEST(core::max_allocation_remaining(nodes, now).value_or(-1) == 3600);
    // Records that do not read are no allocation: nothing is known then.
    std::vector<core::allocation_clock> unreadable{{"yesterday", "PT1H", {}},
                                                   {"2025-12-31T23:00:00Z", "2 hours", {}},
                                                   {"2025-12-31T23:00:00Z", std::nullopt, "x"}};
    BOOST_TEST(!core::max_allocation_remaining(unreadable, now).has_value());
    BOOST_TEST(!core::max_allocation_remaining({}, now).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
