// Environments for the Slurm tests: `env` as recorded on Slurm 22.05.8 (Debian 12) with 2
// emulated nodes x 8 CPUs x 4 GPUs, the setup scripts/slurm-cluster.sh starts, in a job
// `-N2 --ntasks-per-node=1 --cpus-per-task=8 --mem=4000 --gpus-per-node=4`, copied verbatim,
// elisions ("…") included (what each shows: docs/TORC-COMPATIBILITY.md §7), and the environment of
// Torc #249's report (first node of a 2-node x 4-GPU allocation).
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/slurm/slurm_env.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace torcrun::core {

inline std::ostream& operator<<(std::ostream& os, allocation_node const& n)
{
    os << "{" << n.capacity.name << ", " << n.capacity.cpus << " cpus, " << n.capacity.memory_bytes
       << " bytes, gpus [";
    for (auto const& id : n.capacity.gpu_ids) os << id << " ";
    return os << "] " << (n.gpu_ids_are_device_ids ? "device ids" : "ordinals") << ", sources {"
              << n.sources.cpus << " | " << n.sources.memory << " | " << n.sources.gpus << "}}";
}

}  // namespace torcrun::core

namespace fixtures {

using torcrun::core::env_map;

inline env_map overlay(env_map base, env_map const& changes)
{
    for (auto const& [name, value] : changes) base[name] = value;
    return base;
}

inline env_map without(env_map base, std::initializer_list<std::string> names)
{
    for (auto const& name : names) base.erase(name);
    return base;
}

// (a) the salloc shell, on the submit host (no SLURMD_NODENAME, no GPU ids).
inline env_map salloc_shell()
{
    return {{"SLURM_CLUSTER_NAME", "lab"},
            {"SLURM_CONF", "$LAB/run/etc/slurm.conf"},
            {"SLURM_CPUS_PER_TASK", "8"},
            {"SLURM_GPUS_PER_NODE", "4"},
            {"SLURM_JOBID", "6"},
            {"SLURM_JOB_ID", "6"},
            {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"},
            {"SLURM_JOB_NAME", "interactive"},
            {"SLURM_JOB_NODELIST", "n[1-2]"},
            {"SLURM_JOB_NUM_NODES", "2"},
            {"SLURM_JOB_PARTITION", "debug"},
            {"SLURM_MEM_PER_NODE", "4000"},
            {"SLURM_NNODES", "2"},
            {"SLURM_NODELIST", "n[1-2]"},
            {"SLURM_NODE_ALIASES", "(null)"},
            {"SLURM_NPROCS", "2"},
            {"SLURM_NTASKS", "2"},
            {"SLURM_NTASKS_PER_NODE", "1"},
            {"SLURM_SUBMIT_DIR", "…"},
            {"SLURM_SUBMIT_HOST", "vm"},
            {"SLURM_TASKS_PER_NODE", "1(x2)"}};
}

// The sbatch batch script: (a) plus the batch host's (n1) step-like variables, no step id.
inline env_map batch_step()
{
    return overlay(salloc_shell(), {{"CUDA_VISIBLE_DEVICES", "0,1,2,3"},
                                    {"GPU_DEVICE_ORDINAL", "0,1,2,3"},
                                    {"ROCR_VISIBLE_DEVICES", "0,1,2,3"},
                                    {"ZE_AFFINITY_MASK", "0,1,2,3"},
                                    {"SLURMD_NODENAME", "n1"},
                                    {"SLURM_CPUS_ON_NODE", "8"},
                                    {"SLURM_GPUS_ON_NODE", "4"},
                                    {"SLURM_JOB_GPUS", "0,1,2,3"},
                                    {"SLURM_GTIDS", "0"},
                                    {"SLURM_LOCALID", "0"},
                                    {"SLURM_NODEID", "0"},
                                    {"SLURM_PROCID", "0"},
                                    {"SLURM_TASK_PID", "…"},
                                    {"SLURM_JOB_UID", "0"},
                                    {"SLURM_JOB_USER", "root"},
                                    {"SLURM_JOB_GID", "0"},
                                    {"SLURM_TOPOLOGY_ADDR", "n1"},
                                    {"SLURM_TOPOLOGY_ADDR_PATTERN", "node"},
                                    {"SLURM_WORKING_CLUSTER", "lab:127.0.0.1:16817:9728:109"},
                                    {"SLURM_PRIO_PROCESS", "0"}});
}

// (b) a per-node worker step, `srun --ntasks-per-node=1 --overlap …` inside (a), on n2.
inline env_map worker_step_n2()
{
    return overlay(salloc_shell(), {{"CUDA_VISIBLE_DEVICES", "0,1,2,3"},
                                    {"GPU_DEVICE_ORDINAL", "0,1,2,3"},
                                    {"ROCR_VISIBLE_DEVICES", "0,1,2,3"},
                                    {"ZE_AFFINITY_MASK", "0,1,2,3"},
                                    {"SLURMD_NODENAME", "n2"},
                                    {"SLURM_CPUS_ON_NODE", "8"},
                                    {"SLURM_CPUS_PER_TASK", "8"},
                                    {"SLURM_DISTRIBUTION", "cyclic"},
                                    {"SLURM_GPUS_ON_NODE", "4"},
                                    {"SLURM_GPUS_PER_NODE", "4"},
                                    {"SLURM_GTIDS", "1"},
                                    {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"},
                                    {"SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", "8(x2)"},
                                    {"SLURM_JOB_UID", "0"},
                                    {"SLURM_JOB_USER", "root"},
                                    {"SLURM_JOB_GID", "0"},
                                    {"SLURM_LAUNCH_NODE_IPADDR", "127.0.0.1"},
                                    {"SLURM_LOCALID", "0"},
                                    {"SLURM_NODEID", "1"},
                                    {"SLURM_PROCID", "1"},
                                    {"SLURM_TASK_PID", "25425"},
                                    {"SLURM_MEM_PER_NODE", "4000"},
                                    {"SLURM_NNODES", "2"},
                                    {"SLURM_NODELIST", "n[1-2]"},
                                    {"SLURM_NPROCS", "2"},
                                    {"SLURM_NTASKS", "2"},
                                    {"SLURM_NTASKS_PER_NODE", "1"},
                                    {"SLURM_SRUN_COMM_HOST", "127.0.0.1"},
                                    {"SLURM_SRUN_COMM_PORT", "45285"},
                                    {"SLURM_STEP_LAUNCHER_PORT", "45285"},
                                    {"SLURM_STEPID", "0"},
                                    {"SLURM_STEP_ID", "0"},
                                    {"SLURM_STEP_GPUS", "0,1,2,3"},
                                    {"SLURM_STEP_NODELIST", "n[1-2]"},
                                    {"SLURM_STEP_NUM_NODES", "2"},
                                    {"SLURM_STEP_NUM_TASKS", "2"},
                                    {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"},
                                    {"SLURM_TASKS_PER_NODE", "1(x2)"},
                                    {"SLURM_TOPOLOGY_ADDR", "n2"},
                                    {"SLURM_TOPOLOGY_ADDR_PATTERN", "node"},
                                    {"SLURM_UMASK", "0022"}});
}

// (b) on n1: "differs only in SLURMD_NODENAME, SLURM_GTIDS, SLURM_NODEID, SLURM_PROCID,
// SLURM_TASK_PID, SLURM_TOPOLOGY_ADDR".
inline env_map worker_step_n1()
{
    return overlay(worker_step_n2(), {{"SLURMD_NODENAME", "n1"},
                                      {"SLURM_GTIDS", "0"},
                                      {"SLURM_NODEID", "0"},
                                      {"SLURM_PROCID", "0"},
                                      {"SLURM_TASK_PID", "25424"},
                                      {"SLURM_TOPOLOGY_ADDR", "n1"}});
}

// (c) a nested step from inside the n2 worker: `srun --exact -N1 -n1 --gpus=1
// --cpus-per-task=1 --mem=500 -w $SLURMD_NODENAME`; the inherited SLURM_GPUS_PER_NODE=4 made
// it take all 4 GPUs.
inline env_map nested_step()
{
    return overlay(worker_step_n2(), {{"CUDA_VISIBLE_DEVICES", "0,1,2,3"},
                                      {"SLURM_STEP_GPUS", "0,1,2,3"},
                                      {"SLURM_GPUS_ON_NODE", "4"},
                                      {"SLURMD_NODENAME", "n2"},
                                      {"SLURM_CPUS_ON_NODE", "1"},
                                      {"SLURM_CPUS_PER_TASK", "1"},
                                      {"SLURM_STEPID", "1"},
                                      {"SLURM_STEP_ID", "1"},
                                      {"SLURM_STEP_NODELIST", "n2"},
                                      {"SLURM_STEP_NUM_NODES", "1"},
                                      {"SLURM_STEP_NUM_TASKS", "1"},
                                      {"SLURM_STEP_TASKS_PER_NODE", "1"},
                                      {"SLURM_NNODES", "1"},
                                      {"SLURM_NTASKS", "1"},
                                      {"SLURM_NPROCS", "1"},
                                      {"SLURM_TASKS_PER_NODE", "1"},
                                      {"SLURM_NODEID", "0"},
                                      {"SLURM_PROCID", "0"},
                                      {"SLURM_LOCALID", "0"},
                                      {"SLURM_GTIDS", "0"},
                                      {"SLURM_TASK_PID", "25468"},
                                      {"SLURM_NODELIST", "n[1-2]"},
                                      {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"},
                                      {"SLURM_GPUS_PER_NODE", "4"},
                                      {"SLURM_MEM_PER_NODE", "4000"}});
}

// (c) with 1 GPU (`env -u SLURM_GPUS_PER_NODE` or `--gpus-per-node=1`); the job's
// SLURM_GPUS_PER_NODE=4 is still in the step's environment.
inline env_map nested_step_one_gpu()
{
    return overlay(nested_step(), {{"CUDA_VISIBLE_DEVICES", "0"},
                                   {"GPU_DEVICE_ORDINAL", "0"},
                                   {"SLURM_STEP_GPUS", "0"},
                                   {"SLURM_GPUS_ON_NODE", "1"},
                                   {"SLURM_CPUS_ON_NODE", "1"}});
}

// Torc #249: direct mode, 2 nodes x 4 GPUs; what the runner saw on the first node.
inline env_map torc_249_first_node()
{
    return {{"SLURM_JOB_ID", "249"},
            {"SLURM_JOB_NUM_NODES", "2"},
            {"SLURM_JOB_GPUS", "0,1,2,3"},
            {"CUDA_VISIBLE_DEVICES", "0,1,2,3"},
            {"SLURMD_NODENAME", "n1"},
            {"SLURM_JOB_NODELIST", "n[1-2]"},
            {"SLURM_JOB_CPUS_PER_NODE", "8(x2)"},
            {"SLURM_NODEID", "0"}};
}

// A per-node worker of that allocation on n2 (`srun --ntasks-per-node=1`, as (b) above).
inline env_map torc_249_worker_n2()
{
    return overlay(torc_249_first_node(), {{"SLURM_STEP_ID", "0"},
                                           {"SLURMD_NODENAME", "n2"},
                                           {"SLURM_NODEID", "1"},
                                           {"SLURM_STEP_NODELIST", "n[1-2]"},
                                           {"SLURM_STEP_GPUS", "0,1,2,3"},
                                           {"CUDA_VISIBLE_DEVICES", "0,1,2,3"},
                                           {"SLURM_CPUS_ON_NODE", "8"}});
}

// The lab VM: 2 cores, one host name for every emulated node, and the mknod'ed
// /dev/nvidia0-3 that the shell would find (they are not this process's GPUs inside Slurm).
inline torcrun::core::machine_facts lab_machine()
{
    return {2, 16ull << 30, "vm", {"0", "1", "2", "3"}};
}

// One read_allocation call and everything it should produce.
struct read_case {
    std::string name;
    env_map env;
    torcrun::core::allocation_scope scope = torcrun::core::allocation_scope::allocation;
    std::string local_name;
    std::optional<std::size_t> local;
    std::vector<std::string> all_nodes;
    std::vector<torcrun::core::allocation_node> nodes;
    std::vector<std::string> warnings;
    torcrun::core::machine_facts machine = lab_machine();
};

inline std::ostream& operator<<(std::ostream& os, read_case const& c)
{
    return os << c.name;
}

inline void check_read(read_case const& c)
{
    namespace core = torcrun::core;
    auto const r = core::read_allocation(c.env, c.machine);
    BOOST_TEST_REQUIRE(r.has_value(), (r.has_error() ? r.error().message : std::string()));
    BOOST_TEST(r->in_slurm == (c.scope != core::allocation_scope::machine));
    BOOST_TEST(core::to_string(r->scope) == core::to_string(c.scope));
    BOOST_TEST(r->local_node_name == c.local_name);
    BOOST_TEST((r->local_node == c.local));
    BOOST_TEST(r->allocation_nodes == c.all_nodes, boost::test_tools::per_element());
    BOOST_TEST(r->nodes == c.nodes, boost::test_tools::per_element());
    BOOST_TEST(r->warnings == c.warnings, boost::test_tools::per_element());
}

// Values shared by the lab fixtures' expectations.
inline constexpr std::uint64_t mb = 1024 * 1024;
inline std::vector<std::string> const four_ids{"0", "1", "2", "3"};
inline std::string const job_cpus = "SLURM_JOB_CPUS_PER_NODE=8(x2)";
inline std::string const job_memory = "SLURM_MEM_PER_NODE=4000 (MB)";
inline std::string const machine_memory = "machine total memory (Slurm set none)";
inline std::string const per_node_gpus = "SLURM_GPUS_PER_NODE=4 (per node; ids assigned by Slurm)";
inline std::string const visible_four = "CUDA_VISIBLE_DEVICES=0,1,2,3 (node-local)";

}  // namespace fixtures
