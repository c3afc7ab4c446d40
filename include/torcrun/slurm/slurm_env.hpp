// The Slurm environment (or its absence) read into an allocation: which nodes this process may
// use, what each offers, and where every value came from. Node-local values (visible GPU ids,
// SLURM_CPUS_ON_NODE) are never read as allocation-wide, and allocation-wide per-node values are
// never multiplied into a local pool (Torc #249, docs/TORC-COMPATIBILITY.md §2.6).
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/resources.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// What the shell measured on this machine; used outside Slurm and where Slurm is silent.
struct machine_facts {
    std::uint32_t cpus = 0;          // CPUs usable by this process (affinity mask)
    std::uint64_t memory_bytes = 0;  // total memory; 0 when it could not be read
    std::string host_name;
    std::vector<std::string> gpu_ids;  // devices the shell found (e.g. /dev/nvidiaN); may be empty
};

// How much of the allocation this process sees.
//   machine:    not in Slurm; the pool is this machine.
//   allocation: the salloc shell or the batch script; the process sees every node.
//   node_task:  one task of a step (SLURM_STEP_ID set), e.g. a per-node worker started by
//               `srun --ntasks-per-node=1`: its pool is its own node and nothing else.
enum class allocation_scope { machine, allocation, node_task };

std::string_view to_string(allocation_scope scope);

// Where a node's values came from, e.g. "SLURM_JOB_CPUS_PER_NODE=8(x2)".
struct value_sources {
    std::string cpus;
    std::string memory;
    std::string gpus;

    bool operator==(value_sources const&) const = default;
};

struct allocation_node {
    node_capacity capacity;
    value_sources sources;
    // true: capacity.gpu_ids are this node's device ids, read from a visible-device variable or
    // the machine. false: ordinals 0..n-1 made from a count (remote nodes; Slurm binds the real
    // devices when it starts a step there).
    bool gpu_ids_are_device_ids = false;

    bool operator==(allocation_node const&) const = default;
};

struct allocation {
    bool in_slurm = false;
    std::string job_id;  // SLURM_JOB_ID; empty outside Slurm
    allocation_scope scope = allocation_scope::machine;
    // SLURMD_NODENAME in Slurm (never the host name: emulated nodes share one), the host name
    // outside. Empty in a salloc shell on the submit host, which is not a node of the allocation.
    std::string local_node_name;
    std::vector<allocation_node> nodes;         // the pool this process may draw on
    std::optional<std::size_t> local_node;      // index into nodes of the node we run on
    std::vector<std::string> allocation_nodes;  // every node of the Slurm job (also in a node_task)
    std::optional<std::int64_t> end_time;       // SLURM_JOB_END_TIME, epoch seconds
    std::vector<std::string> warnings;          // inconsistencies found; carried, not printed
};

// Reads the allocation from the environment. Errors only for values that cannot be interpreted
// (a malformed hostlist or count list, a non-numeric number); the message names the variable
// and quotes its value. Set-but-empty variables count as unset, except CUDA_VISIBLE_DEVICES:
// empty (or "-1") means no GPU is visible, as CUDA reads it. "NoDevFiles" names no device: the
// next source is used, with a warning. This node's ids come from the first of
// CUDA_VISIBLE_DEVICES, SLURM_STEP_GPUS, SLURM_JOB_GPUS (not inside a step: it is the batch
// host's), ROCR_VISIBLE_DEVICES; other nodes get SLURM_GPUS_PER_NODE, SLURM_GPUS_ON_NODE,
// SLURM_GPUS / nodes, or this node's count, as ordinals.
result<allocation> read_allocation(env_map const& env, machine_facts const& machine);

}  // namespace torcrun::core
