// worker_fsm, jobs that can never fit: a status check sent while nothing is held and the last
// claim came back empty also reads the ready jobs; when every one can never run on the pool,
// each is named at error level and the worker stops with exit 3. A job that fits, a partial
// list (`more`), a reply that comes twice or after the worker took a job: no exit. A lost reply
// is sent again, still with the ready jobs. While jobs are held the check is the plain one. Job
// labels: another label's job is named by torcrun run's one worker and left to its workers
// otherwise.
#include "worker_fsm_script.hpp"

#include <boost/test/data/test_case.hpp>

#include <memory>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

core::ready_job ready(std::int64_t id, std::string name, core::job_resources r)
{
    return {id, std::move(name), std::move(r), "", "", std::nullopt};
}
// On n0 (8 CPUs, 16 GiB, 4 GPUs): two that can never run, one that can.
core::ready_job const wide = ready(7, "wide", needs(16));
core::ready_job const gpus = ready(8, "gpus", needs(1, 0, 5));
core::ready_job const small = ready(9, "small", needs(2, gib));

make_event ready_jobs(std::vector<core::ready_job> jobs, bool more = false)
{
    return reply<worker::ready_jobs_read>("check_workflow", worker::workflow_state_read{},
                                          std::move(jobs), more);
}
make_event actions_read(std::vector<core::workflow_action> actions)
{
    return reply<worker::pending_actions_read>("read_pending_actions", std::move(actions));
}

auto const start = opening(n0_node, n0_claim);

// torcrun run's one worker: jobs that never fit end it at once.
core::worker_config sole_config()
{
    auto c = test_config();
    c.limits.sole_worker = true;
    return c;
}
// A worker among others: it names them when it would stop for idleness (here after 2 s).
core::worker_config among_others()
{
    auto c = test_config();
    c.limits.idle_timeout_seconds = 2;
    return c;
}
core::ready_job labelled(core::ready_job job, std::string label)
{
    job.label = std::move(label);
    return job;
}
// torcrun run's one worker, started with a label.
core::worker_config labelled_config()
{
    auto c = sole_config();
    c.label = "gpu";
    return c;
}
std::string const never_wide =
    R"(error: never fits: job 7 "wide" needs 16 CPUs; this allocation has 8 CPUs per node)";
std::string const never_gpus =
    R"(error: never fits: job 8 "gpus" needs 5 GPUs; this allocation has 4 GPUs per node)";

// The check_workflow among the last actions: whether it reads the ready jobs.
bool check_reads_ready_jobs(harness& h)
{
    for (auto const& a : h.last())
        if (auto const* c = std::get_if<worker::check_workflow>(&a)) return c->with_ready_jobs;
    BOOST_FAIL("no check_workflow among the last actions");
    return false;
}

// A reply kept to be delivered twice.
struct kept {
    std::shared_ptr<core::request_id> id = std::make_shared<core::request_id>();
    make_event first(std::vector<core::ready_job> jobs) const
    {
        return [id = id, jobs](harness& h) {
            *id = h.req("check_workflow");
            return worker_event{worker::ready_jobs_read{*id, {}, jobs, false}};
        };
    }
    make_event again(std::vector<core::ready_job> jobs) const
    {
        return [id = id, jobs](harness&) {
            return worker_event{worker::ready_jobs_read{*id, {}, jobs, false}};
        };
    }
};
kept const twice;
kept const late;

std::vector<scenario> const scenarios{
    {"every ready job can never run: each is named, then exit 3", sole_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, ready_jobs({wide, gpus}),
          {"error: worker: 2 ready jobs can never run in this allocation; stopping", never_wide,
           never_gpus, "read_pending_actions on_worker_complete"}},
         {0.7, actions_read({}), {"deactivate_node after=0.7"}},
         {0.8, done("deactivate_node"),
          {"info: worker: compute node 9 deactivated", "journal_node drop 9",
           "info: worker: exit 3 (never fits)",
           "exit 3"}},
     },
     [](harness& h) {
         BOOST_TEST((h.fsm().reason() == core::stop_reason::never_fits));
         BOOST_TEST(h.fsm().live_jobs() == 0u);
     }},
    {"among other workers: nothing happens at the read; at the idle stop they are named, exit 3",
     among_others(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"..."}},
         {0.6, ready_jobs({wide, gpus}), {}},
         {1.5, tick(), {"..."}},
         {2.6, tick(), {"..."}},
     },
     [](harness& h) {
         BOOST_TEST((h.fsm().reason() == core::stop_reason::never_fits));
         bool named = false;
         for (auto const& a : h.last())
             if (auto const* l = std::get_if<worker::log>(&a))
                 named = named || l->message == "never fits: job 7 \"wide\" needs 16 CPUs; this "
                                                "allocation has 8 CPUs per node";
         BOOST_TEST(named);
     }},
    // Job labels (extension): another label's job is its workers'; torcrun run's one worker
    // (unlabelled) names it, since no other worker can take it.
    {"the sole worker names a job of a label it does not serve, then exit 3", sole_config(),
     n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, ready_jobs({labelled(small, "gpu")}),
          {"error: worker: 1 ready job can never run in this allocation; stopping",
           "error: never fits: job 9 \"small\" has label \"gpu\"; this worker claims only "
           "unlabelled jobs (a worker started with --label gpu claims it)",
           "read_pending_actions on_worker_complete"}},
     },
     [](harness& h) { BOOST_TEST((h.fsm().reason() == core::stop_reason::never_fits)); }},
    {"among other workers, other labels' jobs are theirs: the idle stop is a plain one",
     among_others(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"..."}},
         {0.6, ready_jobs({labelled(wide, "gpu"), labelled(small, "big")}), {}},
         {1.5, tick(), {"..."}},
         {2.6, tick(), {"..."}},
     },
     [](harness& h) { BOOST_TEST((h.fsm().reason() == core::stop_reason::idle)); }},
    {"a labelled worker judges its own label's jobs only", labelled_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, ready_jobs({small, labelled(wide, "gpu")}),
          {"error: worker: 2 ready jobs can never run in this allocation; stopping",
           "error: never fits: job 9 \"small\" has no label; this worker claims only jobs "
           "labelled \"gpu\" (a worker started without --label claims it)",
           never_wide, "read_pending_actions on_worker_complete"}},
     }},
    {"one ready job fits: no exit, the worker keeps claiming", sole_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, ready_jobs({wide, small, gpus}), {}},
         {0.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 5.5"}},
     },
     [](harness& h) { BOOST_TEST((h.fsm().reason() == core::stop_reason::none)); }},
    {"more than one page of ready jobs: the rest may fit, no exit", sole_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, ready_jobs({wide}, true), {}},
         {0.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 5.5"}},
     }},
    {"no ready job at all: nothing to name, no exit", sole_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, ready_jobs({}), {}},
     }},
    {"a lost reply is sent again, still reading the ready jobs", sole_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, down("check_workflow"),
          {"warning: server: POST /x: connect 127.0.0.1:8080: Connection refused (connect, "
           "failure 1); retrying in 0.5 s"}},
         {0.9, tick(), {"..."}},
         {1.1, tick(), {"..."}},
     },
     [](harness& h) {
         BOOST_TEST(check_reads_ready_jobs(h));
         auto const got = h.feed(1.2, ready_jobs({wide})(h));
         BOOST_TEST_REQUIRE(got.size() >= 3u);
         BOOST_TEST(got[0] == "info: server: answering again");
         BOOST_TEST(got[1] == "error: worker: 1 ready job can never run in this allocation; stopping");
         BOOST_TEST(got[2] == never_wide);
         BOOST_TEST((h.fsm().reason() == core::stop_reason::never_fits));
     }},
    {"a reply that comes twice is ignored the second time", sole_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.6, twice.first({small}), {}},
         {0.7, twice.again({wide}), {"warning: worker: a reply to unknown request 7 was ignored"}},
         {0.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 5.5"}},
     },
     [](harness& h) { BOOST_TEST((h.fsm().reason() == core::stop_reason::none)); }},
    // A worker among others claims on while its check reads the ready jobs; the check's reply
    // comes after the claim gave it a job, and changes nothing.
    {"a reply after the worker took a job is ignored", among_others(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.9, tick(), {"claim_jobs " + n0_claim, "arm_timer 2.5"}},
         {1.0, claimed({job(42)}), {"read_requirements 1"}},
         {1.1, late.first({wide}), {"arm_timer 5.5"}},
         {1.2, requirements(1, needs(1)), {"..."}},
         {1.3, done("start_job 42"), {"spawn 42#1 on n0 cpus=1 memory=0"}},
         {3, tick(), {"..."}},
     },
     [](harness& h) {
         BOOST_TEST((h.fsm().reason() == core::stop_reason::none));
         BOOST_TEST(h.fsm().live_jobs() == 1u);
     }},
    // torcrun run's one worker, its claim empty: the next claim (which would park on the server
    // for the long poll) waits for the check that reads what is ready, so jobs that never fit
    // are named at once instead of after the parked claim.
    {"the sole worker reads what is ready before it claims again", sole_config(), n0_pool(),
     start + std::vector<step>{
         {0.5, claimed({}), {"check_workflow", "arm_timer 0.9"}},
         {0.9, tick(), {"..."}},
         {3, tick(), {"..."}},
         {3.1, ready_jobs({small}), {"claim_jobs " + n0_claim, "arm_timer 5.5"}},
     },
     [](harness& h) {
         BOOST_TEST((h.fsm().reason() == core::stop_reason::none));
         BOOST_TEST(h.count("claim_jobs") == 2u);  // the opening's and the one after the check
     }},
    {"while a job is held the status check does not read the ready jobs", test_config(),
     n0_pool(),
     start + launched(1, job(42), needs(1)) + std::vector<step>{
         {1.4, claimed({}), {"arm_timer 1.51"}},
         {1.51, tick(), {"..."}},
         {5.4, tick(), {"check_workflow"}},
     },
     [](harness& h) { BOOST_TEST(!check_reads_ready_jobs(h)); }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_never_fits)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_AUTO_TEST_SUITE_END()
