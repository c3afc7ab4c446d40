// The value types of the resource model, shared by the Slurm environment reader, the pool and
// the launch planner. All job values are per node, as in Torc (docs/TORC-COMPATIBILITY.md §2.4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torcrun::core {

// What one node of the allocation offers to jobs.
struct node_capacity {
    std::string name;                  // Slurm node name (SLURMD_NODENAME), or the host name
    std::uint32_t cpus = 0;
    std::uint64_t memory_bytes = 0;
    std::vector<std::string> gpu_ids;  // opaque device tokens ("0", "GPU-<uuid>", "MIG-…")

    bool operator==(node_capacity const&) const = default;
};

// What one job asks for, per node; `num_nodes` nodes are taken whole by multi-node jobs.
struct job_requirement {
    std::uint32_t num_cpus = 1;
    std::uint32_t num_gpus = 0;
    std::uint32_t num_nodes = 1;
    std::uint64_t memory_bytes = 0;

    bool operator==(job_requirement const&) const = default;
};

}  // namespace torcrun::core
