// worker_fsm, stopping: SIGTERM / SIGINT / SIGUSR1 (signal, grace, SIGKILL, terminated reports,
// deactivation, exit 0), a second SIGINT, a canceled workflow, jobs caught between claim and
// spawn, and the hard stop. The deadline, completion and idleness: worker_fsm_endings.
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
std::vector<std::string> exits(std::string code, std::string reason)
{
    return {"info: worker: compute node 9 deactivated", "journal_node drop 9",
            "info: worker: exit " + code + " (" + reason + ")", "exit " + code};
}

core::claimed_job with_outputs(core::claimed_job j)
{
    j.output_file_ids = {11};
    return j;
}

// Slurm's line for a step stopped by the worker's drain (scancel of the step), and its verdict.
std::string const canceled_line =
    "slurmstepd-n0: error: *** STEP 3.1 ON n0 CANCELLED AT 2026-12-02T08:42:18 ***";
core::step_exit step_canceled(int rc)
{
    return {rc, rc == 0 ? core::result_status::completed : core::result_status::terminated,
            core::step_cause::canceled, false, canceled_line};
}

// The runner's note on a direct-mode exit while Slurm ends the allocation (job_runner.cpp).
std::string const allocation_ending = "Slurm job 12 is COMPLETING (squeue)";

auto const start = opening(n0_node, n0_claim);
std::string const claim7 = "claim_jobs limit=7 cpus=7 memory=16g gpus=4 nodes=1";

std::vector<scenario> const scenarios{
    {"SIGTERM: signal, grace, SIGKILL for a job ignoring it, terminated reports, exit 0",
     test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + launched(1.1, job(43), std::nullopt) +
         std::vector<step>{
             {2, sig(SIGTERM),
              {"info: worker: SIGTERM received; stopping", "signal_job 42 SIGTERM",
               "signal_job 43 SIGTERM", "arm_timer 32"}},
             {2.1, exit_of(42, killed(SIGTERM)),
              {"warning: job 42: terminated rc=143 (killed by SIGTERM (15))",
               "complete_jobs 42#1 terminated rc=143"}},
             {2.2, batch_ok({42}), {}},
             {2.3, claimed({job(44)}),
              {"info: job 44: handed back: the worker is stopping", "hand_back 44"}},
             {2.4, done("hand_back 44"), {}},
             {32, tick(),
              {"warning: job 43: still running after the grace; SIGKILL", "signal_job 43 SIGKILL",
               "arm_timer 37"}},
             {32.1, exit_of(43, killed(SIGKILL)),
              {"warning: job 43: terminated rc=137 (killed by SIGKILL (9))",
               "complete_jobs 43#1 terminated rc=137"}},
             {32.2, batch_ok({43}), {"deactivate_node after=32.2"}},
             {32.3, done("deactivate_node"), exits("0", "signal")},
             {33, tick(), {}},
         },
     [](harness& h) {
         BOOST_TEST((h.fsm().stage() == core::worker_stage::stopped));
         BOOST_TEST(h.fsm().ledger().reported == 2u);
         BOOST_TEST(h.fsm().ledger().handed_back == 1u);
     }},
    {"a second SIGINT skips the grace: SIGKILL at once, 5 s left for the reports",
     test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, sig(SIGINT),
          {"info: worker: SIGINT received; stopping", "signal_job 42 SIGTERM", "arm_timer 32"}},
         {3, sig(SIGINT),
          {"warning: worker: SIGINT received again; SIGKILL to every job now",
           "signal_job 42 SIGKILL", "arm_timer 8"}},
         {3.05, sig(SIGINT), {"info: worker: SIGINT received; already stopping"}},
         {3.1, exit_of(42, killed(SIGKILL)),
          {"warning: job 42: terminated rc=137 (killed by SIGKILL (9))",
           "complete_jobs 42#1 terminated rc=137"}},
         {3.15, claimed({}), {}},
         {3.2, batch_ok({42}), {"deactivate_node after=3.2"}},
         {3.3, done("deactivate_node"), exits("0", "signal")},
     }},
    {"SIGUSR1 stops like SIGTERM; a job that exits 0 on the signal is completed", test_config(),
     n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, sig(SIGUSR1),
          {"info: worker: SIGUSR1 received; stopping", "signal_job 42 SIGTERM", "arm_timer 32"}},
         {2.5, exit_of(42, exited(0)),
          {"info: job 42: completed rc=0 (exited with 0)", "complete_jobs 42#1 completed rc=0",
           "arm_timer 37"}},
         {2.55, sig(SIGTERM), {"info: worker: SIGTERM received; already stopping"}},
         {2.6, claimed({}), {}},
         {2.7, batch_ok({42}), {"deactivate_node after=2.7"}},
     }},
    // Slurm mode: SIGUSR1 is the allocation's end warning (--signal=B:USR1@lead), so a step the
    // stop ends gets Torc's time-limit verdict, 152 terminated, as Slurm's TIMEOUT at the step's
    // `srun --time` would have given it in Torc; SIGTERM (a cancel from outside) keeps its code.
    {"SIGUSR1 in slurm mode: a step the stop ends is terminated 152, one exiting 0 completed",
     test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + launched(1.1, job(43), std::nullopt) +
         std::vector<step>{
             {2, sig(SIGUSR1),
              {"info: worker: SIGUSR1 received; stopping", "signal_job 42 SIGTERM",
               "signal_job 43 SIGTERM", "arm_timer 32"}},
             {2.5, ev(worker::job_exited{42, exited(143), std::nullopt, step_canceled(143), {}, {}}),
              {"warning: job 42: terminated rc=152 (exited with 143; " + canceled_line + ")",
               "complete_jobs 42#1 terminated rc=152"}},
             {2.55, batch_ok({42}), {}},
             {2.6, ev(worker::job_exited{43, exited(0), std::nullopt, step_canceled(0), {}, {}}),
              {"info: job 43: completed rc=0 (exited with 0; " + canceled_line + ")",
               "complete_jobs 43#1 completed rc=0", "arm_timer 37"}},
         }},
    {"SIGTERM in slurm mode: a step the stop ends keeps its own code", test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, sig(SIGTERM),
          {"info: worker: SIGTERM received; stopping", "signal_job 42 SIGTERM", "arm_timer 32"}},
         {2.5, ev(worker::job_exited{42, exited(143), std::nullopt, step_canceled(143), {}, {}}),
          {"warning: job 42: terminated rc=143 (exited with 143; " + canceled_line + ")",
           "complete_jobs 42#1 terminated rc=143", "arm_timer 37"}},
     }},
    // Direct mode, an external scancel of the allocation: Slurm's SIGTERM reaches the job and
    // the worker at once, and either may be handled first. Torc's terminate_jobs gives the jobs
    // of a worker Slurm stops `terminated` with their own code; the job's exit carries Slurm's
    // word that the allocation is ending (the runner asks squeue), so it gets that verdict too
    // when its exit comes before the worker's SIGTERM.
    {"external scancel, direct mode, the worker's SIGTERM first: terminated rc=143",
     test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, sig(SIGTERM),
          {"info: worker: SIGTERM received; stopping", "signal_job 42 SIGTERM", "arm_timer 32"}},
         {2.1, exit_of(42, killed(SIGTERM)),
          {"warning: job 42: terminated rc=143 (killed by SIGTERM (15))",
           "complete_jobs 42#1 terminated rc=143", "arm_timer 37"}},
     }},
    {"external scancel, direct mode, the job's exit first: terminated rc=143 all the same",
     test_config(), n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, ev(worker::job_exited{42, killed(SIGTERM), std::nullopt, std::nullopt, "",
                                   allocation_ending}),
          {"warning: job 42: terminated rc=143 (killed by SIGTERM (15); " + allocation_ending +
               ")",
           "complete_jobs 42#1 terminated rc=143"}},
         {2.1, sig(SIGTERM), {"info: worker: SIGTERM received; stopping", "arm_timer 37.1"}},
     }},
    {"external scancel, direct mode: a job that exits 0 on it is completed", test_config(),
     n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, ev(worker::job_exited{42, exited(0), std::nullopt, std::nullopt, "",
                                   allocation_ending}),
          {"info: job 42: completed rc=0 (exited with 0; " + allocation_ending + ")",
           "complete_jobs 42#1 completed rc=0"}},
     }},
    {"a SIGTERM from elsewhere while the allocation runs on: failed rc=143", test_config(),
     n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, exit_of(42, killed(SIGTERM)),
          {"warning: job 42: failed rc=143 (killed by SIGTERM (15))",
           "complete_jobs 42#1 failed rc=143"}},
     }},
    {"a canceled workflow: running jobs are stopped and reported canceled", test_config(),
     n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {5.4, tick(), {"check_workflow"}},
         {5.5, status(false, true),
          {"info: worker: workflow 5 was canceled; stopping", "signal_job 42 SIGTERM",
           "arm_timer 35.5"}},
         {6, exit_of(42, killed(SIGTERM)),
          {"warning: job 42: canceled rc=143 (killed by SIGTERM (15))",
           "complete_jobs 42#1 canceled rc=143", "arm_timer 40.5"}},
     }},
    {"a stop reaches jobs between claim and spawn: each is handed back", test_config(),
     n0_pool(),
     start + std::vector<step>{
         {1, claimed({job(42, 1), job(43, 2)}), {"read_requirements 1", "read_requirements 2"}},
         {1.1, requirements(1, needs(1)), {}},
         {1.2, sig(SIGTERM), {"info: worker: SIGTERM received; stopping", "arm_timer 36.2"}},
         {1.3, requirements(2, needs(1)),
          {"info: job 42: handed back: the worker is stopping", "hand_back 42",
           "info: job 43: handed back: the worker is stopping", "hand_back 43"}},
         {1.4, done("hand_back 42"), {}},
         {1.5, done("hand_back 43"), {"deactivate_node after=1.5"}},
     }},
    {"a stop reaches a job being started and one being spawned", test_config(), n0_pool(),
     start + std::vector<step>{
         {1, claimed({job(42), job(43)}), {"read_requirements 1"}},
         {1.1, requirements(1, needs(1)),
          {"start_job 42", "start_job 43", "claim_jobs limit=6 cpus=6 memory=16g gpus=4 nodes=1"}},
         {1.2, done("start_job 42"), {"spawn 42#1 on n0 cpus=1 memory=0"}},
         {1.3, sig(SIGTERM), {"info: worker: SIGTERM received; stopping", "arm_timer 36.3"}},
         {1.4, done("start_job 43"),
          {"info: job 43: handed back: the worker is stopping", "hand_back 43"}},
         {1.5, spawned(42),
          {"info: job 42: started attempt=1 on n0 cpus=1 memory=0", "signal_job 42 SIGTERM",
           "arm_timer 31.5"}},
         {1.6, exit_of(42, killed(SIGTERM)),
          {"warning: job 42: terminated rc=143 (killed by SIGTERM (15))",
           "complete_jobs 42#1 terminated rc=143", "arm_timer 36.3"}},
         {1.7, claimed({}), {}},
         {1.8, done("hand_back 43"), {}},
         {1.9, batch_ok({42}), {"deactivate_node after=1.9"}},
     }},
    {"the hard stop: the server stays down, the result is journaled, exit 1", test_config(),
     n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {2, sig(SIGTERM),
          {"info: worker: SIGTERM received; stopping", "signal_job 42 SIGTERM", "arm_timer 32"}},
         {2.1, exit_of(42, killed(SIGTERM)),
          {"warning: job 42: terminated rc=143 (killed by SIGTERM (15))",
           "complete_jobs 42#1 terminated rc=143", "arm_timer 37"}},
         {2.15, claimed({}), {}},
         {2.2, down("complete_jobs"),
          {"warning: server: POST /x: connect 127.0.0.1:8080: Connection refused (connect, "
           "failure 1); retrying in 0.5 s",
           "journal_append 42#1 terminated rc=143", "arm_timer 2.7"}},
         {2.7, tick(), {"complete_jobs 42#1 terminated rc=143", "arm_timer 37"}},
         {2.8, down("complete_jobs"), {"...",}},
         {37, tick(),
          {"complete_jobs 42#1 terminated rc=143",
           "error: worker: the stop ran out of time; exiting now",
           "error: job 42: its result is journaled, not reported", "info: worker: exit 1 (signal)",
           "exit 1"}},
     },
     [](harness& h) {
         BOOST_TEST(h.fsm().ledger().journaled == 1u);
         BOOST_TEST(h.fsm().ledger().claimed == h.fsm().ledger().ended());
     }},
    {"the hard stop names every job still held and the phase it is in", test_config(),
     n0_pool(),
     start + std::vector<step>{
         {1, claimed({job(1, 1, 5)}), {"..."}},           // fails, its handler unread
         {1.01, requirements(1, needs(1)), {"..."}},
         {1.02, done("start_job 1"), {"..."}},
         {1.03, spawned(1), {"..."}},
         {1.1, claimed({job(2)}), {"..."}},                // spawn never answered
         {1.12, done("start_job 2"), {"..."}},
         {1.2, claimed({job(3)}), {"..."}},                // start_job unanswered
         {1.3, claimed({job(4)}), {"..."}},                // runs, survives SIGKILL
         {1.32, done("start_job 4"), {"..."}},
         {1.33, spawned(4), {"..."}},
         {1.4, claimed({with_outputs(job(5))}), {"..."}},  // its outputs never checked
         {1.42, done("start_job 5"), {"..."}},
         {1.43, spawned(5), {"..."}},
         {1.5, claimed({job(6)}), {"..."}},                // start refused, hand back unanswered
         {1.52, refused("start_job 6", 422, "x"), {"..."}},
         {1.6, claimed({job(7, 1, 8)}), {"..."}},          // fails, retry unanswered
         {1.62, done("start_job 7"), {"..."}},
         {1.63, spawned(7), {"..."}},
         {1.7, claimed({job(9, 2)}), {"..."}},             // its requirements unread
         {2, exit_of(1, exited(1)), {"..."}},
         {2.1, exit_of(5, exited(0)), {"..."}},
         {2.2, exit_of(7, exited(1)), {"..."}},
         {2.3, reply<worker::failure_handler_read>("read_failure_handler 8",
                                                   core::failure_handler{8, {{{1}, false, {}, 3}}}),
          {"retry_job 7 max_retries=3"}},
         {3, sig(SIGTERM),
          {"info: worker: SIGTERM received; stopping", "signal_job 4 SIGTERM", "arm_timer 33"}},
         {38, tick(),
          {"warning: job 4: still running after the grace; SIGKILL", "signal_job 4 SIGKILL",
           "error: worker: the stop ran out of time; exiting now",
           "error: job 1: abandoned while reading its failure handler; the server keeps it "
           "until its lease expires",
           "error: job 2: abandoned while spawning; the server keeps it until its lease expires",
           "error: job 3: abandoned while starting; the server keeps it until its lease expires",
           "error: job 4: abandoned while running; the server keeps it until its lease expires",
           "error: job 5: abandoned while checking outputs; the server keeps it until its lease "
           "expires",
           "error: job 6: abandoned while handing back; the server keeps it until its lease "
           "expires",
           "error: job 7: abandoned while retrying; the server keeps it until its lease expires",
           "error: job 9: abandoned while reading requirements; the server keeps it until its "
           "lease expires",
           "info: worker: exit 1 (signal)", "exit 1"}},
     },
     [](harness& h) {
         BOOST_TEST(h.fsm().ledger().abandoned == 8u);
         BOOST_TEST(h.fsm().pool().idle());
     }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_draining)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_AUTO_TEST_SUITE_END()
