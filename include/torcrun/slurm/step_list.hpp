// The steps of one allocation as `squeue -h -s -j JOB -o "%i %j"` lists them, one a line:
// "<job>.<step> <name>" (`12.3 wf1_j7_r1_a1`). srun prints no step id, so a worker finds the
// step it started by the --job-name it gave it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace torcrun::core {

// The id ("12.3") of the first step of `squeue_lines` named `name`; nullopt when none is. Lines
// that are not "<id> <name>" are skipped.
std::optional<std::string> step_id_named(std::string_view squeue_lines, std::string_view name);

}  // namespace torcrun::core
