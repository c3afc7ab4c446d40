// Whether the workflow stored in a run's output directory is the one a spec makes, for `torcrun
// run SPEC --resume`: the workflow's name and each job's name and command (a job's command is
// what it runs, so a changed one is another workflow). Pure: the stored side is read by the
// caller.
#pragma once

#include "torcrun/spec/creation_plan.hpp"

#include <optional>
#include <span>
#include <string>

namespace torcrun::core {

struct stored_job {
    std::string name;
    std::string command;
};

// The first difference, or nullopt when they match. Messages (`where` names the database):
//   `the spec's workflow is "a", D/torcrun.db holds "b"`
//   `job "x" is in the spec but not in D/torcrun.db`
//   `job "y" is in D/torcrun.db but not in the spec`
//   `job "x": the spec runs "echo 2", D/torcrun.db ran "echo 1"`
//   `job "x": the spec makes 2 jobs of that name, D/torcrun.db holds 1`
std::optional<std::string> spec_difference(spec::creation_plan const& plan,
                                           std::string const& stored_name,
                                           std::span<stored_job const> stored,
                                           std::string const& where);

}  // namespace torcrun::core
