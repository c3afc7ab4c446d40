// The execution mode for the allocation a worker sees, and the nodes that mode may use
// (docs/ARCHITECTURE.md, "Execution modes"). direct: the worker runs jobs as its own children, so
// only the node it sits on is usable; slurm: the worker places jobs on any node with srun.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/resources.hpp"
#include "torcrun/slurm/slurm_env.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

enum class execution_mode { direct, slurm };
enum class requested_mode { auto_, direct, slurm };

std::string_view to_string(execution_mode mode);
std::string_view to_string(requested_mode mode);  // "auto", "direct", "slurm"

// "auto" | "direct" | "slurm"; anything else: `mode: "x" is not auto, direct or slurm`.
result<requested_mode> parse_requested_mode(std::string_view text);

struct mode_decision {
    execution_mode mode = execution_mode::direct;
    std::string reason;                 // one line, for the start-up log and `torcrun allocation`
    std::vector<node_capacity> pool;    // slurm: every node; direct: the local node only
    std::vector<std::string> warnings;  // e.g. the nodes a single direct worker leaves idle

    bool operator==(mode_decision const&) const = default;
};

// auto: slurm in a multi-node allocation seen whole, or when this process runs outside the
// allocation's nodes (a salloc shell on the submit host); direct otherwise (a node_task is
// always a 1-node pool). Errors: slurm outside Slurm; direct from outside the allocation's
// nodes, where jobs would run on the submit host. auto never fails.
result<mode_decision> choose_mode(allocation const& a, requested_mode requested);

}  // namespace torcrun::core
