// The text and JSON forms of `torcrun allocation`, compared whole, and human sizes.
#include "torcrun/slurm/allocation_report.hpp"
#include "torcrun/common/units.hpp"

#include "slurm_fixtures.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace fixtures;

namespace {

struct size_case {
    std::uint64_t bytes;
    std::string text;
};

std::ostream& operator<<(std::ostream& os, size_case const& c)
{
    return os << c.bytes;
}

std::vector<size_case> const sizes{
    {0, "0 B"},
    {512, "512 B"},
    {1023, "1023 B"},
    {1024, "1.0 KiB"},
    {1536, "1.5 KiB"},
    {1048575, "1.0 MiB"},  // rounds up into the next unit, never "1024.0 KiB"
    {4000 * mb, "3.9 GiB"},
    {8000 * mb, "7.8 GiB"},
    {16ull << 30, "16.0 GiB"},
    {1ull << 40, "1.0 TiB"},
    {UINT64_MAX, "16.0 EiB"},
};

struct report_case {
    std::string name;
    env_map env;
    core::requested_mode request;
    std::string text;
};

std::ostream& operator<<(std::ostream& os, report_case const& c)
{
    return os << c.name;
}

std::vector<report_case> const texts{
    {"batch step, auto", batch_step(), core::requested_mode::auto_,
     "scope: allocation (Slurm job 6; this process sees every node)\n"
     "allocation nodes: n[1-2]\n"
     "local node: n1\n"
     "end time: unknown (SLURM_JOB_END_TIME is not set)\n"
     "nodes: 2, 16 CPUs, 7.8 GiB, 8 GPUs\n"
     "  n1 (local): 8 CPUs, 3.9 GiB (4194304000 bytes), GPUs: 0,1,2,3\n"
     "    cpus from SLURM_JOB_CPUS_PER_NODE=8(x2)\n"
     "    memory from SLURM_MEM_PER_NODE=4000 (MB)\n"
     "    gpus from CUDA_VISIBLE_DEVICES=0,1,2,3 (node-local)\n"
     "  n2: 8 CPUs, 3.9 GiB (4194304000 bytes), GPUs: 4 (ids assigned by Slurm)\n"
     "    cpus from SLURM_JOB_CPUS_PER_NODE=8(x2)\n"
     "    memory from SLURM_MEM_PER_NODE=4000 (MB)\n"
     "    gpus from SLURM_GPUS_PER_NODE=4 (per node; ids assigned by Slurm)\n"
     "mode: slurm (requested auto): multi-node allocation (2 nodes) seen whole: jobs start with "
     "srun on n[1-2]\n"
     "pool: n[1-2]\n"
     "warnings: none\n"},
    {"(c) nested step, direct, with an end time",
     overlay(nested_step_one_gpu(), {{"SLURM_JOB_END_TIME", "1767225600"}}),
     core::requested_mode::direct,
     "scope: node_task (Slurm job 6; one task of a step: its own node only)\n"
     "allocation nodes: n[1-2]\n"
     "local node: n2\n"
     "end time: 1767225600 (2026-01-01T00:00:00Z)\n"
     "nodes: 1, 1 CPU, 3.9 GiB, 1 GPU\n"
     "  n2 (local): 1 CPU, 3.9 GiB (4194304000 bytes), GPUs: 0\n"
     "    cpus from SLURM_CPUS_ON_NODE=1 (node-local)\n"
     "    memory from SLURM_MEM_PER_NODE=4000 (MB)\n"
     "    gpus from CUDA_VISIBLE_DEVICES=0 (node-local)\n"
     "mode: direct (requested direct): requested: jobs run here on n2\n"
     "pool: n2\n"
     "auto would pick: direct: one task of a Slurm step: a 1-node pool: jobs run here on n2\n"
     "warnings:\n"
     "  - SLURM_GPUS_PER_NODE=4 is the job's value, inherited by this step, which has 1 GPU on "
     "n2: a nested srun reads it as --gpus-per-node=4\n"
     "  - SLURM_MEM_PER_NODE=4000 is the job's value, inherited by this step, which holds 1 of "
     "the job's 8 CPUs on n2: the step's own memory limit is not in its environment\n"},
    {"(a) salloc shell, slurm", salloc_shell(), core::requested_mode::slurm,
     "scope: allocation (Slurm job 6; this process sees every node)\n"
     "allocation nodes: n[1-2]\n"
     "local node: none (this process is not on a node of the allocation)\n"
     "end time: unknown (SLURM_JOB_END_TIME is not set)\n"
     "nodes: 2, 16 CPUs, 7.8 GiB, 8 GPUs\n"
     "  n1: 8 CPUs, 3.9 GiB (4194304000 bytes), GPUs: 4 (ids assigned by Slurm)\n"
     "    cpus from SLURM_JOB_CPUS_PER_NODE=8(x2)\n"
     "    memory from SLURM_MEM_PER_NODE=4000 (MB)\n"
     "    gpus from SLURM_GPUS_PER_NODE=4 (per node; ids assigned by Slurm)\n"
     "  n2: 8 CPUs, 3.9 GiB (4194304000 bytes), GPUs: 4 (ids assigned by Slurm)\n"
     "    cpus from SLURM_JOB_CPUS_PER_NODE=8(x2)\n"
     "    memory from SLURM_MEM_PER_NODE=4000 (MB)\n"
     "    gpus from SLURM_GPUS_PER_NODE=4 (per node; ids assigned by Slurm)\n"
     "mode: slurm (requested slurm): requested: jobs start with srun on n[1-2]\n"
     "pool: n[1-2]\n"
     "auto would pick: slurm: this process runs outside the allocation's nodes: jobs start with "
     "srun on n[1-2]\n"
     "warnings: none\n"},
    {"outside Slurm, no GPU, direct",
     {{"CUDA_VISIBLE_DEVICES", ""}},
     core::requested_mode::direct,
     "scope: machine (not in a Slurm allocation)\n"
     "local node: vm\n"
     "end time: unknown (SLURM_JOB_END_TIME is not set)\n"
     "nodes: 1, 2 CPUs, 16.0 GiB, 0 GPUs\n"
     "  vm (local): 2 CPUs, 16.0 GiB (17179869184 bytes), GPUs: none\n"
     "    cpus from machine (CPUs usable by this process)\n"
     "    memory from machine total memory\n"
     "    gpus from CUDA_VISIBLE_DEVICES= (no GPU visible)\n"
     "mode: direct (requested direct): requested: jobs run here on vm\n"
     "pool: vm\n"
     "auto would pick: direct: not in a Slurm allocation: jobs run here on vm\n"
     "warnings: none\n"},
};

struct json_case {
    std::string name;
    env_map env;
    core::requested_mode request;
    std::string json;
};

std::ostream& operator<<(std::ostream& os, json_case const& c)
{
    return os << c.name;
}

std::string const torc_249_nodes = R"~(
  "nodes":[
    {"name":"n1","local":true,"cpus":8,"memory_bytes":17179869184,"memory":"16.0 GiB","gpus":4,
     "gpu_ids":["0","1","2","3"],"gpu_ids_are_device_ids":true,
     "sources":{"cpus":"SLURM_JOB_CPUS_PER_NODE=8(x2)",
                "memory":"machine total memory (Slurm set none)",
                "gpus":"CUDA_VISIBLE_DEVICES=0,1,2,3 (node-local)"}},
    {"name":"n2","local":false,"cpus":8,"memory_bytes":17179869184,"memory":"16.0 GiB","gpus":4,
     "gpu_ids":["0","1","2","3"],"gpu_ids_are_device_ids":false,
     "sources":{"cpus":"SLURM_JOB_CPUS_PER_NODE=8(x2)",
                "memory":"machine total memory (Slurm set none)",
                "gpus":"n1's 4 GPUs, assumed for every node (ids assigned by Slurm)"}}],
  "totals":{"nodes":2,"cpus":16,"memory_bytes":34359738368,"memory":"32.0 GiB","gpus":8},)~";

std::string const slurm_reason =
    "multi-node allocation (2 nodes) seen whole: jobs start with srun on n[1-2]";

std::vector<json_case> const jsons{
    {"Torc #249 first node, auto", torc_249_first_node(), core::requested_mode::auto_,
     R"~({"in_slurm":true,"job_id":"249","scope":"allocation","local_node":"n1","end_time":null,
         "allocation_nodes":["n1","n2"],)~"
         + torc_249_nodes + R"~(
         "mode":{"requested":"auto","chosen":"slurm","reason":")~"
         + slurm_reason + R"~(",
                 "pool":["n1","n2"]},
         "auto":{"mode":"slurm","reason":")~"
         + slurm_reason + R"~("},
         "warnings":[]})~"},
    {"Torc #249 first node, direct", torc_249_first_node(), core::requested_mode::direct,
     R"~({"in_slurm":true,"job_id":"249","scope":"allocation","local_node":"n1","end_time":null,
         "allocation_nodes":["n1","n2"],)~"
         + torc_249_nodes + R"~(
         "mode":{"requested":"direct","chosen":"direct","reason":"requested: jobs run here on n1",
                 "pool":["n1"]},
         "auto":{"mode":"slurm","reason":")~"
         + slurm_reason
         + R"~("},
         "warnings":["only n1 is used; n2 stays idle: start one worker per node )~"
           R"~((torcrun slurm-script --per-node-workers) or use --mode slurm"]})~"},
    {"Torc #249 worker on n2", torc_249_worker_n2(), core::requested_mode::auto_,
     R"~({"in_slurm":true,"job_id":"249","scope":"node_task","local_node":"n2","end_time":null,
         "allocation_nodes":["n1","n2"],
         "nodes":[{"name":"n2","local":true,"cpus":8,"memory_bytes":17179869184,"memory":"16.0 GiB",
                   "gpus":4,"gpu_ids":["0","1","2","3"],"gpu_ids_are_device_ids":true,
                   "sources":{"cpus":"SLURM_CPUS_ON_NODE=8 (node-local)",
                              "memory":"machine total memory (Slurm set none)",
                              "gpus":"CUDA_VISIBLE_DEVICES=0,1,2,3 (node-local)"}}],
         "totals":{"nodes":1,"cpus":8,"memory_bytes":17179869184,"memory":"16.0 GiB","gpus":4},
         "mode":{"requested":"auto","chosen":"direct",
                 "reason":"one task of a Slurm step: a 1-node pool: jobs run here on n2",
                 "pool":["n2"]},
         "auto":{"mode":"direct",
                 "reason":"one task of a Slurm step: a 1-node pool: jobs run here on n2"},
         "warnings":[]})~"},
    {"outside Slurm with an end time set (ignored)",
     {{"SLURM_JOB_END_TIME", "1"}},
     core::requested_mode::auto_,
     R"~({"in_slurm":false,"job_id":null,"scope":"machine","local_node":"vm","end_time":null,
         "allocation_nodes":[],
         "nodes":[{"name":"vm","local":true,"cpus":2,"memory_bytes":17179869184,"memory":"16.0 GiB",
                   "gpus":4,"gpu_ids":["0","1","2","3"],"gpu_ids_are_device_ids":true,
                   "sources":{"cpus":"machine (CPUs usable by this process)",
                              "memory":"machine total memory",
                              "gpus":"machine (devices found here)"}}],
         "totals":{"nodes":1,"cpus":2,"memory_bytes":17179869184,"memory":"16.0 GiB","gpus":4},
         "mode":{"requested":"auto","chosen":"direct",
                 "reason":"not in a Slurm allocation: jobs run here on vm","pool":["vm"]},
         "auto":{"mode":"direct","reason":"not in a Slurm allocation: jobs run here on vm"},
         "warnings":[]})~"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation_report)

BOOST_DATA_TEST_CASE(formats_sizes_in_binary_units, bdata::make(sizes), c)
{
    BOOST_TEST(core::format_size(c.bytes) == c.text);
}

BOOST_DATA_TEST_CASE(formats_the_allocation_as_text, bdata::make(texts), c)
{
    auto const a = core::read_allocation(c.env, lab_machine());
    BOOST_TEST_REQUIRE(a.has_value());
    auto const d = core::choose_mode(*a, c.request);
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST(core::format_allocation_text(*a, c.request, *d) == c.text);
}

BOOST_DATA_TEST_CASE(formats_the_allocation_as_json, bdata::make(jsons), c)
{
    auto const a = core::read_allocation(c.env, lab_machine());
    BOOST_TEST_REQUIRE(a.has_value());
    auto const d = core::choose_mode(*a, c.request);
    BOOST_TEST_REQUIRE(d.has_value());
    auto const actual = core::allocation_to_json(*a, c.request, *d);
    auto const expected = boost::json::parse(c.json);
    BOOST_TEST((actual == expected), boost::json::serialize(actual));
}

BOOST_AUTO_TEST_SUITE_END()
