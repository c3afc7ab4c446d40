// worker_fsm, claiming: the job cycle claim -> requirements -> start_job -> spawn -> exit ->
// report -> claim, the claim's schedule (long poll, adaptive backoff), requirements cached by
// id, and every way a claimed job goes back to the server before it runs. GPUs: worker_fsm_gpus.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

auto const& node_text = n0_node;
auto const& claim8 = n0_claim;
std::vector<core::node_capacity> one_node() { return n0_pool(); }

using batch_reply = worker::jobs_reported;
make_event batch_ok(std::vector<std::int64_t> ids)
{
    return reply<batch_reply>("complete_jobs", ids, std::vector<worker::rejected_report>{});
}
make_event status(bool complete, bool canceled)
{
    return reply<worker::workflow_state_read>("check_workflow", complete, canceled);
}

core::worker_config long_poll()
{
    auto c = test_config();
    c.poll.long_poll_seconds = 30;
    c.poll.interval_seconds = 60;
    return c;
}

// A job as a claim with start=true returns it: running on the server already.
core::claimed_job started(core::claimed_job j)
{
    j.started = true;
    return j;
}

std::string const refused_message = "PUT /jobs/42/start_job/1/9: 422 run_id 1 does not match";

void ledger_is(harness& h, std::size_t claimed, std::size_t reported, std::size_t handed_back,
               std::size_t abandoned)
{
    auto const& l = h.fsm().ledger();
    BOOST_TEST(l.claimed == claimed);
    BOOST_TEST(l.reported == reported);
    BOOST_TEST(l.handed_back == handed_back);
    BOOST_TEST(l.abandoned == abandoned);
    BOOST_TEST(l.claimed == l.ended() + h.fsm().live_jobs());
}

// Job 42 (2 CPUs) claimed, started and running; the next claim, for the 6 CPUs left, answered
// empty and sent again at 1.6.
std::vector<step> job_42_running()
{
    return {
        {1, claimed({job(42)}), {"read_requirements 1"}},
        {1.1, requirements(1, needs(2, gib)),
         {"start_job 42", "claim_jobs limit=6 cpus=6 memory=15g gpus=4 nodes=1"}},
        {1.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=2 memory=1g"}},
        {1.3, spawned(42), {"info: job 42: started attempt=1 on n0 cpus=2 memory=1g"}},
        {1.4, claimed({}), {"arm_timer 1.6"}},
        {1.6, tick(), {"claim_jobs limit=6 cpus=6 memory=15g gpus=4 nodes=1", "arm_timer 5.4"}},
    };
}

std::vector<scenario> const scenarios{
    {"one CPU job: claim, requirements, start, spawn, exit, report, claim again",
     test_config(), one_node(),
     opening(node_text, claim8) + job_42_running() + std::vector<step>{
         {2, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
         {2.1, batch_ok({42}), {}},
         {2.2, claimed({}), {"claim_jobs " + claim8, "check_workflow"}},
         {2.3, status(false, false), {"arm_timer 7.2"}},
     },
     [](harness& h) {
         ledger_is(h, 1, 1, 0, 0);
         BOOST_TEST(h.fsm().ledger().started == 1u);
         BOOST_TEST(h.fsm().pool().idle());
     }},
    {"a claim answered empty after a job ended while it was out is sent again at once",
     test_config(), one_node(),
     opening(node_text, claim8) + job_42_running() + std::vector<step>{
         // The job ends 10 ms after the claim went out for 6 CPUs; its answer (empty) says
         // nothing about the 8 free now: no backoff (which would wait until 2.0).
         {1.61, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
         {1.62, batch_ok({42}), {}},
         {1.63, claimed({}), {"claim_jobs " + claim8, "check_workflow"}},
     },
     [](harness& h) { ledger_is(h, 1, 1, 0, 0); }},
    {"requirements are read once per id and cached", test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42), job(43)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2, gib)),
          {"start_job 42", "start_job 43", "claim_jobs limit=4 cpus=4 memory=14g gpus=4 nodes=1"}},
         {1.2, claimed({job(44)}),
          {"start_job 44", "claim_jobs limit=2 cpus=2 memory=13g gpus=4 nodes=1"}},
     }},
    {"claimed jobs wait for every requirement, then go in the server's order", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42, 1), job(43, 2), job(44, 1)}),
          {"read_requirements 1", "read_requirements 2"}},
         {1.1, requirements(2, needs(1)), {}},
         {1.2, requirements(1, needs(2)),
          {"start_job 42", "start_job 43", "start_job 44",
           "claim_jobs limit=3 cpus=3 memory=16g gpus=4 nodes=1"}},
     }},
    // A claim parked while a job runs could not see the resources the job's exit frees, and no
    // second claim may go out before it answers: GPUs would sit idle for up to the wait. So the
    // server holds a claim only while nothing is held here.
    {"long poll: the server holds the claim while nothing runs here; an empty answer claims "
     "again at once",
     long_poll(), one_node(),
     opening(node_text, claim8 + " wait=30", "arm_timer 60.4") + std::vector<step>{
         {30.4, claimed({}), {"claim_jobs " + claim8 + " wait=30", "check_workflow"}},
         {30.5, status(false, false), {"arm_timer 90.4"}},
         {31, claimed({job(42)}), {"read_requirements 1"}},
         {31.1, requirements(1, needs(1)),
          {"start_job 42", "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1"}},
         {31.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=1 memory=0"}},
         {31.3, spawned(42), {"info: job 42: started attempt=1 on n0 cpus=1 memory=0"}},
         {31.4, claimed({}), {"arm_timer 31.6"}},
         {31.6, tick(), {"claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1", "arm_timer 90.4"}},
         {32, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
         {32.1, claimed({}), {"claim_jobs " + claim8 + " wait=30"}},
     }},
    {"without long poll empty claims back off 0.5, 1, 2, 4, 5, 5 s; a job resets it",
     test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, status(false, false), {}},
         {0.9, tick(), {"claim_jobs " + claim8, "arm_timer 5.5"}},
         {1.0, claimed({}), {"check_workflow", "arm_timer 1.9"}},
         {1.1, status(false, false), {}},
         {1.9, tick(), {"claim_jobs " + claim8, "arm_timer 6"}},
         {2.0, claimed({}), {"check_workflow", "arm_timer 3.9"}},
         {2.1, status(false, false), {}},
         {3.9, tick(), {"claim_jobs " + claim8, "arm_timer 7"}},
         {4.0, claimed({}), {"check_workflow", "arm_timer 7.9"}},
         {4.1, status(false, false), {}},
         {7.9, tick(), {"claim_jobs " + claim8, "arm_timer 9"}},
         {8.0, claimed({}), {"check_workflow", "arm_timer 12.9"}},
         {8.1, status(false, false), {}},
         {12.9, tick(), {"claim_jobs " + claim8, "arm_timer 13"}},
         {13.5, claimed({job(42)}), {"read_requirements 1", "check_workflow"}},
         {13.6, requirements(1, needs(1)),
          {"start_job 42", "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1"}},
         {13.7, claimed({}), {"arm_timer 14.1"}},
     }},
    {"a reply with more jobs than the limit: the extra ones are handed back", test_config(),
     {node("n0", 2, 4 * gib, 0)},
     opening("cpus=2 memory=4g gpus=0 nodes=1", "limit=2 cpus=2 memory=4g gpus=0 nodes=1") +
         std::vector<step>{
             {1, claimed({job(42), job(43), job(44)}),
              {"hand_back 44",
               "warning: claim: the server returned 3 jobs for a limit of 2; 1 handed back",
               "read_requirements 1"}},
             {1.1, done("hand_back 44"), {}},
             {1.2, requirements(1, needs(1)), {"start_job 42", "start_job 43"}},
         },
     [](harness& h) { ledger_is(h, 3, 0, 1, 0); }},
    {"a job that does not fit the free resources is handed back; the next claim waits",
     test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42, 1)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(6)),
          {"start_job 42", "claim_jobs limit=2 cpus=2 memory=16g gpus=4 nodes=1"}},
         {1.2, claimed({job(43, 2)}), {"read_requirements 2"}},
         {1.3, requirements(2, needs(3)),
          {"info: job 43: handed back: it does not fit the free resources", "hand_back 43",
           "arm_timer 1.8"}},
         {1.4, done("hand_back 43"), {}},
         {1.8, tick(), {"claim_jobs limit=2 cpus=2 memory=16g gpus=4 nodes=1", "arm_timer 5.4"}},
     },
     [](harness& h) { ledger_is(h, 2, 0, 1, 0); }},
    {"a job that can never run on this pool is handed back with the reason", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42, 1)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(1, 0, 5)),
          {"error: job 42: handed back: it can never run here: needs 5 GPUs per node, node n0 "
           "has 4 GPUs",
           "hand_back 42", "arm_timer 1.6"}},
     }},
    {"start_job refused: the reservation is released and the job handed back", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
         {1.2, refused("start_job 42", 422, refused_message),
          {"error: job 42: handed back: start_job refused: " + refused_message, "hand_back 42"}},
         {1.3, done("hand_back 42"), {}},
     },
     [](harness& h) {
         ledger_is(h, 1, 0, 1, 0);
         BOOST_TEST(h.fsm().pool().idle());
     }},
    {"start_job unreachable: re-sent after the backoff, then spawned", test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
         {1.2, down("start_job 42"),
          {"warning: server: POST /x: connect 127.0.0.1:8080: Connection refused (connect, "
           "failure 1); retrying in 0.5 s",
           "arm_timer 1.7"}},
         {1.7, tick(), {"start_job 42", "arm_timer 5.4"}},
         {1.8, done("start_job 42"),
          {"info: server: answering again", "spawn 42#1 on n0 cpus=2 memory=0"}},
     }},
    {"spawn failure: the attempt fails with rc 126 and is reported, not handed back",
     test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
         {1.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=2 memory=0"}},
         {1.3, ev(worker::spawn_failed{42, "spawn: chdir /nope: No such file or directory"}),
          {"error: job 42: failed rc=126 (its process could not start: spawn: chdir /nope: No "
           "such file or directory)",
           "complete_jobs 42#1 failed rc=126"}},
         {1.4, batch_ok({42}), {}},
     },
     [](harness& h) {
         ledger_is(h, 1, 1, 0, 0);
         BOOST_TEST(h.fsm().pool().idle());
     }},
    // slurm mode, the allocation ending too soon for a step's minute of --time: the job goes
    // back to ready (Torc reverts it), neither failed with 126 nor the worker's fault; the worker
    // claims nothing more (every later step would be as late), 43 finishes, the exit is 0.
    {"a step too late for its minute: handed back, no more claims, no failure", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({started(job(42)), started(job(43))}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "start_job 43", "claim_jobs limit=4 cpus=4 memory=16g gpus=4 nodes=1"}},
         {1.2, done("start_job 43"), {"spawn 43#1 on n0 cpus=2 memory=0"}},
         {1.25, spawned(43), {"info: job 43: started attempt=1 on n0 cpus=2 memory=0"}},
         {1.3, done("start_job 42"), {"spawn 42#1 on n0 cpus=2 memory=0"}},
         {1.4, ev(worker::spawn_failed{42, "80.000 s left in the allocation", false, true}),
          {"info: job 42: handed back: 80.000 s left in the allocation", "hand_back 42",
           "info: worker: stops claiming: 80.000 s left in the allocation"}},
         {1.5, done("hand_back 42"), {}},
         {1.6, claimed({}), {}},
         {2, exit_of(43, exited(0)),
          {"info: job 43: completed rc=0 (exited with 0)", "complete_jobs 43#1 completed rc=0"}},
         {2.1, batch_ok({43}), {}},
     },
     [](harness& h) {
         BOOST_TEST(h.fsm().ledger().handed_back == 1u);
         BOOST_TEST(h.fsm().ledger().reported == 1u);
         BOOST_TEST(h.fsm().pool().idle());
     }},
    // The worker's own output disk is full: the job is not at fault, so it goes back; the worker
    // claims nothing more (a broken node must not fail the queue), lets 43 finish, exits 5.
    {"spawn failure of the worker's own: handed back, no more claims, exit 5 after the rest",
     test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({started(job(42)), started(job(43))}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "start_job 43", "claim_jobs limit=4 cpus=4 memory=16g gpus=4 nodes=1"}},
         {1.2, done("start_job 43"), {"spawn 43#1 on n0 cpus=2 memory=0"}},
         {1.25, spawned(43), {"info: job 43: started attempt=1 on n0 cpus=2 memory=0"}},
         {1.3, done("start_job 42"), {"spawn 42#1 on n0 cpus=2 memory=0"}},
         {1.4,
          ev(worker::spawn_failed{
              42, "spawn: attempt directory \"out/jobs/wf5_j42/r1_a1\": No space left on device",
              true}),
          {"error: job 42: handed back: this worker cannot start jobs: spawn: attempt directory "
           "\"out/jobs/wf5_j42/r1_a1\": No space left on device",
           "hand_back 42",
           "error: worker: stops claiming: it cannot start jobs (spawn: attempt directory "
           "\"out/jobs/wf5_j42/r1_a1\": No space left on device); the jobs it runs finish, then "
           "it exits 5"}},
         {1.5, done("hand_back 42"), {}},
         {1.6, claimed({}), {}},
         {2, exit_of(43, exited(0)),
          {"info: job 43: completed rc=0 (exited with 0)", "complete_jobs 43#1 completed rc=0"}},
         {2.1, batch_ok({43}), {"deactivate_node after=2.1"}},
         {2.2, done("deactivate_node"),
          {"info: worker: compute node 9 deactivated", "journal_node drop 9",
           "info: worker: exit 5 (worker fault)", "exit 5"}},
     },
     [](harness& h) {
         BOOST_TEST(h.fsm().ledger().handed_back == 1u);
         BOOST_TEST(h.fsm().ledger().reported == 1u);
     }},
    {"spawn failure with a failure rule: retried until max_retries, then failed", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42, 1, 8)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
         {1.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=2 memory=0"}},
         {1.3, ev(worker::spawn_failed{42, "spawn: mkdir: Permission denied"}),
          {"error: job 42: failed rc=126 (its process could not start: spawn: mkdir: Permission "
           "denied)",
           "read_failure_handler 8"}},
         {1.4, reply<worker::failure_handler_read>("read_failure_handler 8",
                                                   core::failure_handler{8, {{{126}, false, {}, 2}}}),
          {"retry_job 42 max_retries=2"}},
         {1.5, done("retry_job 42"),
          {"info: job 42: retried after rc=126 (attempt 1 of 2)", "record_result 42#1 failed rc=126"}},
         {1.6, claimed({job(42, 1, 8, 2)}),
          {"start_job 42", "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
         {1.7, done("start_job 42"), {"spawn 42#2 on n0 cpus=2 memory=0"}},
         {1.8, ev(worker::spawn_failed{42, "spawn: mkdir: Permission denied"}),
          {"error: job 42: failed rc=126 (its process could not start: spawn: mkdir: Permission "
           "denied)",
           "info: job 42: attempt 2 reached max_retries=2; failed",
           "complete_jobs 42#2 failed rc=126"}},
     }},
    {"claim and start: a job the claim started is spawned without start_job", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         // Placed after a requirements read: start_job asks whether the node still holds it.
         {1, claimed({started(job(42)), job(43)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(2)),
          {"start_job 42", "start_job 43", "claim_jobs limit=4 cpus=4 memory=16g gpus=4 nodes=1"}},
         {1.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=2 memory=0"}},
         {1.25, spawned(42), {"info: job 42: started attempt=1 on n0 cpus=2 memory=0"}},
         // Placed in the event of the claim's answer: spawned at once.
         {1.3, claimed({started(job(44))}),
          {"spawn 44#1 on n0 cpus=2 memory=0",
           "claim_jobs limit=2 cpus=2 memory=16g gpus=4 nodes=1"}},
     },
     [](harness& h) { ledger_is(h, 3, 0, 0, 0); }},
    {"claim and start: a started job that cannot run here goes back from running", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({started(job(42))}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(9)),
          {"error: job 42: handed back: it can never run here: needs 9 CPUs per node, node n0 has "
           "8 CPUs",
           "hand_back 42", "arm_timer 1.6"}},
         {1.2, done("hand_back 42"), {}},
     },
     [](harness& h) {
         ledger_is(h, 1, 0, 1, 0);
         BOOST_TEST(h.fsm().pool().idle());
     }},
    {"requirements unreadable: those jobs are handed back, the others start", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42, 1), job(43, 2)}), {"read_requirements 1", "read_requirements 2"}},
         {1.1, refused("read_requirements 1", 404, "GET /resource_requirements/1: 404 not found"),
          {"error: job 42: handed back: resource requirements 1 unread: GET "
           "/resource_requirements/1: 404 not found",
           "hand_back 42"}},
         {1.2, requirements(2, needs(1)),
          {"start_job 43", "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1"}},
     }},
    {"hand back refused: the job is abandoned with an error", test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(1)),
          {"start_job 42", "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1"}},
         {1.2, refused("start_job 42", 422, refused_message),
          {"error: job 42: handed back: start_job refused: " + refused_message, "hand_back 42"}},
         {1.3, refused("hand_back 42", 422, "PUT /jobs/42/manage_status_change/ready/1: 422"),
          {"error: job 42: not handed back; it stays pending on the server: PUT "
           "/jobs/42/manage_status_change/ready/1: 422"}},
     },
     [](harness& h) { ledger_is(h, 1, 0, 0, 1); }},
    {"a job already held that comes back in a claim is ignored", test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(1)),
          {"start_job 42", "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1"}},
         {1.2, claimed({job(42), job(43)}),
          {"error: claim: job 42 is already held here; ignored", "start_job 43",
           "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
     },
     [](harness& h) { ledger_is(h, 2, 0, 0, 0); }},
    {"an unreadable workflow status is logged and read again later", test_config(),
     one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(1)),
          {"start_job 42", "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1"}},
         {5.4, tick(), {"check_workflow"}},
         {5.5, refused("check_workflow", 404, "GET /workflows/5/is_complete: 404"),
          {"warning: worker: workflow status unread: GET /workflows/5/is_complete: 404",
           "arm_timer 10.4"}},
     }},
    {"a refused claim is logged and the next one waits", test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {0.5, refused("claim_jobs", 422, "POST /workflows/5/claim_jobs_based_on_resources/8: 422"),
          {"error: claim: refused: POST /workflows/5/claim_jobs_based_on_resources/8: 422",
           "arm_timer 1"}},
         {1, tick(), {"claim_jobs " + claim8, "arm_timer 5.4"}},
     }},
    {"a claim re-sent after a failure asks for what is free then", test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(4)),
          {"start_job 42", "claim_jobs limit=4 cpus=4 memory=16g gpus=4 nodes=1"}},
         {1.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=4 memory=0"}},
         {1.3, spawned(42), {"info: job 42: started attempt=1 on n0 cpus=4 memory=0"}},
         {1.4, down("claim_jobs"),
          {"warning: server: POST /x: connect 127.0.0.1:8080: Connection refused (connect, "
           "failure 1); retrying in 0.5 s",
           "arm_timer 1.9"}},
         {1.5, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0"}},
         {1.9, tick(), {"claim_jobs " + claim8, "arm_timer 5.4"}},
     }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_claiming)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_AUTO_TEST_SUITE_END()
