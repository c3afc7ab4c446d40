// Internal pieces of read_allocation (private to src/slurm): the variable helpers slurm_env.cpp
// and slurm_gpus.cpp share, and the GPU attribution slurm_env.cpp calls.
#pragma once

#include "torcrun/slurm/slurm_env.hpp"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core::detail {

// One variable that is set, as "NAME=value" in sources and messages.
struct env_entry {
    std::string_view name;
    std::string_view value;

    std::string text() const { return std::string(name) + "=" + std::string(value); }
};

// The first of `names` that is set to a non-empty value.
std::optional<env_entry> first_set(env_map const& env,
                                   std::initializer_list<std::string_view> names);

// A whole number no larger than `max`; nullopt when the variable is unset or empty. Errors:
// `NAME: "value" is not <expected>` and `NAME: "value" is too large`.
result<std::optional<std::uint64_t>> env_number(
    env_map const& env, std::string_view name,
    std::uint64_t max = std::numeric_limits<std::uint64_t>::max(),
    std::string_view expected = "a whole number");

std::vector<std::string> ordinals(std::uint32_t count);

struct node_gpus {
    std::vector<std::string> ids;
    bool device_ids = false;
    std::string source;
};

// Outside Slurm: CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, else what the machine found.
node_gpus machine_gpus(env_map const& env, machine_facts const& machine,
                       std::vector<std::string>& warnings);

// A node_task: the step's own GPUs (CUDA_VISIBLE_DEVICES, SLURM_STEP_GPUS, ROCR_VISIBLE_DEVICES,
// else SLURM_GPUS_ON_NODE). Job-wide values are stale inside a step: SLURM_GPUS_PER_NODE is
// only compared, SLURM_JOB_GPUS (the batch host's list) is not read.
result<node_gpus> step_gpus(env_map const& env, std::string_view node_name,
                            std::vector<std::string>& warnings);

// The allocation seen whole: the local node's ids where it has any, per-node counts elsewhere.
result<std::vector<node_gpus>> allocation_gpus(env_map const& env,
                                               std::vector<std::string> const& names,
                                               std::optional<std::size_t> local,
                                               std::vector<std::string>& warnings);

}  // namespace torcrun::core::detail
