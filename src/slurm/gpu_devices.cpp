// Which device a GPU id names, NVML bus ids as sysfs names them, and kernel CPU lists. Pure:
// the devices come in as values.
#include "torcrun/slurm/gpu_devices.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace torcrun::core {

namespace {

bool all_digits(std::string_view s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::optional<unsigned> number(std::string_view s)
{
    unsigned n = 0;
    auto const [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return n;
}

}  // namespace

gpu_id_kind classify_gpu_id(std::string_view id)
{
    if (all_digits(id)) return gpu_id_kind::ordinal;
    if (id.starts_with("MIG-")) return gpu_id_kind::mig_uuid;
    if (id.starts_with("GPU-")) return gpu_id_kind::gpu_uuid;
    return gpu_id_kind::other;
}

std::optional<gpu_match> find_gpu(std::span<gpu_device const> devices, std::string_view id)
{
    switch (classify_gpu_id(id)) {
    case gpu_id_kind::ordinal: {
        auto const n = number(id);
        for (std::size_t i = 0; i < devices.size(); ++i)
            if (n && devices[i].index == *n) return gpu_match{i, std::nullopt};
        return std::nullopt;
    }
    case gpu_id_kind::gpu_uuid:
        for (std::size_t i = 0; i < devices.size(); ++i)
            if (devices[i].uuid == id) return gpu_match{i, std::nullopt};
        return std::nullopt;
    case gpu_id_kind::mig_uuid:
        for (std::size_t i = 0; i < devices.size(); ++i) {
            auto const& migs = devices[i].migs;
            for (std::size_t m = 0; m < migs.size(); ++m)
                if (migs[m].uuid == id) return gpu_match{i, m};
            // The older form names the parent GPU: MIG-GPU-<uuid>/<gi>/<ci>.
            if (id.starts_with("MIG-" + devices[i].uuid + "/")) return gpu_match{i, std::nullopt};
        }
        return std::nullopt;
    case gpu_id_kind::other:
        return std::nullopt;
    }
    return std::nullopt;
}

std::string sysfs_pci_name(std::string_view bus_id)
{
    std::string out;
    for (char c : bus_id) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto const colon = out.find(':');
    // NVML pads the domain to 8 digits, the kernel writes 4.
    if (colon == 8 && out.starts_with("0000")) out.erase(0, 4);
    return out;
}

result<std::vector<unsigned>> parse_cpu_list(std::string_view text)
{
    auto const end = text.find_last_not_of(" \t\n");
    std::string_view rest =
        end == std::string_view::npos ? std::string_view{} : text.substr(0, end + 1);
    std::vector<unsigned> cpus;
    std::string_view const whole = rest;
    while (!rest.empty()) {
        auto const comma = rest.find(',');
        std::string_view const part = rest.substr(0, comma);
        auto const dash = part.find('-');
        auto const first = number(part.substr(0, dash));
        auto const last = dash == std::string_view::npos ? first : number(part.substr(dash + 1));
        if (!first || !last || *last < *first || *last - *first > 65535) {
            return error{"CPU list \"" + std::string(whole) + "\": \"" + std::string(part)
                         + "\" is not a number or a range"};
        }
        for (unsigned c = *first; c <= *last; ++c) cpus.push_back(c);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

std::string format_cpu_list(std::span<unsigned const> cpus)
{
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(cpus[i]);
        if (j > i) out += '-' + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

namespace {

// The pool ids naming device `d` (or, with `mig`, that MIG device).
std::vector<std::string> ids_naming(std::span<gpu_device const> devices, std::size_t d,
                                    std::optional<std::size_t> mig,
                                    std::span<std::string const> pool_ids)
{
    std::vector<std::string> out;
    for (auto const& id : pool_ids) {
        auto const m = find_gpu(devices, id);
        if (m && m->device == d && m->mig == mig) out.push_back(id);
    }
    return out;
}

std::string pool_text(std::vector<std::string> const& ids)
{
    return ids.empty() ? "not in the pool" : "pool id " + join(ids, ",");
}

}  // namespace

std::string format_gpu_inventory(gpu_inventory const& inv, std::span<std::string const> pool_ids)
{
    std::string out = "gpu devices (NVML): " + std::to_string(inv.devices.size());
    if (!inv.note.empty()) out += " (" + inv.note + ")";
    out += "\n";
    for (std::size_t i = 0; i < inv.devices.size(); ++i) {
        auto const& g = inv.devices[i];
        out += "  " + std::to_string(g.index) + ": " + g.uuid + " " + g.name + ", "
               + format_size(g.memory_total_bytes) + ", bus "
               + (g.pci_bus_id.empty() ? std::string("unknown") : sysfs_pci_name(g.pci_bus_id))
               + ", NUMA node " + (g.numa_node ? std::to_string(*g.numa_node) : "unknown")
               + ", CPUs " + (g.near_cpus.empty() ? "unknown" : format_cpu_list(g.near_cpus))
               + (g.mig_enabled ? ", MIG on" : "") + "; "
               + pool_text(ids_naming(inv.devices, i, std::nullopt, pool_ids)) + "\n";
        for (std::size_t m = 0; m < g.migs.size(); ++m)
            out += "    MIG " + g.migs[m].uuid + " (slot " + std::to_string(g.migs[m].index) + "), "
                   + format_size(g.migs[m].memory_total_bytes) + "; "
                   + pool_text(ids_naming(inv.devices, i, m, pool_ids)) + "\n";
    }
    return out;
}

boost::json::value gpu_inventory_json(gpu_inventory const& inv,
                                      std::span<std::string const> pool_ids)
{
    namespace json = boost::json;
    auto const strings = [](std::vector<std::string> const& v) {
        json::array a;
        for (auto const& s : v) a.emplace_back(s);
        return a;
    };
    json::array devices;
    for (std::size_t i = 0; i < inv.devices.size(); ++i) {
        auto const& g = inv.devices[i];
        json::array migs;
        for (std::size_t m = 0; m < g.migs.size(); ++m)
            migs.push_back(
                json::object{{"index", g.migs[m].index},
                             {"uuid", g.migs[m].uuid},
                             {"memory_bytes", g.migs[m].memory_total_bytes},
                             {"pool_ids", strings(ids_naming(inv.devices, i, m, pool_ids))}});
        json::array cpus;
        for (auto c : g.near_cpus) cpus.emplace_back(c);
        devices.push_back(json::object{
            {"index", g.index},
            {"uuid", g.uuid},
            {"name", g.name},
            {"pci_bus_id", g.pci_bus_id},
            {"memory_bytes", g.memory_total_bytes},
            {"memory", format_size(g.memory_total_bytes)},
            {"mig_enabled", g.mig_enabled},
            {"mig_devices", std::move(migs)},
            {"numa_node", g.numa_node ? json::value(*g.numa_node) : json::value(nullptr)},
            {"near_cpus", g.near_cpus.empty() ? json::value(nullptr)
                                              : json::value(format_cpu_list(g.near_cpus))},
            {"pool_ids", strings(ids_naming(inv.devices, i, std::nullopt, pool_ids))}});
    }
    return json::object{{"devices", std::move(devices)},
                        {"note", inv.note.empty() ? json::value(nullptr) : json::value(inv.note)}};
}

}  // namespace torcrun::core
