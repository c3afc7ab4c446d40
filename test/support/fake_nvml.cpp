// A stand-in for the NVIDIA driver's libnvidia-ml.so.1, built as a shared library of that name
// in the test tree and loaded through TORCRUN_NVML_LIBRARY. It proves torcrun's NVML plumbing
// (dlopen, symbols, structures, errors, attribution); it never proves anything about a GPU.
//
// The devices come from the file FAKE_NVML_STATE names, read again at every call so that a test
// changes the figures between samples. One line per fact, fields separated by spaces:
//   gpu INDEX UUID NAME BUS_ID TOTAL_BYTES USED_BYTES UTIL_PERCENT [mig]
//   mig GPU_INDEX SLOT UUID TOTAL_BYTES USED_BYTES
//   proc UUID PID USED_BYTES SM_PERCENT       (a compute process on the GPU or MIG device UUID)
//   init_error CODE                           (nvmlInit_v2 answers CODE)
// NAME has no spaces (use _ ; they are shown as spaces).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct device {
    bool is_mig = false;
    int index = 0;
    int parent = -1;
    int slot = 0;
    std::string uuid, name, bus_id;
    unsigned long long total = 0, used = 0;
    unsigned util = 0;
    bool mig_mode = false;
};

struct process {
    std::string uuid;
    unsigned pid = 0;
    unsigned long long used = 0;
    unsigned sm = 0;
};

struct state {
    std::vector<device> devices;  // stable addresses within one call: never resized after load
    std::vector<process> processes;
    int init_error = 0;
};

// Handles must stay valid between calls while the file changes: devices live in a fixed table.
device table[64];
int table_size = 0;
state current;
unsigned long long clock_us = 1000;

void load()
{
    current = state{};
    char const* path = std::getenv("FAKE_NVML_STATE");
    if (!path) return;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string kind;
        f >> kind;
        if (kind == "gpu") {
            device d;
            std::string mig;
            f >> d.index >> d.uuid >> d.name >> d.bus_id >> d.total >> d.used >> d.util >> mig;
            std::replace(d.name.begin(), d.name.end(), '_', ' ');
            d.mig_mode = mig == "mig";
            current.devices.push_back(d);
        } else if (kind == "mig") {
            device d;
            d.is_mig = true;
            f >> d.parent >> d.slot >> d.uuid >> d.total >> d.used;
            current.devices.push_back(d);
        } else if (kind == "proc") {
            process p;
            f >> p.uuid >> p.pid >> p.used >> p.sm;
            current.processes.push_back(p);
        } else if (kind == "init_error") {
            f >> current.init_error;
        }
    }
    // Same UUID keeps the same slot, so handles stay valid while figures change.
    for (auto const& d : current.devices) {
        int at = -1;
        for (int i = 0; i < table_size; ++i)
            if (table[i].uuid == d.uuid) at = i;
        if (at < 0 && table_size < 64) at = table_size++;
        if (at >= 0) table[at] = d;
    }
}

device* find_gpu(unsigned index)
{
    for (int i = 0; i < table_size; ++i)
        if (!table[i].is_mig && table[i].index == static_cast<int>(index)) return &table[i];
    return nullptr;
}

unsigned gpu_count()
{
    unsigned n = 0;
    for (auto const& d : current.devices) n += d.is_mig ? 0 : 1;
    return n;
}

void copy(char* out, unsigned size, std::string const& s)
{
    std::strncpy(out, s.c_str(), size);
    if (size) out[size - 1] = '\0';
}

struct memory_t {
    unsigned long long total, free, used;
};
struct utilization_t {
    unsigned gpu, memory;
};
struct pci_t {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_sub_system_id;
    char bus_id[32];
};
struct process_info_t {
    unsigned pid;
    unsigned long long used;
    unsigned gi, ci;
};
struct process_sample_t {
    unsigned pid;
    unsigned long long time_stamp;
    unsigned sm, mem, enc, dec;
};

}  // namespace

extern "C" {

using device_t = device*;

int nvmlInit_v2()
{
    load();
    return current.init_error;
}
int nvmlShutdown()
{
    return 0;
}
char const* nvmlErrorString(int rc)
{
    switch (rc) {
    case 0:
        return "Success";
    case 3:
        return "Not Supported";
    case 6:
        return "Not Found";
    case 7:
        return "Insufficient Size";
    case 9:
        return "Driver Not Loaded";
    default:
        return "Unknown Error";
    }
}
int nvmlDeviceGetCount_v2(unsigned* count)
{
    load();
    *count = gpu_count();
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, device_t* out)
{
    load();
    *out = find_gpu(index);
    return *out ? 0 : 2;  // NVML_ERROR_INVALID_ARGUMENT
}
int nvmlDeviceGetHandleByUUID(char const* uuid, device_t* out)
{
    load();
    for (int i = 0; i < table_size; ++i)
        if (table[i].uuid == uuid) {
            *out = &table[i];
            return 0;
        }
    return 6;
}
int nvmlDeviceGetUUID(device_t d, char* out, unsigned size)
{
    copy(out, size, d->uuid);
    return 0;
}
int nvmlDeviceGetName(device_t d, char* out, unsigned size)
{
    copy(out, size, d->is_mig ? "MIG slice" : d->name);
    return 0;
}
int nvmlDeviceGetMemoryInfo(device_t d, memory_t* m)
{
    load();
    m->total = d->total;
    m->used = d->used;
    m->free = d->total - d->used;
    return 0;
}
int nvmlDeviceGetUtilizationRates(device_t d, utilization_t* u)
{
    load();
    if (d->is_mig) return 3;
    u->gpu = d->util;
    u->memory = 0;
    return 0;
}
int nvmlDeviceGetPciInfo_v3(device_t d, pci_t* p)
{
    std::memset(p, 0, sizeof *p);
    copy(p->bus_id, sizeof p->bus_id, d->bus_id);
    return 0;
}
int nvmlDeviceGetMigMode(device_t d, unsigned* current_mode, unsigned* pending)
{
    *current_mode = *pending = d->mig_mode ? 1 : 0;
    return 0;
}
int nvmlDeviceGetMaxMigDeviceCount(device_t, unsigned* count)
{
    *count = 7;
    return 0;
}
int nvmlDeviceGetMigDeviceHandleByIndex(device_t d, unsigned slot, device_t* out)
{
    for (int i = 0; i < table_size; ++i)
        if (table[i].is_mig && table[i].parent == d->index
            && table[i].slot == static_cast<int>(slot)) {
            *out = &table[i];
            return 0;
        }
    return 6;
}
int nvmlDeviceGetComputeRunningProcesses_v3(device_t d, unsigned* count, process_info_t* out)
{
    load();
    std::vector<process_info_t> mine;
    for (auto const& p : current.processes)
        if (p.uuid == d->uuid) mine.push_back({p.pid, p.used, 0, 0});
    if (*count < mine.size()) {
        *count = static_cast<unsigned>(mine.size());
        return 7;
    }
    *count = static_cast<unsigned>(mine.size());
    std::copy(mine.begin(), mine.end(), out);
    return 0;
}
// Every call is a fresh stretch: one sample per process of the device, stamped after `last`.
int nvmlDeviceGetProcessUtilization(device_t d, process_sample_t* out, unsigned* count,
                                    unsigned long long last)
{
    load();
    if (d->is_mig) return 3;
    std::vector<process_sample_t> mine;
    clock_us = std::max(clock_us, last) + 1;
    for (auto const& p : current.processes)
        if (p.uuid == d->uuid) mine.push_back({p.pid, clock_us, p.sm, 0, 0, 0});
    if (!out || *count < mine.size()) {
        *count = static_cast<unsigned>(mine.size());
        return mine.empty() ? 0 : 7;
    }
    *count = static_cast<unsigned>(mine.size());
    std::copy(mine.begin(), mine.end(), out);
    return 0;
}

}  // extern "C"
