// The few NVML declarations torcrun uses, written here rather than included: Debian 12 ships
// nvml.h only inside the non-free CUDA toolkit (nvidia-cuda-dev), and torcrun must build
// without it. The library itself (libnvidia-ml.so.1) comes with the NVIDIA driver and is
// opened at run time (nvml_library.cpp), so nothing here is linked.
//
// Types, constants and signatures are NVML's public C API as NVIDIA documents it (NVML API
// Reference, "Device Queries", "Multi Instance GPU Management"); the versioned symbol names
// (_v2, _v3) are the ones nvml.h maps the plain names to. Only the fields read are relied upon;
// the structures are laid out exactly as NVML's so that the library may write all of them.
#pragma once

namespace torcrun::io::nvml_api {

using nvml_return = int;  // nvmlReturn_t
inline constexpr nvml_return success = 0;
inline constexpr nvml_return error_not_supported = 3;
inline constexpr nvml_return error_not_found = 6;
inline constexpr nvml_return error_insufficient_size = 7;

struct device_st;
using device = device_st*;  // nvmlDevice_t

inline constexpr unsigned uuid_buffer_size = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned name_buffer_size = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned mig_enabled = 1;        // NVML_DEVICE_MIG_ENABLE

struct memory {  // nvmlMemory_t
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct utilization {  // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};

struct pci_info {  // nvmlPciInfo_t
    char bus_id_legacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pci_device_id;
    unsigned int pci_sub_system_id;
    char bus_id[32];
};

struct process_info {  // nvmlProcessInfo_t (the _v2 and _v3 queries' layout)
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id;
    unsigned int compute_instance_id;
};

struct process_utilization_sample {  // nvmlProcessUtilizationSample_t
    unsigned int pid;
    unsigned long long time_stamp;
    unsigned int sm_util;
    unsigned int mem_util;
    unsigned int enc_util;
    unsigned int dec_util;
};

using init_fn = nvml_return (*)();
using shutdown_fn = nvml_return (*)();
using error_string_fn = char const* (*)(nvml_return);
using device_get_count_fn = nvml_return (*)(unsigned int*);
using device_get_handle_by_index_fn = nvml_return (*)(unsigned int, device*);
using device_get_handle_by_uuid_fn = nvml_return (*)(char const*, device*);
using device_get_string_fn = nvml_return (*)(device, char*, unsigned int);
using device_get_memory_info_fn = nvml_return (*)(device, memory*);
using device_get_utilization_rates_fn = nvml_return (*)(device, utilization*);
using device_get_pci_info_fn = nvml_return (*)(device, pci_info*);
using device_get_mig_mode_fn = nvml_return (*)(device, unsigned int*, unsigned int*);
using device_get_max_mig_device_count_fn = nvml_return (*)(device, unsigned int*);
using device_get_mig_device_handle_by_index_fn = nvml_return (*)(device, unsigned int, device*);
using device_get_compute_running_processes_fn = nvml_return (*)(device, unsigned int*,
                                                                process_info*);
using device_get_process_utilization_fn = nvml_return (*)(device, process_utilization_sample*,
                                                          unsigned int*, unsigned long long);

}  // namespace torcrun::io::nvml_api
