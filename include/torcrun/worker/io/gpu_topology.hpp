// This machine's GPUs as NVML lists them, each with the CPUs near it from sysfs: the NUMA node
// and `local_cpulist` of its PCI device (<sysfs>/bus/pci/devices/<bus id>/). The sysfs root is
// /sys; the environment variable TORCRUN_SYSFS_ROOT names another, for tests (a fake tree).
#pragma once

#include "torcrun/slurm/gpu_devices.hpp"

#include <string>
#include <vector>

namespace torcrun::io {

// TORCRUN_SYSFS_ROOT when set and not empty, else "/sys".
std::string sysfs_root();

// Fills numa_node and near_cpus of each device from `root`; a device whose files are missing or
// do not read keeps them empty (shown as unknown).
void add_sysfs_topology(std::vector<core::gpu_device>& devices, std::string const& root);

// The devices (NVML through `library`), with their topology; an empty list and the reason in
// `note` where NVML cannot be opened or finds no GPU. Opens and closes NVML: for commands and
// the worker's start, not for the sampler's tick.
core::gpu_inventory read_gpu_inventory(std::string const& library, std::string const& root);

}  // namespace torcrun::io
