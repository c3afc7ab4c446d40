// worker_fsm, job-gated actions while running: a workflow with on_jobs_ready / on_jobs_complete
// actions has their pending lists read every poll.interval_seconds; a schedule_nodes action of
// scheduler_type slurm is claimed and its allocations scheduled (schedule_allocations), exactly
// once per worker; a lost claim reply is re-sent under the same request (the server answers
// the node that holds the action 200 again, so one claim, one allocation); a claim another worker
// won (409 naming another holder, or none), a non-slurm scheduler and a failed sbatch; idleness waits for an action in flight and
// for a read of the pending lists after the idle time ran out; a drain waits for the action.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

using actions = std::vector<core::workflow_action>;

make_event actions_read(actions list)
{
    return reply<worker::pending_actions_read>("read_pending_actions", std::move(list));
}
make_event action_claimed(std::int64_t id, bool claimed)
{
    return reply<worker::action_claim_read>("claim_action " + std::to_string(id), claimed,
                                             std::optional<std::int64_t>{});
}

core::workflow_action schedule(std::int64_t id, std::string trigger = "on_jobs_ready",
                               std::string type = "slurm", bool persistent = false)
{
    return {id, "schedule_nodes", {}, std::move(trigger), persistent,
            core::allocation_config{std::move(type), 4, 2, true, 3}};
}

std::string const scheduling = "schedule_allocations 7: scheduler 4 x2 per_node max_parallel_jobs=3";

// The opening of a workflow with job-gated actions: the first claim and the first read of the
// on_jobs_ready list go out together.
std::vector<step> opening_with_job_actions(core::worker_config const&)
{
    return {
        {0, ev(worker::begin{unix_t0, {}}), {"register_node " + n0_node}},
        {0.1, reply<worker::node_registered>("register_node", std::int64_t{9}),
         {"info: worker: registered as compute node 9", "journal_node 9", "read_workflow", "heartbeat"}},
        {0.2, reply<worker::workflow_read>("read_workflow", std::int64_t{1}, false, true),
         {"info: worker: workflow 5 run 1", "read_pending_actions on_workflow_start"}},
        {0.3, actions_read({}), {"read_pending_actions on_worker_start"}},
        {0.4, actions_read({}),
         {"info: worker: running", "claim_jobs " + n0_claim, "read_pending_actions on_jobs_ready",
          "arm_timer 5.4"}},
    };
}

core::worker_config idle_config()
{
    auto c = test_config();
    c.limits.idle_timeout_seconds = 2;
    return c;
}

std::vector<scenario> const scenarios{
    {"a pending schedule_nodes action is claimed once and its allocations scheduled",
     test_config(), n0_pool(),
     opening_with_job_actions(test_config()) + std::vector<step>{
         {0.5, actions_read({schedule(7)}), {"claim_action 7"}},
         {0.6, action_claimed(7, true),
          {"info: action 7: scheduling 2 allocations of slurm_scheduler 4", scheduling}},
         {0.7, ev(worker::action_finished{7, true, ""}),
          {"read_pending_actions on_jobs_complete"}},
         {0.8, actions_read({}), {}},
         // the next read, a poll interval later; the action is listed again (say a reply
         // raced its claim): this worker claimed it, so it is not claimed twice
         {5.5, tick(), {"check_workflow", "read_pending_actions on_jobs_ready"}},
         {5.6, actions_read({schedule(7)}), {"read_pending_actions on_jobs_complete"}},
     }},
    {"a lost claim reply is re-sent; the answer comes once and one allocation step follows",
     test_config(), n0_pool(),
     opening_with_job_actions(test_config()) + std::vector<step>{
         {0.5, actions_read({schedule(7)}), {"claim_action 7"}},
         {0.6, failed("claim_action 7", http_failure::timeout, 0, "POST /x: timeout"),
          {"warning: server: POST /x: timeout (timeout, failure 1); retrying in 0.5 s",
           "arm_timer 1.1"}},
         {1.1, tick(), {"claim_action 7", "arm_timer 5.4"}},
         // the first claim had reached the server: 409, and the action lists this node (9)
         {1.2, reply<worker::action_claim_read>("claim_action 7", false, std::optional<std::int64_t>{9}),
          {"info: server: answering again",
           "info: action 7: this worker holds it (an earlier claim's answer was lost)",
           "info: action 7: scheduling 2 allocations of slurm_scheduler 4", scheduling}},
     }},
    {"a 409 whose holder is another node, or unknown: not run here", test_config(), n0_pool(),
     opening_with_job_actions(test_config()) + std::vector<step>{
         {0.5, actions_read({schedule(7), schedule(8)}), {"claim_action 7"}},
         {0.6, reply<worker::action_claim_read>("claim_action 7", false, std::optional<std::int64_t>{4}),
          {"info: action 7: claimed by another worker", "claim_action 8"}},
         {0.7, reply<worker::action_claim_read>("claim_action 8", false, std::optional<std::int64_t>{}),
          {"info: action 8: claimed by another worker", "read_pending_actions on_jobs_complete"}},
     }},
    {"claimed by another worker, start-trigger and non-slurm schedule_nodes are not run here",
     test_config(), n0_pool(),
     opening_with_job_actions(test_config()) + std::vector<step>{
         {0.5,
          actions_read({schedule(6, "on_workflow_start"), schedule(8, "on_jobs_ready", "local"),
                        schedule(7)}),
          {"info: action 6: schedule_nodes actions are run by workers only for on_jobs_ready "
           "and on_jobs_complete (torcrun submit carries out the others)",
           "info: action 8: schedule_nodes with scheduler_type \"local\": workers schedule only "
           "slurm allocations",
           "claim_action 7"}},
         {0.6, action_claimed(7, false),
          {"info: action 7: claimed by another worker", "read_pending_actions on_jobs_complete"}},
         {0.7, actions_read({}), {}},
         {5.5, tick(), {"check_workflow", "read_pending_actions on_jobs_ready"}},
         // said once only
         {5.6, actions_read({schedule(6, "on_workflow_start"), schedule(8, "on_jobs_ready", "local")}),
          {"read_pending_actions on_jobs_complete"}},
     }},
    {"a failed sbatch is logged at error level and not retried", test_config(), n0_pool(),
     opening_with_job_actions(test_config()) + std::vector<step>{
         {0.5, actions_read({schedule(7, "on_jobs_complete")}), {"claim_action 7"}},
         {0.6, action_claimed(7, true),
          {"info: action 7: scheduling 2 allocations of slurm_scheduler 4", scheduling}},
         {0.7,
          ev(worker::action_finished{7, false, "allocation 1 of 2 (0 submitted): sbatch /o/x.sh: "
                                               "exit 1: sbatch: error: invalid account"}),
          {"error: action 7: allocations failed: allocation 1 of 2 (0 submitted): sbatch /o/x.sh: "
           "exit 1: sbatch: error: invalid account",
           "read_pending_actions on_jobs_complete"}},
         {0.8, actions_read({schedule(7, "on_jobs_complete")}), {}},
     }},
    {"persistent: claimed and run once by this worker although it stays pending", test_config(),
     n0_pool(),
     opening_with_job_actions(test_config()) + std::vector<step>{
         {0.5, actions_read({schedule(7, "on_jobs_ready", "slurm", true)}), {"claim_action 7"}},
         {0.6, action_claimed(7, true),
          {"info: action 7: scheduling 2 allocations of slurm_scheduler 4", scheduling}},
         {0.7, ev(worker::action_finished{7, true, ""}),
          {"read_pending_actions on_jobs_complete"}},
         {0.8, actions_read({}), {}},
         {5.5, tick(), {"check_workflow", "read_pending_actions on_jobs_ready"}},
         {5.6, actions_read({schedule(7, "on_jobs_ready", "slurm", true)}),
          {"read_pending_actions on_jobs_complete"}},
     }},
    {"idle: an action in flight keeps the worker; the lists are read once more before it stops",
     idle_config(), n0_pool(),
     opening_with_job_actions(idle_config()) + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.55, reply<worker::workflow_state_read>("check_workflow", false, false), {}},
         {0.6, actions_read({schedule(7)}), {"claim_action 7"}},
         {0.7, action_claimed(7, true),
          {"info: action 7: scheduling 2 allocations of slurm_scheduler 4", scheduling}},
         // the idle time (due at 2.5) runs out while the allocations are being scheduled: the
         // worker stays, and sleeps until its next claim, not in a loop on the past due time
         {3.0, tick(), {"claim_jobs " + n0_claim, "arm_timer 5.5"}},
         {3.1, claimed({}), {"check_workflow", "arm_timer 4"}},
         {3.2, ev(worker::action_finished{7, true, ""}), {"read_pending_actions on_jobs_complete"}},
         // the last read answered after the idle time ran out: now it stops
         {3.3, actions_read({}),
          {"info: worker: idle for 2 s; stopping", "read_pending_actions on_worker_complete"}},
     }},
    {"a drain waits for the claimed action's allocations before the exit actions", test_config(),
     n0_pool(),
     opening_with_job_actions(test_config()) + std::vector<step>{
         {0.5, actions_read({schedule(7)}), {"claim_action 7"}},
         {0.6, action_claimed(7, true),
          {"info: action 7: scheduling 2 allocations of slurm_scheduler 4", scheduling}},
         {0.7, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.75, reply<worker::workflow_state_read>("check_workflow", false, false), {}},
         {0.8, sig(SIGTERM), {"info: worker: SIGTERM received; stopping", "arm_timer 35.8"}},
         // stopped by a signal: no exit actions; the node is deactivated once the action ended
         {0.9, ev(worker::action_finished{7, true, ""}), {"deactivate_node after=0.9"}},
     }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_job_actions)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_AUTO_TEST_CASE(no_job_gated_actions_no_polling)
{
    // The shared opening has none: after start-up only claims and status checks go out.
    fsm_test::scenario s{"plain", test_config(), n0_pool(),
               opening(n0_node, n0_claim) + std::vector<step>{
                   {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
                   {0.6, reply<worker::workflow_state_read>("check_workflow", false, false), {}},
                   {0.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 5.5"}},
                   {1.0, claimed({}), {"check_workflow", "arm_timer 1.9"}},
                   {1.1, reply<worker::workflow_state_read>("check_workflow", false, false), {}},
                   {1.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 6"}},
               }};
    play(s);
}

BOOST_AUTO_TEST_CASE(a_cap_on_parallel_jobs_limits_claims)
{
    auto c = test_config();
    c.limits.max_parallel_jobs = 1;
    fsm_test::scenario s{"cap", c, n0_pool(),
               opening(n0_node, "limit=1 cpus=8 memory=16g gpus=4 nodes=1") +
                   std::vector<step>{
                       {0.5, claimed({job(1)}), {"read_requirements 1"}},
                       {0.6, requirements(1, needs(1)),
                        {"start_job 1"}},
                       // one job held: no claim goes out although 7 CPUs are free
                       {1.5, tick(), {}},
                   }};
    play(s);
}

BOOST_AUTO_TEST_SUITE_END()
