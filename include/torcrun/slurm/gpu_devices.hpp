// The GPUs of a node as the driver names them (index, UUID, name, memory, MIG devices, PCI bus
// id) and the CPUs near each (its NUMA node and `local_cpulist` from sysfs): what
// `torcrun allocation` lists and what the worker matches a job's GPU ids against. Filled by the
// shell (worker/io/nvml_library, cli/io gpu identity); everything here is pure.
//
// A GPU id as Slurm and CUDA write it (CUDA_VISIBLE_DEVICES) is one of: an ordinal ("0"), a GPU
// UUID ("GPU-8f3a…"), a MIG device UUID ("MIG-…", or the older "MIG-GPU-<uuid>/<gi>/<ci>").
// The ids stay opaque tokens in the pool (slurm_gpus.hpp); this file only says which device a
// token names.
#pragma once

#include "torcrun/common/error.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct mig_device {
    unsigned index = 0;  // within its GPU
    std::string uuid;    // "MIG-…"
    std::uint64_t memory_total_bytes = 0;

    bool operator==(mig_device const&) const = default;
};

struct gpu_device {
    unsigned index = 0;      // NVML's index (PCI bus order)
    std::string uuid;        // "GPU-…"
    std::string name;        // "NVIDIA H200"
    std::string pci_bus_id;  // as NVML writes it: "00000000:3B:00.0"
    std::uint64_t memory_total_bytes = 0;
    bool mig_enabled = false;
    std::vector<mig_device> migs;
    // From /sys/bus/pci/devices/<bus id>/numa_node and local_cpulist; none when sysfs says -1
    // or has no such file.
    std::optional<int> numa_node;
    std::vector<unsigned> near_cpus;

    bool operator==(gpu_device const&) const = default;
};

enum class gpu_id_kind { ordinal, gpu_uuid, mig_uuid, other };

gpu_id_kind classify_gpu_id(std::string_view id);

// Which device (and MIG device, if any) a job's GPU id names among `devices`: an ordinal by
// index, a UUID by UUID, a MIG UUID by the MIG device that has it. None when nothing matches.
struct gpu_match {
    std::size_t device = 0;          // position in `devices`
    std::optional<std::size_t> mig;  // position in devices[device].migs
};
std::optional<gpu_match> find_gpu(std::span<gpu_device const> devices, std::string_view id);

// NVML's bus id ("00000000:3B:00.0", domain of 8 hex digits) as sysfs names the device
// ("0000:3b:00.0"). An id of another shape comes back lowercased, unchanged otherwise.
std::string sysfs_pci_name(std::string_view nvml_bus_id);

// A kernel CPU list ("0-3,8,10-11\n") as CPU numbers, ascending, without duplicates. An error
// names the list and the bad part: `CPU list "0-x": "0-x" is not a number or a range`.
result<std::vector<unsigned>> parse_cpu_list(std::string_view text);

// CPU numbers back as a kernel CPU list ("0-3,8").
std::string format_cpu_list(std::span<unsigned const> cpus);

// What `torcrun allocation` lists of this machine's GPUs: the devices, or why there are none
// (`note`: NVML's error, "NVML found no GPU").
struct gpu_inventory {
    std::vector<gpu_device> devices;
    std::string note;
};

// Text, one device a line and its MIG devices below it; `pool_ids` are the local node's GPU ids,
// each device shows the ids that name it ("pool id 0", "not in the pool"):
//   gpu devices (NVML): 1
//     0: GPU-8f3a… NVIDIA H200, 140.4 GiB, bus 0000:3b:00.0, NUMA node 0, CPUs 0-15; pool id 0
//       MIG MIG-5c1d… (slot 1), 17.8 GiB; pool id MIG-5c1d…
std::string format_gpu_inventory(gpu_inventory const& inventory,
                                 std::span<std::string const> pool_ids);
// {"devices": [{"index", "uuid", "name", "pci_bus_id", "memory_bytes", "memory", "mig_enabled",
//   "mig_devices": [{"index", "uuid", "memory_bytes"}], "numa_node", "near_cpus", "pool_ids"}],
//  "note": text|null}
boost::json::value gpu_inventory_json(gpu_inventory const& inventory,
                                      std::span<std::string const> pool_ids);

}  // namespace torcrun::core
