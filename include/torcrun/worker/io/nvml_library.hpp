// NVIDIA's management library (NVML), opened at run time with dlopen: the driver ships
// libnvidia-ml.so.1, so torcrun has no build dependency on CUDA and runs unchanged where there
// is no NVIDIA driver (open() then says why, once, and nothing is measured).
//
// Calls may block (nvmlInit takes seconds on a GPU without persistence mode; a query can wait
// on a busy driver): the worker calls this class on a thread of its own (gpu_sampler), never on
// the reactor. An object is used by one thread at a time.
//
// The library's path is `libnvidia-ml.so.1` (found by the dynamic loader as the driver installs
// it); the environment variable TORCRUN_NVML_LIBRARY names another file, which the tests use to
// load a fake library built in the test tree.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/slurm/gpu_devices.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::io {

inline constexpr char const* nvml_default_library = "libnvidia-ml.so.1";

// TORCRUN_NVML_LIBRARY when set and not empty, else nvml_default_library.
std::string nvml_library_path();

// A job's GPUs read once: utilisation summed over the devices it holds (two busy GPUs read
// 200, as a CPU tree busy on two cores reads 200 %), memory used summed.
struct gpu_reading {
    std::optional<double> utilization_percent;  // none where NVML cannot say (MIG devices)
    std::uint64_t memory_used_bytes = 0;
    bool per_process = false;  // from the job's own processes (MIG, or a GPU others use too)
};

class nvml_library {
public:
    // Opens the library and initialises NVML. Errors: `NVML: libnvidia-ml.so.1: cannot open
    // shared object file: No such file or directory`, `NVML: nvmlInit_v2: Driver Not Loaded`,
    // `NVML: /path: no symbol nvmlInit_v2`.
    static core::result<std::unique_ptr<nvml_library>> open(std::string const& path);

    ~nvml_library();
    nvml_library(nvml_library const&) = delete;
    nvml_library& operator=(nvml_library const&) = delete;

    // Every GPU with its MIG devices; numa_node and near_cpus are left for sysfs.
    core::result<std::vector<core::gpu_device>> devices() const;

    // The GPUs `ids` name (ordinals, GPU or MIG UUIDs, as the job's CUDA_VISIBLE_DEVICES) read
    // for a job whose processes are `pids`. A whole GPU is read as a device (exact: the pool
    // gives each id to one job), unless NVML lists both the job's processes and others on it
    // (shared with something outside torcrun); a MIG device or a shared GPU is read from NVML's
    // per-process figures of the job's processes. Other processes alone do not make a GPU
    // shared: in a container NVML lists host process ids, which never match the job's. An id
    // NVML does not know is an error naming it.
    core::result<gpu_reading> read(std::vector<std::string> const& ids, std::set<int> const& pids);

    struct symbols;

private:
    nvml_library(void* handle, std::unique_ptr<symbols> s);
    void* handle_;
    std::unique_ptr<symbols> s_;
    // Per device: the newest process-utilisation sample already counted (NVML's timestamps).
    std::map<void*, unsigned long long> last_seen_;
};

}  // namespace torcrun::io
