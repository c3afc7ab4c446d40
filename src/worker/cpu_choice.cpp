// See cpu_choice.hpp. Near CPUs first, lowest numbers first, so that jobs on one NUMA node pack
// from its low end and the choice is the same for the same state.
#include "torcrun/worker/cpu_choice.hpp"

#include "torcrun/slurm/gpu_devices.hpp"

#include <algorithm>

namespace torcrun::core {

cpu_choice choose_cpus(std::span<unsigned const> allowed, std::set<unsigned> const& busy,
                       std::span<unsigned const> near, unsigned count)
{
    cpu_choice out;
    if (count == 0) {
        out.note = "holds no CPU";
        return out;
    }
    std::set<unsigned> const near_set(near.begin(), near.end());
    std::vector<unsigned> free_near, free_far;
    for (auto c : std::set<unsigned>(allowed.begin(), allowed.end())) {
        if (busy.contains(c)) continue;
        (near_set.contains(c) ? free_near : free_far).push_back(c);
    }
    if (free_near.size() + free_far.size() < count) {
        out.note = "not bound: " + std::to_string(free_near.size() + free_far.size())
                   + " of the worker's CPUs are free, it holds " + std::to_string(count);
        return out;
    }
    auto const take_near = std::min<std::size_t>(count, free_near.size());
    out.cpus.assign(free_near.begin(), free_near.begin() + static_cast<std::ptrdiff_t>(take_near));
    out.cpus.insert(out.cpus.end(), free_far.begin(),
                    free_far.begin() + static_cast<std::ptrdiff_t>(count - take_near));
    std::sort(out.cpus.begin(), out.cpus.end());
    out.near = take_near == count;
    if (near.empty())
        out.note =
            "the CPUs near its GPUs are not known; bound to CPUs " + format_cpu_list(out.cpus);
    else if (!out.near)
        out.note = std::to_string(take_near) + " of the " + std::to_string(count)
                   + " CPUs are near its GPUs (CPUs " + format_cpu_list(near)
                   + "; the others are taken); bound to CPUs " + format_cpu_list(out.cpus);
    return out;
}

}  // namespace torcrun::core
