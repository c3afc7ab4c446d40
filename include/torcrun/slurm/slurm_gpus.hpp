// GPU ids and GPU counts in the forms Slurm and the GPU runtimes write them. Ids are opaque
// tokens ("0", "GPU-8f3a…", "MIG-…"): they are passed on exactly as found, never renumbered.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// "0, 1,2" -> "0","1","2": entries trimmed, empty entries skipped. `strip_gres_prefix` removes
// "gpu:" / "GPU:" (SLURM_STEP_GPUS, SLURM_JOB_GPUS). An entry "-1" ends the list, as it ends
// CUDA's enumeration, so "-1" alone means no GPU. Duplicates are kept; the caller decides.
std::vector<std::string> parse_device_list(std::string_view value, bool strip_gres_prefix);

// A per-node GPU count: "4", "a100:4", "gpu:a100:4", "gpu:4", and several types summed
// ("a100:2,v100:1" -> 3). Anything else is an error naming `what` and quoting the value.
result<std::uint32_t> parse_gpu_count(std::string_view value, std::string_view what);

}  // namespace torcrun::core
