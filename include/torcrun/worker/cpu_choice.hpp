// Which CPUs a GPU job is bound to in direct mode (gpu.cpu_bind): as many as it holds, from the
// CPUs near its GPUs (their NUMA nodes' `local_cpulist`) where enough of those are free, else
// those that are and the rest from anywhere, said in `note`. Pure: the worker's CPUs, the ones
// other bound jobs hold and the topology come in as values.
//
// The pool counts CPUs, it does not name them; this choice names them among the worker's own
// (its affinity mask) that no other bound job holds. When fewer are free than the job holds
// (resources.cpus above the machine's CPUs, or unbound jobs' shares), the job is not bound.
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

namespace torcrun::core {

struct cpu_choice {
    std::vector<unsigned> cpus;  // ascending; empty: not bound
    bool near = false;           // every chosen CPU is near the job's GPUs
    std::string note;            // why not (all) near, or not bound; empty when near
};

// `allowed`: the worker's CPUs; `busy`: CPUs bound to other running jobs; `near`: the CPUs near
// the job's GPUs (empty: not known); `count`: CPUs the job holds (0: not bound).
cpu_choice choose_cpus(std::span<unsigned const> allowed, std::set<unsigned> const& busy,
                       std::span<unsigned const> near, unsigned count);

}  // namespace torcrun::core
