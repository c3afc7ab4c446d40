// What each Slurm partition can hold, read from one `sinfo -h -N -o '%P|%N|%c|%m|%G|%l|%s'`
// listing (a line per node and partition): its nodes, the smallest node's CPUs, memory and GPUs
// (a shape that fits it fits every node), its time limit and the largest job it accepts in nodes.
// The allocator (cli/auto_schedule) sizes allocations within these. Pure: the caller runs sinfo.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct partition_limits {
    std::string name;
    bool is_default = false;              // sinfo marks it with '*'
    std::uint32_t nodes = 0;              // nodes listed in it
    std::optional<std::uint32_t> max_job_nodes;  // %s's upper bound; nullopt: infinite
    std::uint32_t cpus_per_node = 0;      // the smallest node's
    std::uint64_t memory_per_node = 0;    // bytes, the smallest node's (%m is megabytes)
    std::uint32_t gpus_per_node = 0;      // the smallest node's gres/gpu count
    std::optional<std::int64_t> max_time_seconds;  // nullopt: infinite

    // The most nodes one allocation in this partition may have.
    std::uint32_t allocation_nodes() const
    {
        return max_job_nodes && *max_job_nodes < nodes ? *max_job_nodes : nodes;
    }

    bool operator==(partition_limits const&) const = default;
};

// The partitions of the listing, the default one first, then in the order listed. Errors name
// the line and the field: `sinfo line 2: CPUs "x" is not a count`.
result<std::vector<partition_limits>> parse_partition_listing(std::string_view sinfo_lines);

// The GPUs of a %G gres field: "gpu:4", "gpu:a100:4(S:0-1)", "gpu:2,nvme:1" -> 2, "(null)" -> 0.
result<std::uint32_t> gres_gpu_count(std::string_view gres);

}  // namespace torcrun::core
