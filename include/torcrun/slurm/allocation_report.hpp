// `torcrun allocation` output, as text for people and as JSON for scripts: every node with its
// CPUs, memory and GPU ids, where each value came from, the scope, the mode and why, and the
// warnings. Pure formatting; the apps layer prints it.
#pragma once

#include "torcrun/slurm/mode_choice.hpp"
#include "torcrun/slurm/slurm_env.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>

namespace torcrun::core {


// `decision` is choose_mode(a, requested); both forms also say what auto would pick and why.
std::string format_allocation_text(allocation const& a, requested_mode requested,
                                   mode_decision const& decision);
boost::json::value allocation_to_json(allocation const& a, requested_mode requested,
                                      mode_decision const& decision);

}  // namespace torcrun::core
