// worker_fsm, GPUs: every GPU job gets device ids of its own from the pool, ids freed by an exit
// are claimed for at once, and in a 2-node x 4-GPU slurm-mode pool a 2-node job takes both nodes
// whole while single-GPU jobs wait for it and then fill both nodes.
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

std::vector<core::claimed_job> jobs_of(std::int64_t first, std::int64_t last, std::int64_t rr)
{
    std::vector<core::claimed_job> out;
    for (auto id = first; id <= last; ++id) out.push_back(job(id, rr));
    return out;
}

std::vector<core::node_capacity> two_gpu_nodes()
{
    return {node("n0", 8, 16 * gib, 4), node("n1", 8, 16 * gib, 4)};
}

auto const& node_text = n0_node;
auto const& claim8 = n0_claim;
std::vector<core::node_capacity> one_node() { return n0_pool(); }

std::vector<scenario> const scenarios{
    {"4 GPUs, 1- and 2-GPU jobs: each gets its own ids, freed ids are reused at once",
     test_config(), one_node(),
     opening(node_text, claim8) + std::vector<step>{
         {1, claimed({job(1, 2), job(2, 1), job(3, 1)}),
          {"read_requirements 2", "read_requirements 1"}},
         {1.1, requirements(2, needs(1, 0, 2)), {}},
         {1.2, requirements(1, needs(1, 0, 1)),
          {"start_job 1", "start_job 2", "start_job 3",
           "claim_jobs limit=5 cpus=5 memory=16g gpus=0 nodes=1"}},
         {1.3, done("start_job 1"), {"spawn 1#1 on n0[0,1] cpus=1 memory=0"}},
         {1.3, done("start_job 2"), {"spawn 2#1 on n0[2] cpus=1 memory=0"}},
         {1.3, done("start_job 3"), {"spawn 3#1 on n0[3] cpus=1 memory=0"}},
         {1.35, spawned(1), {"info: job 1: started attempt=1 on n0[0,1] cpus=1 memory=0"}},
         {1.35, spawned(2), {"info: job 2: started attempt=1 on n0[2] cpus=1 memory=0"}},
         {1.35, spawned(3), {"info: job 3: started attempt=1 on n0[3] cpus=1 memory=0"}},
         {1.4, claimed({}), {"arm_timer 1.7"}},
         {2, exit_of(2, exited(0)),
          {"info: job 2: completed rc=0 (exited with 0)",
           "complete_and_claim 2#1 completed rc=0; claim_jobs limit=6 cpus=6 memory=16g gpus=1 "
           "nodes=1",
           "arm_timer 5.4"}},
         {2.1, exchanged({2}, {job(4, 1)}),
          {"start_job 4", "claim_jobs limit=5 cpus=5 memory=16g gpus=0 nodes=1"}},
         {2.2, done("start_job 4"), {"spawn 4#1 on n0[2] cpus=1 memory=0"}},
         {2.25, spawned(4), {"info: job 4: started attempt=1 on n0[2] cpus=1 memory=0"}},
         {2.3, exit_of(1, killed(SIGSEGV)),  // a claim is out: the completion goes alone
          {"warning: job 1: failed rc=139 (killed by SIGSEGV (11))",
           "complete_jobs 1#1 failed rc=139"}},
         {2.4, batch_ok({1}), {}},
         {2.5, claimed({job(5, 2)}),
          {"start_job 5", "claim_jobs limit=5 cpus=5 memory=16g gpus=0 nodes=1"}},
         {2.6, done("start_job 5"), {"spawn 5#1 on n0[0,1] cpus=1 memory=0"}},
     }},
    {"2 nodes x 4 GPUs: a 2-node job takes both nodes whole, then 8 single-GPU jobs",
     test_config(), two_gpu_nodes(),
     opening("cpus=16 memory=32g gpus=8 nodes=2", "limit=16 cpus=8 memory=16g gpus=4 nodes=2") +
         std::vector<step>{
             {1, claimed({job(1, 7)}), {"read_requirements 7"}},
             {1.1, requirements(7, needs(8, 16 * gib, 4, 2)), {"start_job 1"}},
             {1.2, done("start_job 1"),
              {"spawn 1#1 on n0[0,1,2,3],n1[0,1,2,3] cpus=8 memory=16g whole"}},
             {1.3, spawned(1),
              {"info: job 1: started attempt=1 on n0[0,1,2,3],n1[0,1,2,3] cpus=8 memory=16g "
               "whole"}},
             {2, exit_of(1, exited(0)),
              {"info: job 1: completed rc=0 (exited with 0)",
               "complete_and_claim 1#1 completed rc=0; claim_jobs limit=16 cpus=8 memory=16g "
               "gpus=4 nodes=2"}},
             {2.1, exchanged({1}, jobs_of(11, 18, 8)), {"read_requirements 8"}},
             {2.2, requirements(8, needs(1, gib, 1)),
              {"start_job 11", "start_job 12", "start_job 13", "start_job 14", "start_job 15",
               "start_job 16", "start_job 17", "start_job 18",
               "claim_jobs limit=8 cpus=4 memory=12g gpus=0 nodes=1"}},
             {2.3, done("start_job 11"), {"spawn 11#1 on n0[0] cpus=1 memory=1g"}},
             {2.3, done("start_job 14"), {"spawn 14#1 on n0[3] cpus=1 memory=1g"}},
             {2.3, done("start_job 15"), {"spawn 15#1 on n1[0] cpus=1 memory=1g"}},
             {2.3, done("start_job 18"), {"spawn 18#1 on n1[3] cpus=1 memory=1g"}},
         }},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_gpus)

BOOST_DATA_TEST_CASE(scripted, bdata::make(scenarios), s) { play(s); }

BOOST_AUTO_TEST_SUITE_END()
