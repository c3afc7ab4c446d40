// worker_fsm, its interface values: describe() of every action (the shell logs it), request_of,
// the names of the enumerations, and what a spawn action carries for the launch plan.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

core::job_result result(std::int64_t job, core::result_status status, int rc)
{
    core::job_result r;
    r.job_id = job;
    r.attempt_id = 2;
    r.status = status;
    r.return_code = rc;
    return r;
}

core::reservation two_nodes()
{
    return {core::reservation_id{7}, true,
            {{0, "n0", 8, 16 * gib, {"0", "1", "2", "3"}},
             {1, "n1", 8, 16 * gib, {"0", "1", "2", "3"}}}};
}

struct describe_case {
    core::worker_action action;
    std::string text;
    bool is_request;
};
std::ostream& operator<<(std::ostream& os, describe_case const& c) { return os << c.text; }

core::request_id const rq{3};
using core::result_status;
using core::report_kind;

std::vector<describe_case> const describe_cases{
    {worker::register_node{rq, 16, 32 * gib, 8, 2},
     "register_node cpus=16 memory=32g gpus=8 nodes=2", true},
    {worker::read_workflow{rq}, "read_workflow", true},
    {worker::read_pending_actions{rq, core::action_trigger::on_workflow_complete},
     "read_pending_actions on_workflow_complete", true},
    {worker::claim_action{rq, 7}, "claim_action 7", true},
    {worker::claim_jobs{rq, 6, {6, 3 * gib / 2, 2}, 1, 90.25, 30, {}},
     "claim_jobs limit=6 cpus=6 memory=1536m gpus=2 nodes=1 time_limit=90.25 wait=30", true},
    {worker::read_requirements{rq, 4}, "read_requirements 4", true},
    {worker::start_job{rq, 42}, "start_job 42", true},
    {worker::hand_back{rq, 42}, "hand_back 42", true},
    {worker::read_failure_handler{rq, 2}, "read_failure_handler 2", true},
    {worker::retry_job{rq, 42, 3}, "retry_job 42 max_retries=3", true},
    {worker::record_result{rq, result(42, result_status::failed, 1)},
     "record_result 42#2 failed rc=1", true},
    {worker::complete_job{rq, result(42, result_status::pending_failed, 9)},
     "complete_job 42#2 pending_failed rc=9", true},
    {worker::complete_jobs{rq, {result(42, result_status::completed, 0),
                                result(43, result_status::canceled, 143)}},
     "complete_jobs 42#2 completed rc=0, 43#2 canceled rc=143", true},
    {worker::check_workflow{rq}, "check_workflow", true},
    {worker::deactivate_node{rq, 12.5}, "deactivate_node after=12.5", true},
    {worker::run_commands{7, {"a", "b c"}}, "run_commands 7: a; b c", false},
    {worker::spawn{job(42, 1, std::nullopt, 3), needs(8), two_nodes(), 1, std::nullopt},
     "spawn 42#3 on n0[0,1,2,3],n1[0,1,2,3] cpus=8 memory=16g whole", false},
    {worker::signal_job{42, SIGUSR1}, "signal_job 42 SIGUSR1", false},
    {worker::check_outputs{42, {11, 12}}, "check_outputs 42 files=11,12", false},
    {worker::run_recovery{42, "job42", 1, 137, "bash fix.sh"},
     "run_recovery 42#1 rc=137: bash fix.sh", false},
    {worker::journal_append{{{report_kind::complete, result(42, result_status::terminated, 152)},
                             {report_kind::record, result(43, result_status::failed, 1)}}},
     "journal_append 42#2 terminated rc=152, record 43#2 failed rc=1", false},
    {worker::journal_remove{{{report_kind::record, 43, 2}, {report_kind::complete, 42, 2}}},
     "journal_remove record 43#2, 42#2", false},
    {worker::arm_timer{at(1.5)}, "arm_timer 1.5", false},
    {worker::log{core::log_severity::error, "x: y"}, "error: x: y", false},
    {worker::exit_worker{1}, "exit 1", false},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_actions)

BOOST_DATA_TEST_CASE(describe_and_request_of, bdata::make(describe_cases), c)
{
    BOOST_TEST(core::describe(c.action) == c.text);
    auto const id = core::request_of(c.action);
    BOOST_TEST(id.has_value() == c.is_request);
    if (id) BOOST_TEST((*id == rq));
}

BOOST_AUTO_TEST_CASE(names_of_the_enumerations)
{
    BOOST_TEST(core::to_string(core::worker_stage::draining) == "draining");
    BOOST_TEST(core::to_string(core::stop_reason::workflow_canceled) == "workflow canceled");
    BOOST_TEST(core::to_string(core::stop_reason::server_lost) == "server lost");
    BOOST_TEST(core::to_string(http_failure::http_5xx) == "http_5xx");
    BOOST_TEST(core::to_string(core::result_status::pending_failed) == "pending_failed");
    BOOST_TEST(core::to_string(core::action_trigger::on_worker_start) == "on_worker_start");
}

// The launch plan needs the job, its requirements, the reservation, the run id and the time
// left in the allocation (srun --time in slurm mode).
BOOST_AUTO_TEST_CASE(spawn_carries_what_the_launch_plan_needs)
{
    auto config = test_config();
    config.termination.end_time = unix_t0 + 600;
    harness h(config, n0_pool());
    auto steps = opening(n0_node, n0_claim) + launched(1, job(42, 3), needs(2, gib, 1));
    steps.pop_back();  // stop before job_spawned: the last feed is start_job's answer
    for (auto const& st : steps) h.feed(st.at, st.event(h));
    BOOST_TEST_REQUIRE(h.last().size() == 1u);
    auto const* s = std::get_if<worker::spawn>(&h.last().front());
    BOOST_TEST_REQUIRE(s != nullptr);
    BOOST_TEST(s->job.id == 42);
    BOOST_TEST(s->resources.id == 3);
    BOOST_TEST((s->resources.need == core::job_requirement{2, 1, 1, gib}));
    BOOST_TEST(s->placement.nodes.size() == 1u);
    BOOST_TEST((s->placement.nodes.front().gpu_ids == std::vector<std::string>{"0"}));
    BOOST_TEST(s->run_id == 1);
    BOOST_TEST_REQUIRE(s->seconds_left.has_value());
    BOOST_TEST(*s->seconds_left == 600 - 1.02, boost::test_tools::tolerance(1e-6));
}

BOOST_AUTO_TEST_SUITE_END()
