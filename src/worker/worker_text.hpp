// Internal to worker_fsm: the wording shared by its log lines and describe().
#pragma once

#include "torcrun/common/concat.hpp"
#include "torcrun/worker/resource_pool.hpp"
#include "torcrun/worker/worker_actions.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

std::string number(request_id id);

// Seconds with up to three decimals and no trailing zeros: "0.5", "30", "1.125".
std::string format_seconds(double seconds);

// "n0[0,1] cpus=2 memory=1g"; multi-node: "n0[0,1,2,3],n1[0,1,2,3] cpus=8 memory=16g whole".
std::string describe_placement(reservation const& placement);

// "42#1 completed rc=0"; a record: "record 42#1 failed rc=1".
std::string describe_report(job_report const& report);

}  // namespace torcrun::core
