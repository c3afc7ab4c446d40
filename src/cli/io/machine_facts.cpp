// Reads the environment and measures the machine. Failures here are not fatal: a value that
// cannot be measured is reported as 0 (or empty), and the allocation report shows it.
#include "machine_facts.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace torcrun::apps {

namespace {

// Big enough for any machine's CPU numbers; the mask is sized at run time (CPU_ALLOC).
constexpr int max_cpus = 65536;

std::uint32_t affinity_cpus()
{
    cpu_set_t* set = CPU_ALLOC(max_cpus);
    std::size_t const size = CPU_ALLOC_SIZE(max_cpus);
    CPU_ZERO_S(size, set);
    int count = 0;
    if (sched_getaffinity(0, size, set) == 0) count = CPU_COUNT_S(size, set);
    CPU_FREE(set);
    if (count > 0) return static_cast<std::uint32_t>(count);
    return std::max(1u, std::thread::hardware_concurrency());
}

std::string host_name()
{
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) != 0) return "localhost";
    return buffer;
}

// /dev/nvidia0, /dev/nvidia1, …; not nvidiactl, nvidia-uvm or nvidia-caps.
std::vector<std::string> nvidia_devices(std::string const& dev)
{
    std::vector<unsigned> numbers;
    std::error_code ec;
    for (auto const& entry : std::filesystem::directory_iterator(dev, ec)) {
        std::string const name = entry.path().filename().string();
        if (!name.starts_with("nvidia") || name.size() == 6) continue;
        unsigned n = 0;
        auto const [end, err] = std::from_chars(name.data() + 6, name.data() + name.size(), n);
        if (err == std::errc() && end == name.data() + name.size()) numbers.push_back(n);
    }
    std::sort(numbers.begin(), numbers.end());
    std::vector<std::string> ids;
    for (auto const n : numbers) ids.push_back(std::to_string(n));
    return ids;
}

}  // namespace

core::env_map read_process_environment()
{
    core::env_map env;
    for (char** entry = environ; entry && *entry; ++entry) {
        std::string_view const text = *entry;
        auto const eq = text.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
    }
    return env;
}

std::uint64_t mem_total_bytes(std::string_view meminfo)
{
    std::istringstream lines{std::string(meminfo)};
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields{line};
        if (fields >> key >> kib >> unit && key == "MemTotal:" && unit == "kB") return kib * 1024;
    }
    return 0;
}

core::machine_facts measure_machine(machine_paths const& paths)
{
    std::ifstream file(paths.meminfo);
    std::stringstream meminfo;
    meminfo << file.rdbuf();
    return {affinity_cpus(), mem_total_bytes(meminfo.str()), host_name(),
            nvidia_devices(paths.dev)};
}

}  // namespace torcrun::apps
