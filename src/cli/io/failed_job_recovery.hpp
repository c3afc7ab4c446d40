// `torcrun watch --recover`'s I/O: the workflow's failed and terminated jobs read with their
// latest return code and resource requirement, core::decide_recovery asked which run again, and
// those reset (Torc's reset-status calls) and given their new requirement.
#pragma once

#include "torc_client.hpp"

#include "torcrun/cli/job_recovery.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace torcrun::apps {

// What the recoveries of one watch remember between passes.
struct recovery_memory {
    std::map<std::int64_t, int> runs_again;  // job -> how many times it was run again
    std::set<std::string> said;              // lines already printed
};

// Runs again what core::decide_recovery says: the jobs reset (Torc's reset-status calls, which
// refuse while a worker is still active: then the next pass tries again), then each given its
// new resource requirement. Returns how many jobs run again. `prefix` starts each stderr line.
core::result<std::size_t> recover_failed(torc_client& client, std::int64_t wf,
                                         core::recovery_policy const& policy,
                                         std::string const& prefix, recovery_memory& memory);

}  // namespace torcrun::apps
