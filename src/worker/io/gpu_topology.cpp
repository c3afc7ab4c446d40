// sysfs read for each GPU's NUMA node and near CPUs; the parsing is core (parse_cpu_list).
#include "torcrun/worker/io/gpu_topology.hpp"

#include "torcrun/worker/io/nvml_library.hpp"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace torcrun::io {

namespace {

std::optional<std::string> read_small(std::string const& path)
{
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

std::string sysfs_root()
{
    char const* value = std::getenv("TORCRUN_SYSFS_ROOT");
    return value && *value ? value : "/sys";
}

void add_sysfs_topology(std::vector<core::gpu_device>& devices, std::string const& root)
{
    for (auto& g : devices) {
        if (g.pci_bus_id.empty()) continue;
        auto const dir = root + "/bus/pci/devices/" + core::sysfs_pci_name(g.pci_bus_id) + "/";
        if (auto const node = read_small(dir + "numa_node")) {
            int n = -1;
            auto const first = node->data();
            auto const [end, ec] = std::from_chars(first, first + node->size(), n);
            // -1: the kernel knows no node for it (a single-node machine, or firmware silent).
            if (ec == std::errc() && end != first && n >= 0) g.numa_node = n;
        }
        if (auto const list = read_small(dir + "local_cpulist"))
            if (auto cpus = core::parse_cpu_list(*list)) g.near_cpus = std::move(*cpus);
    }
}

core::gpu_inventory read_gpu_inventory(std::string const& library, std::string const& root)
{
    core::gpu_inventory out;
    auto nvml = nvml_library::open(library);
    if (!nvml) {
        out.note = nvml.error().message;
        return out;
    }
    auto devices = (*nvml)->devices();
    if (!devices) {
        out.note = devices.error().message;
        return out;
    }
    if (devices->empty()) out.note = "NVML found no GPU";
    out.devices = std::move(*devices);
    add_sysfs_topology(out.devices, root);
    return out;
}

}  // namespace torcrun::io
