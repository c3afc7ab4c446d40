// worker_fsm, the other ends of a run: the allocation deadline (claims carry the time left,
// the drain starts once, early enough for signal, grace and reports), an end time learned
// later, a complete workflow (exit actions, then deactivation) and the idle timeout.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

make_event batch_ok(std::vector<std::int64_t> ids)
{
    return reply<worker::jobs_reported>("complete_jobs", ids,
                                        std::vector<worker::rejected_report>{});
}
make_event status(bool complete, bool canceled)
{
    return reply<worker::workflow_state_read>("check_workflow", complete, canceled);
}
make_event actions_read(std::vector<core::workflow_action> actions)
{
    return reply<worker::pending_actions_read>("read_pending_actions", std::move(actions));
}
std::vector<std::string> exits(std::string code, std::string reason)
{
    return {"info: worker: compute node 9 deactivated", "journal_node drop 9",
            "info: worker: exit " + code + " (" + reason + ")", "exit " + code};
}

auto const start = opening(n0_node, n0_claim);
std::string const claim7 = "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1";

// The allocation ends at time 3600 (`grace` and the drain buffer of 60 s decide the lead).
core::worker_config ending(double grace = 30)
{
    auto c = test_config();
    c.poll.interval_seconds = 3600;
    c.termination.end_time = unix_t0 + 3600;
    c.termination.grace_seconds = grace;
    return c;
}
std::vector<step> ending_opening(std::string lead, std::string time_limit, std::string timer)
{
    auto steps = opening(n0_node, n0_claim + " time_limit=" + time_limit, timer);
    steps.front().expect.insert(steps.front().expect.begin(),
                                "info: worker: the allocation ends in 3600 s; draining starts " +
                                    lead + " s before");
    return steps;
}

// The opening of a worker whose allocation end is still being looked up: running, no claim.
std::vector<step> looked_up_opening()
{
    auto steps = opening(n0_node, n0_claim);
    steps.front().event = ev(worker::begin{unix_t0, {}, true});
    steps.back().expect = {"info: worker: running", "arm_timer 5.4"};
    return steps;
}

core::worker_config with_timeout_code(core::worker_config c, int code)
{
    c.termination.timeout_exit_code = code;
    return c;
}

core::worker_config deleting_output()
{
    auto c = test_config();
    c.job_stdio["job43"] = {core::stdio_mode::combined, true};
    return c;
}

core::worker_config idle_after(double seconds)
{
    auto c = test_config();
    c.limits.idle_timeout_seconds = seconds;
    return c;
}

std::vector<scenario> const scenarios{
    {"deadline: claims carry the time left; the drain starts 60 s before the end",
     ending(), n0_pool(),
     ending_opening("60", "3719.6", "arm_timer 3540") + launched(1, job(42), needs(1)) +
         std::vector<step>{
             {3540, tick(),
              {"info: worker: the allocation ends in 60 s; stopping", "signal_job 42 SIGTERM",
               "arm_timer 3570"}},
             {3541, exit_of(42, killed(SIGTERM)),
              {"warning: job 42: terminated rc=143 (killed by SIGTERM (15))",
               "complete_jobs 42#1 terminated rc=143", "arm_timer 3575"}},
             {3541.1, claimed({}), {}},
             {3541.2, batch_ok({42}), {"deactivate_node after=3541.2"}},
         }},
    {"deadline: a grace longer than the buffer moves the drain earlier (grace + 5 s)",
     ending(100), n0_pool(),
     ending_opening("105", "3719.6", "arm_timer 3495") + std::vector<step>{
         {3495, tick(), {"info: worker: the allocation ends in 105 s; stopping", "arm_timer 3600"}},
         {3495.1, claimed({}), {"deactivate_node after=3495.1"}},
     }},
    {"deadline: a job SIGKILLed after the grace gets termination.timeout_exit_code",
     with_timeout_code(ending(), 99), n0_pool(),
     ending_opening("60", "3719.6", "arm_timer 3540") + launched(1, job(42), needs(1)) +
         std::vector<step>{
             {3540, tick(),
              {"info: worker: the allocation ends in 60 s; stopping", "signal_job 42 SIGTERM",
               "arm_timer 3570"}},
             {3570, tick(),
              {"warning: job 42: still running after the grace; SIGKILL",
               "signal_job 42 SIGKILL", "arm_timer 3575"}},
             {3570.1, exit_of(42, killed(SIGKILL)),
              {"warning: job 42: terminated rc=99 (killed by SIGKILL (9))",
               "complete_jobs 42#1 terminated rc=99"}},
         }},
    {"deadline: no grace (sigterm_lead_seconds 0) is SIGKILL at once, not a wait",
     with_timeout_code(ending(0), 152), n0_pool(),
     ending_opening("60", "3719.6", "arm_timer 3540") + launched(1, job(42), needs(1)) +
         std::vector<step>{
             {3540, tick(),
              {"info: worker: the allocation ends in 60 s; stopping", "signal_job 42 SIGKILL",
               "arm_timer 3545"}},
             {3540.1, exit_of(42, killed(SIGKILL)),
              {"warning: job 42: terminated rc=152 (killed by SIGKILL (9))",
               "complete_jobs 42#1 terminated rc=152"}},
         }},
    {"stdio delete_on_success: only an accepted rc 0 of that job deletes its output",
     deleting_output(), n0_pool(),
     start + launched(1, job(42), needs(1)) + launched(1.1, job(43), std::nullopt) +
         std::vector<step>{
             {2, exit_of(42, exited(0)),
              {"info: job 42: completed rc=0 (exited with 0)",
               "complete_jobs 42#1 completed rc=0"}},
             {2.1, batch_ok({42}), {}},
             {3, exit_of(43, exited(0)),
              {"info: job 43: completed rc=0 (exited with 0)",
               "complete_jobs 43#1 completed rc=0"}},
             {3.1, batch_ok({43}), {"delete_output 43#1"}},
         }},
    {"an end time learned later (squeue) schedules the drain", test_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, status(false, false), {}},
         {0.7, ev(worker::end_time_learned{unix_t0 + 100.7, unix_t0 + 0.7}),
          {"info: worker: the allocation ends in 100 s; draining starts 60 s before"}},
         {0.9, tick(), {"claim_jobs " + n0_claim + " time_limit=219.8", "arm_timer 5.5"}},
         {1.0, claimed({}), {"check_workflow", "arm_timer 1.9"}},
     }},
    // Inside Slurm without SLURM_JOB_END_TIME the end comes from squeue; a claim sent before
    // it answers would carry no time limit and could take a job that cannot end in time.
    {"an end time being looked up holds the first claim until it is known", test_config(),
     n0_pool(),
     looked_up_opening() + std::vector<step>{
         {0.7, ev(worker::end_time_learned{unix_t0 + 100.7, unix_t0 + 0.7}),
          {"info: worker: the allocation ends in 100 s; draining starts 60 s before",
           "claim_jobs " + n0_claim + " time_limit=220"}},
         {0.8, claimed({}), {"check_workflow", "arm_timer 1.2"}},
     }},
    {"a failed end-time lookup lets the claim go without a limit", test_config(), n0_pool(),
     looked_up_opening() + std::vector<step>{
         {0.7, ev(worker::end_time_unknown{}), {"claim_jobs " + n0_claim}},
     }},
    {"a complete workflow: exit actions (a signal now bounds them), then exit 0",
     test_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, status(true, false),
          {"info: worker: workflow 5 is complete; stopping",
           "read_pending_actions on_workflow_complete"}},
         {0.7, actions_read({commands_action(7, {"echo done"})}), {"claim_action 7"}},
         {0.8, reply<worker::action_claim_read>("claim_action 7", true, std::optional<std::int64_t>{}),
          {"info: action 7: running 1 commands", "run_commands 7: echo done"}},
         {0.85, sig(SIGTERM),
          {"info: worker: SIGTERM received; already stopping", "arm_timer 35.85"}},
         {0.9, ev(worker::action_finished{7, true, ""}),
          {"read_pending_actions on_worker_complete"}},
         {1.0, actions_read({}), {"deactivate_node after=1"}},
         {1.1, refused("deactivate_node", 404, "PUT /compute_nodes/9: 404"),
          {"error: worker: deactivation refused: PUT /compute_nodes/9: 404",
           "info: worker: exit 0 (workflow complete)", "exit 0"}},
     }},
    {"idle: nothing running and nothing claimable for the idle timeout", idle_after(2),
     n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, status(false, false), {}},
         {0.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 2.5"}},
         {1.0, claimed({}), {"check_workflow", "arm_timer 1.9"}},
         {1.1, status(false, false), {}},
         {1.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 2.5"}},
         {2.0, claimed({}), {"check_workflow"}},
         {2.1, status(false, false), {}},
         {2.5, tick(),
          {"info: worker: idle for 2 s; stopping", "read_pending_actions on_worker_complete"}},
         {2.6, actions_read({}), {"deactivate_node after=2.6"}},
         {2.7, done("deactivate_node"), exits("0", "idle")},
     }},
    {"idle time counts only while no job is held", idle_after(2), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, status(false, false), {}},
         {0.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 2.5"}},
         {1.0, claimed({job(42)}), {"read_requirements 1", "arm_timer 5.5"}},
         {1.1, requirements(1, needs(1)), {"start_job 42", claim7}},
         {1.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=1 memory=0"}},
         {1.3, spawned(42), {"info: job 42: started attempt=1 on n0 cpus=1 memory=0"}},
         {1.4, claimed({}), {"arm_timer 1.6"}},
         {1.6, tick(), {claim7, "arm_timer 5.5"}},
         {1.7, claimed({}), {"arm_timer 2.6"}},
         {2.6, tick(), {claim7, "arm_timer 5.5"}},
         {4, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
         {4.1, batch_ok({42}), {}},
         // The claim out since 2.6 answers empty, but the job ended meanwhile: claimed again at
         // once, and idle time counts from the first empty answer to a claim sent with nothing
         // held (4.4).
         {4.2, claimed({}), {"claim_jobs " + n0_claim, "check_workflow"}},
         {4.3, status(false, false), {"arm_timer 9.2"}},
         {4.4, claimed({}), {"check_workflow", "arm_timer 4.7"}},
         {4.5, status(false, false), {}},
         {4.7, tick(), {"claim_jobs " + n0_claim, "arm_timer 6.4"}},
         {4.8, claimed({}), {"check_workflow", "arm_timer 5.7"}},
         {4.9, status(false, false), {}},
         {5.7, tick(), {"claim_jobs " + n0_claim, "arm_timer 6.4"}},
         {5.8, claimed({}), {"check_workflow"}},
         {6.4, tick(),
          {"info: worker: idle for 2 s; stopping", "read_pending_actions on_worker_complete"}},
     }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_endings)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_AUTO_TEST_SUITE_END()
