// The shell's side of the allocation: it reads the process environment and measures this machine
// once, and hands both to core::read_allocation as values.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/slurm/slurm_env.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace torcrun::apps {

// Every variable of the process environment.
core::env_map read_process_environment();

// Where the measurements come from; tests point them elsewhere.
struct machine_paths {
    std::string meminfo = "/proc/meminfo";
    std::string dev = "/dev";
};

// CPUs in this process's affinity mask, MemTotal, the host name, and GPU ids from the
// /dev/nvidiaN device files ("0", "1", … in numeric order; none when there are none).
core::machine_facts measure_machine(machine_paths const& paths = {});

// The MemTotal line of /proc/meminfo ("MemTotal:  16384 kB") in bytes; 0 when it is missing.
std::uint64_t mem_total_bytes(std::string_view meminfo);

}  // namespace torcrun::apps
