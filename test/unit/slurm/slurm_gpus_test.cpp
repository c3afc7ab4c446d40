// GPU id lists and counts, and the GPU rules of read_allocation: which variable describes which
// node, opaque ids, empty and "-1" lists, and every GPU warning and error.
#include "torcrun/slurm/slurm_gpus.hpp"

#include "slurm_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace fixtures;

namespace {

using scope = core::allocation_scope;
using ids = std::vector<std::string>;

struct list_case {
    std::string value;
    bool strip;
    ids expected;
};

std::ostream& operator<<(std::ostream& os, list_case const& c)
{
    return os << c.value;
}

std::vector<list_case> const lists{
    {"0,1,2,3", false, {"0", "1", "2", "3"}},
    {" 0 , 1 ", false, {"0", "1"}},
    {"0,,1", false, {"0", "1"}},
    {"GPU-8f3a1c2d-0000-1111-2222-333344445555,MIG-7b1e",
     false,
     {"GPU-8f3a1c2d-0000-1111-2222-333344445555", "MIG-7b1e"}},
    {"gpu:0,GPU:1, gpu: 2", true, {"0", "1", "2"}},
    {"gpu:0", false, {"gpu:0"}},
    {"-1", false, {}},
    {"0,-1,1", false, {"0"}},
    {"", false, {}},
    {"0,0", false, {"0", "0"}},
};

struct count_case {
    std::string value;
    std::uint32_t expected;
};

std::ostream& operator<<(std::ostream& os, count_case const& c)
{
    return os << c.value;
}

std::vector<count_case> const counts{
    {"4", 4},
    {"a100:4", 4},
    {"gpu:a100:4", 4},
    {"gpu:4", 4},
    {"a100:2,v100:1", 3},
    {"gpu:a100:2,gpu:v100:2", 4},
    {"0", 0},
    {"4294967295", 4294967295u},
};

struct count_error {
    std::string value;
    std::string message;
};

std::ostream& operator<<(std::ostream& os, count_error const& c)
{
    return os << c.value;
}

std::string const not_a_count = "is not a GPU count (N or [gpu:][type:]N, comma-separated)";

std::vector<count_error> const count_errors{
    {"a100", "SLURM_GPUS_PER_NODE: \"a100\" " + not_a_count},
    {"", "SLURM_GPUS_PER_NODE: \"\" " + not_a_count},
    {"gpu:", "SLURM_GPUS_PER_NODE: \"gpu:\" " + not_a_count},
    {":4", "SLURM_GPUS_PER_NODE: \":4\" " + not_a_count},
    {"gpu::4", "SLURM_GPUS_PER_NODE: \"gpu::4\" " + not_a_count},
    {"a100:2,", "SLURM_GPUS_PER_NODE: \"a100:2,\" " + not_a_count},
    {"-4", "SLURM_GPUS_PER_NODE: \"-4\" " + not_a_count},
    {"4(S:0)", "SLURM_GPUS_PER_NODE: \"4(S:0)\" " + not_a_count},
    {"4294967296", "SLURM_GPUS_PER_NODE: \"4294967296\" is too large"},
    {"a100:4294967295,v100:1", "SLURM_GPUS_PER_NODE: \"a100:4294967295,v100:1\" is too large"},
};

core::allocation_node batch_n1(ids gpu_ids, std::string source)
{
    return {
        {"n1", 8, 4000 * mb, std::move(gpu_ids)}, {job_cpus, job_memory, std::move(source)}, true};
}

core::allocation_node remote(std::string name, std::uint32_t count, std::string source)
{
    ids ordinals;
    for (std::uint32_t i = 0; i < count; ++i) ordinals.push_back(std::to_string(i));
    return {{std::move(name), 8, 4000 * mb, std::move(ordinals)},
            {job_cpus, job_memory, std::move(source)},
            false};
}

core::allocation_node outside(ids gpu_ids, std::string source)
{
    return {{"vm", 2, 16ull << 30, std::move(gpu_ids)},
            {"machine (CPUs usable by this process)", "machine total memory", std::move(source)},
            true};
}

std::vector<std::string> const lab_nodes{"n1", "n2"};
std::string const uuid = "GPU-8f3a1c2d-0000-1111-2222-333344445555";
env_map const two_gpus{
    {"SLURM_JOB_GPUS", "0,1"}, {"SLURM_GPUS_ON_NODE", "2"}, {"SLURM_GPUS_PER_NODE", "2"}};
std::string const per_node_two = "SLURM_GPUS_PER_NODE=2 (per node; ids assigned by Slurm)";

std::vector<read_case> const gpu_rules{
    {"outside Slurm: CUDA_VISIBLE_DEVICES restricts the machine's GPUs",
     {{"CUDA_VISIBLE_DEVICES", uuid + ",MIG-7b1e"}},
     scope::machine,
     "vm",
     0,
     {},
     {outside({uuid, "MIG-7b1e"}, "CUDA_VISIBLE_DEVICES=" + uuid + ",MIG-7b1e (node-local)")},
     {}},
    {"outside Slurm: empty CUDA_VISIBLE_DEVICES hides every GPU",
     {{"CUDA_VISIBLE_DEVICES", ""}},
     scope::machine,
     "vm",
     0,
     {},
     {outside({}, "CUDA_VISIBLE_DEVICES= (no GPU visible)")},
     {}},
    {"outside Slurm: CUDA_VISIBLE_DEVICES=-1 hides every GPU",
     {{"CUDA_VISIBLE_DEVICES", "-1"}},
     scope::machine,
     "vm",
     0,
     {},
     {outside({}, "CUDA_VISIBLE_DEVICES=-1 (no GPU visible)")},
     {}},
    {"outside Slurm: ROCR_VISIBLE_DEVICES",
     {{"ROCR_VISIBLE_DEVICES", "1,2"}},
     scope::machine,
     "vm",
     0,
     {},
     {outside({"1", "2"}, "ROCR_VISIBLE_DEVICES=1,2 (node-local)")},
     {}},
    {"outside Slurm: no GPU found",
     {},
     scope::machine,
     "vm",
     0,
     {},
     {outside({}, "machine (no GPU found)")},
     {},
     {2, 16ull << 30, "vm", {}}},
    {"SLURM_JOB_GPUS with gpu: prefixes",
     without(overlay(batch_step(), {{"SLURM_JOB_GPUS", "gpu:0,gpu:1,gpu:2,gpu:3"}}),
             {"CUDA_VISIBLE_DEVICES"}),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {batch_n1(four_ids, "SLURM_JOB_GPUS=gpu:0,gpu:1,gpu:2,gpu:3 (node-local)"),
      remote("n2", 4, per_node_gpus)},
     {}},
    {"SLURM_STEP_GPUS before SLURM_JOB_GPUS in a step",
     without(overlay(worker_step_n2(), {{"SLURM_STEP_GPUS", "GPU:2,GPU:3"},
                                        {"SLURM_JOB_GPUS", "0,1,2,3"},
                                        {"SLURM_GPUS_ON_NODE", "2"},
                                        {"SLURM_GPUS_PER_NODE", "2"}}),
             {"CUDA_VISIBLE_DEVICES"}),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {{{"n2", 8, 4000 * mb, {"2", "3"}},
       {"SLURM_CPUS_ON_NODE=8 (node-local)", job_memory,
        "SLURM_STEP_GPUS=GPU:2,GPU:3 (node-local)"},
       true}},
     {}},
    {"a step does not read the batch host's SLURM_JOB_GPUS",
     overlay(without(worker_step_n2(),
                     {"CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "ROCR_VISIBLE_DEVICES",
                      "SLURM_GPUS_ON_NODE", "SLURM_GPUS_PER_NODE"}),
             {{"SLURM_JOB_GPUS", "0,1,2,3"}}),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {{{"n2", 8, 4000 * mb, {}},
       {"SLURM_CPUS_ON_NODE=8 (node-local)", job_memory, "none (this step has no GPU variable)"},
       false}},
     {}},
    {"cgroup renumbering: same count, different ids, no warning",
     overlay(worker_step_n2(), {{"SLURM_STEP_GPUS", "1,2"},
                                {"CUDA_VISIBLE_DEVICES", "0,1"},
                                {"SLURM_GPUS_ON_NODE", "2"},
                                {"SLURM_GPUS_PER_NODE", "2"}}),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {{{"n2", 8, 4000 * mb, {"0", "1"}},
       {"SLURM_CPUS_ON_NODE=8 (node-local)", job_memory, "CUDA_VISIBLE_DEVICES=0,1 (node-local)"},
       true}},
     {}},
    {"UUID and MIG ids kept as they are",
     overlay(batch_step(), overlay(two_gpus, {{"CUDA_VISIBLE_DEVICES", uuid + ",MIG-7b1e"}})),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {batch_n1({uuid, "MIG-7b1e"}, "CUDA_VISIBLE_DEVICES=" + uuid + ",MIG-7b1e (node-local)"),
      remote("n2", 2, per_node_two)},
     {}},
    {"entries trimmed",
     overlay(batch_step(), overlay(two_gpus, {{"CUDA_VISIBLE_DEVICES", " 0 , 1 "}})),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {batch_n1({"0", "1"}, "CUDA_VISIBLE_DEVICES= 0 , 1  (node-local)"),
      remote("n2", 2, per_node_two)},
     {}},
    {"typed SLURM_GPUS_PER_NODE",
     overlay(salloc_shell(), {{"SLURM_GPUS_PER_NODE", "gpu:a100:2"}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {remote("n1", 2, "SLURM_GPUS_PER_NODE=gpu:a100:2 (per node; ids assigned by Slurm)"),
      remote("n2", 2, "SLURM_GPUS_PER_NODE=gpu:a100:2 (per node; ids assigned by Slurm)")},
     {}},
    {"several GPU types per node",
     overlay(salloc_shell(), {{"SLURM_GPUS_PER_NODE", "a100:2,v100:1"}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {remote("n1", 3, "SLURM_GPUS_PER_NODE=a100:2,v100:1 (per node; ids assigned by Slurm)"),
      remote("n2", 3, "SLURM_GPUS_PER_NODE=a100:2,v100:1 (per node; ids assigned by Slurm)")},
     {}},
    {"SLURM_GPUS spread over the nodes",
     overlay(without(salloc_shell(), {"SLURM_GPUS_PER_NODE"}), {{"SLURM_GPUS", "8"}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {remote("n1", 4, "SLURM_GPUS=8 over 2 nodes (ids assigned by Slurm)"),
      remote("n2", 4, "SLURM_GPUS=8 over 2 nodes (ids assigned by Slurm)")},
     {}},
    {"the local node by count when no id list is set",
     without(batch_step(), {"CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS", "ROCR_VISIBLE_DEVICES"}),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {{{"n1", 8, 4000 * mb, four_ids},
       {job_cpus, job_memory, "SLURM_GPUS_ON_NODE=4 (node-local count; ids assigned by Slurm)"},
       false},
      remote("n2", 4, per_node_gpus)},
     {}},
};

std::vector<read_case> const gpu_warnings{
    {"CUDA_VISIBLE_DEVICES disagrees with SLURM_JOB_GPUS",
     overlay(batch_step(), {{"CUDA_VISIBLE_DEVICES", "0,1"}}),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {batch_n1({"0", "1"}, "CUDA_VISIBLE_DEVICES=0,1 (node-local)"),
      remote("n2", 4, per_node_gpus)},
     {"CUDA_VISIBLE_DEVICES=0,1 lists 2 GPUs but SLURM_JOB_GPUS=0,1,2,3 lists 4; using "
      "CUDA_VISIBLE_DEVICES",
      "SLURM_GPUS_ON_NODE=4 but CUDA_VISIBLE_DEVICES=0,1 lists 2 GPUs; using the listed ids",
      "SLURM_GPUS_PER_NODE=4 but this node (n1) has 2 GPUs; the other nodes are assumed to have "
      "4"}},
    {"an empty CUDA_VISIBLE_DEVICES in a batch step",
     overlay(batch_step(), {{"CUDA_VISIBLE_DEVICES", ""}}),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {batch_n1({}, "CUDA_VISIBLE_DEVICES= (no GPU visible)"), remote("n2", 4, per_node_gpus)},
     {"CUDA_VISIBLE_DEVICES= lists 0 GPUs but SLURM_JOB_GPUS=0,1,2,3 lists 4; using "
      "CUDA_VISIBLE_DEVICES",
      "SLURM_GPUS_ON_NODE=4 but CUDA_VISIBLE_DEVICES= lists 0 GPUs; using the listed ids",
      "SLURM_GPUS_PER_NODE=4 but this node (n1) has 0 GPUs; the other nodes are assumed to have "
      "4"}},
    {"a GPU listed twice",
     overlay(batch_step(), {{"CUDA_VISIBLE_DEVICES", "0,0,1,2,3,0"}}),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {batch_n1(four_ids, "CUDA_VISIBLE_DEVICES=0,0,1,2,3,0 (node-local)"),
      remote("n2", 4, per_node_gpus)},
     {"CUDA_VISIBLE_DEVICES=0,0,1,2,3,0 lists \"0\" more than once; it is counted once"}},
    {"NoDevFiles",
     overlay(batch_step(), {{"CUDA_VISIBLE_DEVICES", "NoDevFiles"}}),
     scope::allocation,
     "n1",
     0,
     lab_nodes,
     {batch_n1(four_ids, "SLURM_JOB_GPUS=0,1,2,3 (node-local)"), remote("n2", 4, per_node_gpus)},
     {"CUDA_VISIBLE_DEVICES=NoDevFiles: Slurm allocated GPUs without device files; ids unknown"}},
    {"a step's ids disagree with SLURM_STEP_GPUS",
     overlay(worker_step_n2(), {{"SLURM_STEP_GPUS", "1,2,3"}, {"CUDA_VISIBLE_DEVICES", "0,1"}}),
     scope::node_task,
     "n2",
     0,
     lab_nodes,
     {{{"n2", 8, 4000 * mb, {"0", "1"}},
       {"SLURM_CPUS_ON_NODE=8 (node-local)", job_memory, "CUDA_VISIBLE_DEVICES=0,1 (node-local)"},
       true}},
     {"CUDA_VISIBLE_DEVICES=0,1 lists 2 GPUs but SLURM_STEP_GPUS=1,2,3 lists 3; using "
      "CUDA_VISIBLE_DEVICES",
      "SLURM_GPUS_ON_NODE=4 but CUDA_VISIBLE_DEVICES=0,1 lists 2 GPUs; using the listed ids",
      "SLURM_GPUS_PER_NODE=4 is the job's value, inherited by this step, which has 2 GPUs on n2: a "
      "nested "
      "srun reads it as --gpus-per-node=4"}},
    {"SLURM_GPUS does not divide evenly",
     overlay(without(salloc_shell(), {"SLURM_GPUS_PER_NODE"}), {{"SLURM_GPUS", "3"}}),
     scope::allocation,
     "",
     {},
     lab_nodes,
     {remote("n1", 1, "SLURM_GPUS=3 over 2 nodes (ids assigned by Slurm)"),
      remote("n2", 1, "SLURM_GPUS=3 over 2 nodes (ids assigned by Slurm)")},
     {"SLURM_GPUS=3 does not divide evenly over 2 nodes; 1 per node is assumed"}},
};

struct env_error {
    std::string name;
    env_map env;
    std::string message;
};

std::ostream& operator<<(std::ostream& os, env_error const& c)
{
    return os << c.name;
}

std::vector<env_error> const gpu_errors{
    {"bad SLURM_GPUS_PER_NODE", overlay(salloc_shell(), {{"SLURM_GPUS_PER_NODE", "a100"}}),
     "SLURM_GPUS_PER_NODE: \"a100\" " + not_a_count},
    {"bad SLURM_GPUS_PER_NODE in a step",
     overlay(worker_step_n2(), {{"SLURM_GPUS_PER_NODE", "x:"}}),
     "SLURM_GPUS_PER_NODE: \"x:\" " + not_a_count},
    {"bad SLURM_GPUS",
     overlay(without(salloc_shell(), {"SLURM_GPUS_PER_NODE"}), {{"SLURM_GPUS", "lots"}}),
     "SLURM_GPUS: \"lots\" " + not_a_count},
    {"bad SLURM_GPUS_ON_NODE", overlay(batch_step(), {{"SLURM_GPUS_ON_NODE", "four"}}),
     "SLURM_GPUS_ON_NODE: \"four\" is not a whole number"},
    {"bad SLURM_GPUS_ON_NODE in a step", overlay(worker_step_n2(), {{"SLURM_GPUS_ON_NODE", "4.0"}}),
     "SLURM_GPUS_ON_NODE: \"4.0\" is not a whole number"},
    // Found by fuzzing: ids were made for 2^31 GPUs on every node before anything objected.
    {"more GPUs per node than any machine has",
     overlay(salloc_shell(), {{"SLURM_GPUS_PER_NODE", "2147483648"}}),
     "SLURM_GPUS_PER_NODE=2147483648 (per node; ids assigned by Slurm): 2147483648 GPUs per node "
     "is more than torcrun accepts (1024)"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(slurm_gpus)

BOOST_DATA_TEST_CASE(parses_device_lists, bdata::make(lists), c)
{
    BOOST_TEST(core::parse_device_list(c.value, c.strip) == c.expected,
               boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(parses_per_node_counts, bdata::make(counts), c)
{
    auto const r = core::parse_gpu_count(c.value, "SLURM_GPUS_PER_NODE");
    BOOST_TEST_REQUIRE(r.has_value(), (r.has_error() ? r.error().message : std::string()));
    BOOST_TEST(*r == c.expected);
}

BOOST_DATA_TEST_CASE(rejects_malformed_counts, bdata::make(count_errors), c)
{
    auto const r = core::parse_gpu_count(c.value, "SLURM_GPUS_PER_NODE");
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_DATA_TEST_CASE(assigns_ids_and_counts_to_the_right_nodes, bdata::make(gpu_rules), c)
{
    check_read(c);
}

BOOST_DATA_TEST_CASE(warns_about_gpu_inconsistencies, bdata::make(gpu_warnings), c)
{
    check_read(c);
}

BOOST_DATA_TEST_CASE(rejects_gpu_values_it_cannot_interpret, bdata::make(gpu_errors), c)
{
    auto const r = core::read_allocation(c.env, lab_machine());
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_AUTO_TEST_SUITE_END()
