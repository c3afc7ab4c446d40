// NVML through dlopen/dlsym: the prototypes are ours (nvml_api.hpp, and why), the library is
// the driver's. Every query answers a value or an error naming the call and NVML's own words.
#include "torcrun/worker/io/nvml_library.hpp"

#include "nvml_api.hpp"

#include <dlfcn.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace torcrun::io {

namespace api = nvml_api;

struct nvml_library::symbols {
    api::init_fn init = nullptr;
    api::shutdown_fn shutdown = nullptr;
    api::error_string_fn error_string = nullptr;
    api::device_get_count_fn get_count = nullptr;
    api::device_get_handle_by_index_fn by_index = nullptr;
    api::device_get_handle_by_uuid_fn by_uuid = nullptr;
    api::device_get_string_fn get_uuid = nullptr;
    api::device_get_string_fn get_name = nullptr;
    api::device_get_memory_info_fn get_memory = nullptr;
    api::device_get_utilization_rates_fn get_utilization = nullptr;
    api::device_get_pci_info_fn get_pci = nullptr;
    // Optional: older drivers or fakes may lack them; what they give is then not shown.
    api::device_get_mig_mode_fn get_mig_mode = nullptr;
    api::device_get_max_mig_device_count_fn get_max_mig = nullptr;
    api::device_get_mig_device_handle_by_index_fn mig_by_index = nullptr;
    api::device_get_compute_running_processes_fn get_processes = nullptr;
    api::device_get_process_utilization_fn get_process_utilization = nullptr;
};

namespace {

template <class F> bool find(void* handle, char const* name, F& out)
{
    out = reinterpret_cast<F>(::dlsym(handle, name));
    return out != nullptr;
}

template <class F> void find_any(void* handle, std::initializer_list<char const*> names, F& out)
{
    for (auto const* name : names)
        if (find(handle, name, out)) return;
}

}  // namespace

std::string nvml_library_path()
{
    char const* value = std::getenv("TORCRUN_NVML_LIBRARY");
    return value && *value ? value : nvml_default_library;
}

core::result<std::unique_ptr<nvml_library>> nvml_library::open(std::string const& path)
{
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        char const* why = ::dlerror();
        return core::error{"NVML: " + std::string(why ? why : path + ": cannot be opened")};
    }
    auto s = std::make_unique<symbols>();
    char const* missing = nullptr;
    auto const need = [&](char const* name, auto& out) {
        if (!missing && !find(handle, name, out)) missing = name;
    };
    need("nvmlInit_v2", s->init);
    need("nvmlShutdown", s->shutdown);
    need("nvmlErrorString", s->error_string);
    need("nvmlDeviceGetCount_v2", s->get_count);
    need("nvmlDeviceGetHandleByIndex_v2", s->by_index);
    need("nvmlDeviceGetHandleByUUID", s->by_uuid);
    need("nvmlDeviceGetUUID", s->get_uuid);
    need("nvmlDeviceGetName", s->get_name);
    need("nvmlDeviceGetMemoryInfo", s->get_memory);
    need("nvmlDeviceGetUtilizationRates", s->get_utilization);
    find_any(handle, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"}, s->get_pci);
    if (!s->get_pci && !missing) missing = "nvmlDeviceGetPciInfo_v3";
    if (missing) {
        ::dlclose(handle);
        return core::error{"NVML: " + path + ": no symbol " + missing};
    }
    find(handle, "nvmlDeviceGetMigMode", s->get_mig_mode);
    find(handle, "nvmlDeviceGetMaxMigDeviceCount", s->get_max_mig);
    find(handle, "nvmlDeviceGetMigDeviceHandleByIndex", s->mig_by_index);
    find_any(handle,
             {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"},
             s->get_processes);
    find(handle, "nvmlDeviceGetProcessUtilization", s->get_process_utilization);
    if (auto const rc = s->init(); rc != api::success) {
        std::string const why = s->error_string(rc);
        ::dlclose(handle);
        return core::error{"NVML: nvmlInit_v2: " + why};
    }
    return std::unique_ptr<nvml_library>(new nvml_library(handle, std::move(s)));
}

nvml_library::nvml_library(void* handle, std::unique_ptr<symbols> s)
    : handle_(handle), s_(std::move(s))
{
}

nvml_library::~nvml_library()
{
    s_->shutdown();
    ::dlclose(handle_);
}

namespace {

core::error failed(nvml_library::symbols const& s, char const* call, api::nvml_return rc)
{
    return core::error{std::string("NVML: ") + call + ": " + s.error_string(rc)};
}

std::string text_of(api::device_get_string_fn fn, api::device d, unsigned size)
{
    std::string buffer(size, '\0');
    if (fn(d, buffer.data(), size) != api::success) return {};
    buffer.resize(std::strlen(buffer.c_str()));
    return buffer;
}

}  // namespace

core::result<std::vector<core::gpu_device>> nvml_library::devices() const
{
    unsigned count = 0;
    if (auto rc = s_->get_count(&count); rc != api::success)
        return failed(*s_, "nvmlDeviceGetCount_v2", rc);
    std::vector<core::gpu_device> out;
    for (unsigned i = 0; i < count; ++i) {
        api::device d = nullptr;
        if (auto rc = s_->by_index(i, &d); rc != api::success)
            return failed(*s_, "nvmlDeviceGetHandleByIndex_v2", rc);
        core::gpu_device g;
        g.index = i;
        g.uuid = text_of(s_->get_uuid, d, api::uuid_buffer_size);
        g.name = text_of(s_->get_name, d, api::name_buffer_size);
        api::memory m{};
        if (s_->get_memory(d, &m) == api::success) g.memory_total_bytes = m.total;
        api::pci_info pci{};
        if (s_->get_pci(d, &pci) == api::success)
            g.pci_bus_id.assign(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id));
        unsigned current = 0, pending = 0, max_migs = 0;
        if (s_->get_mig_mode && s_->get_mig_mode(d, &current, &pending) == api::success)
            g.mig_enabled = current == api::mig_enabled;
        if (g.mig_enabled && s_->get_max_mig && s_->mig_by_index
            && s_->get_max_mig(d, &max_migs) == api::success) {
            for (unsigned k = 0; k < max_migs; ++k) {
                api::device mig = nullptr;
                // Slots without a MIG device answer NOT_FOUND.
                if (s_->mig_by_index(d, k, &mig) != api::success) continue;
                core::mig_device md{k, text_of(s_->get_uuid, mig, api::uuid_buffer_size), 0};
                api::memory mm{};
                if (s_->get_memory(mig, &mm) == api::success) md.memory_total_bytes = mm.total;
                g.migs.push_back(std::move(md));
            }
        }
        out.push_back(std::move(g));
    }
    return out;
}

namespace {

// The compute processes on `d`; empty where NVML cannot list them.
std::vector<api::process_info> processes(nvml_library::symbols const& s, api::device d)
{
    if (!s.get_processes) return {};
    std::vector<api::process_info> list(16);
    for (int tries = 0; tries < 4; ++tries) {
        unsigned n = static_cast<unsigned>(list.size());
        auto const rc = s.get_processes(d, &n, list.data());
        if (rc == api::success) {
            list.resize(n);
            return list;
        }
        if (rc != api::error_insufficient_size) return {};
        list.resize(n + 16);
    }
    return {};
}

}  // namespace

core::result<gpu_reading> nvml_library::read(std::vector<std::string> const& ids,
                                             std::set<int> const& pids)
{
    gpu_reading out;
    double utilization = 0;
    bool utilization_known = true;
    for (auto const& id : ids) {
        api::device d = nullptr;
        api::nvml_return rc = api::success;
        if (core::classify_gpu_id(id) == core::gpu_id_kind::ordinal) {
            unsigned index = 0;
            auto const [end, ec] = std::from_chars(id.data(), id.data() + id.size(), index);
            if (ec != std::errc() || end != id.data() + id.size())
                return core::error{"NVML: GPU \"" + id + "\": not an index"};
            rc = s_->by_index(index, &d);
        } else {
            rc = s_->by_uuid(id.c_str(), &d);
        }
        if (rc != api::success)
            return core::error{"NVML: GPU \"" + id + "\": " + s_->error_string(rc)};
        bool const mig = core::classify_gpu_id(id) == core::gpu_id_kind::mig_uuid;
        // Shared: NVML lists the job's own processes and others. Others alone are no proof of
        // sharing: inside a container NVML reports the host's process ids, which never match
        // the job's, and the id is the job's alone by the pool's rule; the device figures stand.
        auto const running = processes(*s_, d);
        bool mine = false, others = false;
        for (auto const& p : running)
            (pids.contains(static_cast<int>(p.pid)) ? mine : others) = true;
        bool const shared = mine && others;
        if (!mig && !shared) {
            api::memory m{};
            api::utilization u{};
            if (auto rc2 = s_->get_memory(d, &m); rc2 != api::success)
                return failed(*s_, "nvmlDeviceGetMemoryInfo", rc2);
            out.memory_used_bytes += m.used;
            if (s_->get_utilization(d, &u) == api::success)
                utilization += u.gpu;
            else
                utilization_known = false;
            continue;
        }
        out.per_process = true;
        for (auto const& p : running)
            if (pids.contains(static_cast<int>(p.pid))) out.memory_used_bytes += p.used_gpu_memory;
        // Per-process utilisation: the samples since the last read, averaged per process,
        // summed over the job's processes. MIG devices do not report it.
        unsigned n = 0;
        auto& seen = last_seen_[d];
        if (!s_->get_process_utilization
            || s_->get_process_utilization(d, nullptr, &n, seen) != api::error_insufficient_size) {
            // success with no buffer means no sample since `seen`: 0 for this stretch
            if (mig || !s_->get_process_utilization) utilization_known = false;
            continue;
        }
        std::vector<api::process_utilization_sample> samples(n);
        if (s_->get_process_utilization(d, samples.data(), &n, seen) != api::success) {
            utilization_known = false;
            continue;
        }
        samples.resize(n);
        std::map<unsigned, std::pair<double, int>> per_pid;
        for (auto const& sample : samples) {
            seen = std::max(seen, sample.time_stamp);
            if (!pids.contains(static_cast<int>(sample.pid))) continue;
            per_pid[sample.pid].first += sample.sm_util;
            per_pid[sample.pid].second += 1;
        }
        for (auto const& [pid, sum] : per_pid) utilization += sum.first / sum.second;
    }
    if (utilization_known) out.utilization_percent = utilization;
    return out;
}

}  // namespace torcrun::io
