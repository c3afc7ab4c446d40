// Reading scontrol's one-line job record.
#include "torcrun/slurm/job_facts.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(job_facts)

BOOST_AUTO_TEST_CASE(a_finished_job)
{
    auto const line =
        "JobId=9 JobName=torcrun_wf1_auto1 UserId=root(0) JobState=TIMEOUT Reason=TimeLimit "
        "Dependency=(null) SubmitTime=2026-12-02T09:00:35 StartTime=2026-12-02T09:00:37 "
        "EndTime=2026-12-02T09:03:37 Partition=debug NodeList=n[1-2] Command=/x y.sh\n";
    auto const f = core::parse_scontrol_job(line);
    BOOST_TEST_REQUIRE(f.has_value());
    BOOST_TEST(f->state == "TIMEOUT");
    BOOST_TEST(f->reason == "TimeLimit");
    BOOST_TEST(f->node_list == "n[1-2]");
    BOOST_TEST(f->submit_time == "2026-12-02T09:00:35");
    BOOST_TEST(f->start_time == "2026-12-02T09:00:37");
    BOOST_TEST(f->end_time == "2026-12-02T09:03:37");
    BOOST_TEST(core::ended_because(*f) == "slurm: TIMEOUT (TimeLimit)");
}

BOOST_AUTO_TEST_CASE(a_worker_that_left_for_jobs_that_never_fit)
{
    auto const f = core::parse_scontrol_job("JobId=9 JobState=FAILED Reason=NonZeroExitCode "
                                            "ExitCode=3:0 NodeList=n1");
    BOOST_TEST_REQUIRE(f.has_value());
    BOOST_TEST(core::ended_because(*f) ==
               "worker left: the ready jobs need another allocation (exit 3)");
    auto const other = core::parse_scontrol_job("JobId=9 JobState=FAILED Reason=NonZeroExitCode "
                                                "ExitCode=1:0");
    BOOST_TEST(core::ended_because(*other) == "slurm: FAILED (NonZeroExitCode)");
}

BOOST_AUTO_TEST_CASE(a_queued_job_has_no_start_end_or_nodes)
{
    auto const f = core::parse_scontrol_job(
        "JobId=10 JobState=PENDING Reason=Resources SubmitTime=2026-12-02T09:00:35 "
        "StartTime=2026-12-02T10:00:00 EndTime=2026-12-02T11:00:00 NodeList=(null)");
    BOOST_TEST_REQUIRE(f.has_value());
    BOOST_TEST(f->reason == "Resources");
    BOOST_TEST(f->start_time.empty());  // Slurm's estimate, not a start
    BOOST_TEST(f->end_time.empty());
    BOOST_TEST(f->node_list.empty());
}

BOOST_AUTO_TEST_CASE(no_job_no_facts)
{
    BOOST_TEST(!core::parse_scontrol_job("").has_value());
    BOOST_TEST(!core::parse_scontrol_job("slurm_load_jobs error: Invalid job id specified").has_value());
    BOOST_TEST(core::slurm_state_ended("OUT_OF_MEMORY"));
    BOOST_TEST(!core::slurm_state_ended("COMPLETING"));
    BOOST_TEST(!core::slurm_state_ended("RUNNING"));
}

BOOST_AUTO_TEST_SUITE_END()
