// read_allocation on the Slurm 22.05 environments of slurm_fixtures.hpp and Torc #249, the CPU,
// memory, node-name and scope rules, and every error. GPU rules and their warnings are in
// slurm_gpus_test.cpp.
#include "torcrun/slurm/slurm_env.hpp"

#include "slurm_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace fixtures;

namespace {

using scope = core::allocation_scope;

std::vector<std::string> const lab_nodes{"n1", "n2"};
std::uint64_t const lab_memory = 16ull << 30;

core::allocation_node lab_remote(std::string name)
{
    return {
        {std::move(name), 8, 4000 * mb, four_ids}, {job_cpus, job_memory, per_node_gpus}, false};
}

core::allocation_node lab_worker(std::string name, std::uint32_t cpus, std::vector<std::string> ids,
                                 std::string gpu_source)
{
    return {{std::move(name), cpus, 4000 * mb, std::move(ids)},
            {"SLURM_CPUS_ON_NODE=" + std::to_string(cpus) + " (node-local)", job_memory,
             std::move(gpu_source)},
            true};
}

core::allocation_node machine_node(std::vector<std::string> ids, std::string gpu_source)
{
    return {
        {"vm", 2, lab_memory, std::move(ids)},
        {"machine (CPUs usable by this process)", "machine total memory", std::move(gpu_source)},
        true};
}

std::string const stale_memory =
    "SLURM_MEM_PER_NODE=4000 is the job's value, inherited by this step, which holds 1 of the "
    "job's 8 CPUs on n2: the step's own memory limit is not in its environment";

std::vector<read_case> const lab_dumps{
    {"(a) salloc shell on the submit host",
     salloc_shell(),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {lab_remote("n1"), lab_remote("n2")},
     {}},
    {"batch step on n1",
     batch_step(),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {{{"n1", 8, 4000 * mb, four_ids}, {job_cpus, job_memory, visible_four}, true},
      lab_remote("n2")},
     {}},
    {"(b) worker step on n2",
     worker_step_n2(),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {lab_worker("n2", 8, four_ids, visible_four)},
     {}},
    {"(b) worker step on n1",
     worker_step_n1(),
     scope::node_task,
     "n1",
     0,
     lab_nodes,
     {lab_worker("n1", 8, four_ids, visible_four)},
     {}},
    {"(c) nested step that took all 4 GPUs",
     nested_step(),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {lab_worker("n2", 1, four_ids, visible_four)},
     {stale_memory}},
    {"(c) nested step with 1 GPU",
     nested_step_one_gpu(),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {lab_worker("n2", 1, {"0"}, "CUDA_VISIBLE_DEVICES=0 (node-local)")},
     {"SLURM_GPUS_PER_NODE=4 is the job's value, inherited by this step, which has 1 GPU on n2: a "
      "nested srun reads it as --gpus-per-node=4",
      stale_memory}},
};

// Torc #249: 4 GPU ids per node, 8 in all; never 4 in all, never 8 on one node.
std::vector<read_case> const torc_249{
    {"first node: n1's ids, n2 assumed alike",
     torc_249_first_node(),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {{{"n1", 8, lab_memory, four_ids}, {job_cpus, machine_memory, visible_four}, true},
      {{"n2", 8, lab_memory, four_ids},
       {job_cpus, machine_memory, "n1's 4 GPUs, assumed for every node (ids assigned by Slurm)"},
       false}},
     {}},
    {"first node with SLURM_GPUS_ON_NODE",
     overlay(torc_249_first_node(), {{"SLURM_GPUS_ON_NODE", "4"}}),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {{{"n1", 8, lab_memory, four_ids}, {job_cpus, machine_memory, visible_four}, true},
      {{"n2", 8, lab_memory, four_ids},
       {job_cpus, machine_memory,
        "SLURM_GPUS_ON_NODE=4 (this node's count, assumed for every node; ids assigned by Slurm)"},
       false}},
     {}},
    {"per-node worker on n2 sees its own 4",
     torc_249_worker_n2(),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {{{"n2", 8, lab_memory, four_ids},
       {"SLURM_CPUS_ON_NODE=8 (node-local)", machine_memory, visible_four},
       true}},
     {}},
};

core::allocation_node plain(std::string name, std::uint32_t cpus, std::uint64_t memory,
                            std::string cpu_source, std::string memory_source)
{
    return {{std::move(name), cpus, memory, {}},
            {std::move(cpu_source), std::move(memory_source), "none (no GPU variable set)"},
            false};
}

env_map const three_nodes{{"SLURM_JOB_ID", "7"},
                          {"SLURM_JOB_NODELIST", "n[1-3]"},
                          {"SLURM_JOB_CPUS_PER_NODE", "36(x2),24"},
                          {"SLURM_MEM_PER_CPU", "1000"}};
std::string const heterogeneous = "SLURM_JOB_CPUS_PER_NODE=36(x2),24";
std::string const machine_cpus = "machine (CPUs usable by this process; Slurm set none)";

std::vector<read_case> const rules{
    {"outside Slurm: the machine",
     {},
     scope::machine,
     "vm",
     0,
     {},
     {machine_node(four_ids, "machine (devices found here)")},
     {}},
    {"outside Slurm, stray Slurm variables are ignored",
     {{"SLURM_STEP_GPUS", "0"},
      {"SLURM_MEM_PER_NODE", "1"},
      {"SLURM_JOB_NODELIST", "n["},
      {"SLURM_STEP_ID", "0"}},
     scope::machine,
     "vm",
     0,
     {},
     {machine_node(four_ids, "machine (devices found here)")},
     {}},
    {"SLURM_MEM_PER_CPU times each node's CPUs",
     three_nodes,
     scope::allocation,
     "",
     {},
     {"n1", "n2", "n3"},
     {plain("n1", 36, 36000 * mb, heterogeneous, "SLURM_MEM_PER_CPU=1000 (MB) x 36 CPUs"),
      plain("n2", 36, 36000 * mb, heterogeneous, "SLURM_MEM_PER_CPU=1000 (MB) x 36 CPUs"),
      plain("n3", 24, 24000 * mb, heterogeneous, "SLURM_MEM_PER_CPU=1000 (MB) x 24 CPUs")},
     {}},
    {"SLURM_MEM_PER_NODE=0 is the whole node",
     {{"SLURM_JOB_ID", "7"},
      {"SLURM_JOB_NODELIST", "n1"},
      {"SLURM_JOB_CPUS_PER_NODE", "4"},
      {"SLURM_MEM_PER_NODE", "0"}},
     scope::allocation,
     "",
     {},
     {"n1"},
     {plain("n1", 4, lab_memory, "SLURM_JOB_CPUS_PER_NODE=4",
            "SLURM_MEM_PER_NODE=0 (the whole node: machine total memory)")},
     {}},
    {"no memory variable: the machine's memory, no failure",
     overlay(salloc_shell(), {{"SLURM_MEM_PER_NODE", ""}, {"SLURM_GPUS_PER_NODE", ""}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {plain("n1", 8, lab_memory, job_cpus, machine_memory),
      plain("n2", 8, lab_memory, job_cpus, machine_memory)},
     {}},
    {"SLURM_CPUS_ON_NODE stands in for a missing SLURM_JOB_CPUS_PER_NODE",
     {{"SLURM_JOB_ID", "7"},
      {"SLURM_JOB_NODELIST", "n[1-2]"},
      {"SLURMD_NODENAME", "n1"},
      {"SLURM_CPUS_ON_NODE", "8"}},
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {plain("n1", 8, lab_memory, "SLURM_CPUS_ON_NODE=8 (this node's count, assumed for every node)",
            machine_memory),
      plain("n2", 8, lab_memory, "SLURM_CPUS_ON_NODE=8 (this node's count, assumed for every node)",
            machine_memory)},
     {}},
    {"no CPU variable: the machine's CPUs",
     {{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_NODELIST", "n1"}},
     scope::allocation,
     "",
     {},
     {"n1"},
     {plain("n1", 2, lab_memory, machine_cpus, machine_memory)},
     {}},
    {"SLURM_NODELIST and SLURM_NNODES when the SLURM_JOB_ forms are unset",
     without(salloc_shell(), {"SLURM_JOB_NODELIST", "SLURM_JOB_NUM_NODES"}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {lab_remote("n1"), lab_remote("n2")},
     {}},
    {"SLURM_JOBID alone means Slurm",
     without(salloc_shell(), {"SLURM_JOB_ID"}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {lab_remote("n1"), lab_remote("n2")},
     {}},
    {"SLURM_STEPID alone means a step",
     without(worker_step_n2(), {"SLURM_STEP_ID"}),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {lab_worker("n2", 8, four_ids, visible_four)},
     {}},
    {"a step without SLURMD_NODENAME: SLURM_STEP_NODELIST[SLURM_NODEID]",
     without(worker_step_n2(), {"SLURMD_NODENAME"}),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {lab_worker("n2", 8, four_ids, visible_four)},
     {}},
};

std::vector<read_case> const warnings{
    {"node count disagrees with the nodelist",
     overlay(salloc_shell(), {{"SLURM_JOB_NUM_NODES", "3"}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {lab_remote("n1"), lab_remote("n2")},
     {"SLURM_JOB_NUM_NODES=3 but SLURM_JOB_NODELIST=n[1-2] names 2 nodes; using the named nodes"}},
    {"fewer CPU counts than nodes",
     overlay(salloc_shell(), {{"SLURM_JOB_CPUS_PER_NODE", "8"}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {{{"n1", 8, 4000 * mb, four_ids},
       {"SLURM_JOB_CPUS_PER_NODE=8", job_memory, per_node_gpus},
       false},
      {{"n2", 8, 4000 * mb, four_ids},
       {"SLURM_JOB_CPUS_PER_NODE=8", job_memory, per_node_gpus},
       false}},
     {"SLURM_JOB_CPUS_PER_NODE=8 gives 1 value for 2 nodes; the last value is used for the rest"}},
    {"more CPU counts than nodes",
     overlay(salloc_shell(), {{"SLURM_JOB_CPUS_PER_NODE", "8(x3)"}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {{{"n1", 8, 4000 * mb, four_ids},
       {"SLURM_JOB_CPUS_PER_NODE=8(x3)", job_memory, per_node_gpus},
       false},
      {{"n2", 8, 4000 * mb, four_ids},
       {"SLURM_JOB_CPUS_PER_NODE=8(x3)", job_memory, per_node_gpus},
       false}},
     {"SLURM_JOB_CPUS_PER_NODE=8(x3) gives 3 values for 2 nodes; the extra values are ignored"}},
    {"SLURMD_NODENAME outside the nodelist",
     overlay(batch_step(), {{"SLURMD_NODENAME", "n9"}}),
     scope::allocation,
     "n9",
     {},
     lab_nodes,
     {lab_remote("n1"), lab_remote("n2")},
     {"this node (n9) is not one of the job's nodes (n[1-2])"}},
    {"no nodelist: only this node",
     {{"SLURM_JOB_ID", "5"}, {"SLURMD_NODENAME", "n1"}, {"SLURM_JOB_CPUS_PER_NODE", "4"}},
     scope::allocation,
     "n1",
     0,
     {"n1"},
     {plain("n1", 4, lab_memory, "SLURM_JOB_CPUS_PER_NODE=4", machine_memory)},
     {"SLURM_JOB_NODELIST is not set; only this node (n1) is known"}},
    {"a step that cannot name its node",
     without(worker_step_n2(), {"SLURMD_NODENAME", "SLURM_STEP_NODELIST"}),
     scope::node_task,
     "vm",
     0,
     lab_nodes,
     {lab_worker("vm", 8, four_ids, visible_four)},
     {"SLURMD_NODENAME is not set; this node is named by its host name (vm)",
      "this node (vm) is not one of the job's nodes (n[1-2])"}},
};

struct error_case {
    std::string name;
    env_map env;
    std::string message;
};

std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << c.name;
}

env_map const job{{"SLURM_JOB_ID", "1"}, {"SLURM_JOB_NODELIST", "n[1-2]"}};
env_map const step = overlay(job, {{"SLURM_STEP_ID", "0"}});

std::vector<error_case> const errors{
    {"bad nodelist", overlay(job, {{"SLURM_JOB_NODELIST", "n[1-"}}),
     R"~(SLURM_JOB_NODELIST: "n[1-" has an unbalanced bracket)~"},
    {"bad SLURM_NODELIST",
     {{"SLURM_JOB_ID", "1"}, {"SLURM_NODELIST", "n[3-1]"}},
     R"~(SLURM_NODELIST: "n[3-1]" has a descending range "3-1")~"},
    {"bad CPU counts", overlay(job, {{"SLURM_JOB_CPUS_PER_NODE", "8(x)"}}),
     R"~(SLURM_JOB_CPUS_PER_NODE: "8(x)" has a malformed item "8(x)" (expected N or N(xR)))~"},
    {"bad node count", overlay(job, {{"SLURM_JOB_NUM_NODES", "two"}}),
     R"~(SLURM_JOB_NUM_NODES: "two" is not a whole number)~"},
    {"bad SLURM_NNODES", overlay(job, {{"SLURM_NNODES", "-2"}}),
     R"~(SLURM_NNODES: "-2" is not a whole number)~"},
    {"memory with a unit", overlay(job, {{"SLURM_MEM_PER_NODE", "4G"}}),
     R"~(SLURM_MEM_PER_NODE: "4G" is not a whole number of MB)~"},
    {"fractional memory per CPU", overlay(job, {{"SLURM_MEM_PER_CPU", "1.5"}}),
     R"~(SLURM_MEM_PER_CPU: "1.5" is not a whole number of MB)~"},
    {"memory beyond 64 bits of bytes", overlay(job, {{"SLURM_MEM_PER_NODE", "17592186044416"}}),
     R"~(SLURM_MEM_PER_NODE: "17592186044416" is too large)~"},
    {"memory per CPU beyond 64 bits once multiplied",
     overlay(job, {{"SLURM_MEM_PER_CPU", "17592186044415"}, {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"}}),
     R"~(SLURM_MEM_PER_CPU: "17592186044415" is too large)~"},
    {"bad SLURM_CPUS_ON_NODE in a step", overlay(step, {{"SLURM_CPUS_ON_NODE", "eight"}}),
     R"~(SLURM_CPUS_ON_NODE: "eight" is not a whole number)~"},
    {"SLURM_CPUS_ON_NODE beyond 32 bits", overlay(job, {{"SLURM_CPUS_ON_NODE", "4294967296"}}),
     R"~(SLURM_CPUS_ON_NODE: "4294967296" is too large)~"},
    {"bad end time", overlay(job, {{"SLURM_JOB_END_TIME", "tomorrow"}}),
     R"~(SLURM_JOB_END_TIME: "tomorrow" is not a number of seconds since the epoch)~"},
    {"bad step nodelist", overlay(step, {{"SLURM_STEP_NODELIST", "n["}}),
     R"~(SLURM_STEP_NODELIST: "n[" has an unbalanced bracket)~"},
    {"bad node id", overlay(step, {{"SLURM_STEP_NODELIST", "n[1-2]"}, {"SLURM_NODEID", "x"}}),
     R"~(SLURM_NODEID: "x" is not a whole number)~"},
    {"bad job CPU counts seen from a step",
     overlay(step, {{"SLURMD_NODENAME", "n1"},
                    {"SLURM_MEM_PER_NODE", "100"},
                    {"SLURM_JOB_CPUS_PER_NODE", "(x2)"}}),
     R"~(SLURM_JOB_CPUS_PER_NODE: "(x2)" has a malformed item "(x2)" (expected N or N(xR)))~"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_env)

BOOST_DATA_TEST_CASE(reads_the_lab_dumps, bdata::make(lab_dumps), c)
{
    check_read(c);
}

BOOST_DATA_TEST_CASE(torc_249_gives_4_gpus_per_node, bdata::make(torc_249), c)
{
    check_read(c);
}

BOOST_DATA_TEST_CASE(follows_the_cpu_memory_and_node_rules, bdata::make(rules), c)
{
    check_read(c);
}

BOOST_DATA_TEST_CASE(warns_about_inconsistencies, bdata::make(warnings), c)
{
    check_read(c);
}

BOOST_DATA_TEST_CASE(rejects_values_it_cannot_interpret, bdata::make(errors), c)
{
    auto const r = core::read_allocation(c.env, lab_machine());
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_AUTO_TEST_CASE(torc_249_pool_totals_8_gpus_and_a_worker_holds_4)
{
    auto const whole = core::read_allocation(torc_249_first_node(), lab_machine());
    BOOST_TEST_REQUIRE(whole.has_value());
    std::size_t total = 0;
    for (auto const& n : whole->nodes) total += n.capacity.gpu_ids.size();
    BOOST_TEST(total == 8u);
    auto const worker = core::read_allocation(torc_249_worker_n2(), lab_machine());
    BOOST_TEST_REQUIRE(worker.has_value());
    BOOST_TEST_REQUIRE(worker->nodes.size() == 1u);
    BOOST_TEST(worker->nodes[0].capacity.gpu_ids == four_ids, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reads_the_job_id_and_end_time)
{
    auto const r = core::read_allocation(
        overlay(salloc_shell(), {{"SLURM_JOB_END_TIME", "1767225600"}}), lab_machine());
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->job_id == "6");
    BOOST_TEST_REQUIRE(r->end_time.has_value());
    BOOST_TEST(*r->end_time == 1767225600);
    auto const none = core::read_allocation(salloc_shell(), lab_machine());
    BOOST_TEST_REQUIRE(none.has_value());
    BOOST_TEST(!none->end_time.has_value());
    auto const outside = core::read_allocation({}, lab_machine());
    BOOST_TEST_REQUIRE(outside.has_value());
    BOOST_TEST(outside->job_id.empty());
}

BOOST_AUTO_TEST_CASE(scope_names)
{
    BOOST_TEST(core::to_string(scope::machine) == "machine");
    BOOST_TEST(core::to_string(scope::allocation) == "allocation");
    BOOST_TEST(core::to_string(scope::node_task) == "node_task");
}

BOOST_AUTO_TEST_SUITE_END()
