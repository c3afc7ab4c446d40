// The files of a planned workflow looked for on disk before `torcrun run` or `torcrun submit`
// starts it (core::check_files): paths as the spec gives them, relative ones from the current
// directory, as the jobs of `torcrun run` see them and as Torc's client looks.
#pragma once

#include "torcrun/spec/creation_plan.hpp"

#include <string_view>

namespace torcrun::apps {

// The command line's option that overrides the check, as Torc's `-i, --ignore-missing-data`:
// its name, and its program_options spelling with the short form.
inline constexpr char const* ignore_missing_data_option = "ignore-missing-data";
inline constexpr char const* ignore_missing_data_flags = "ignore-missing-data,i";

// Writes the warnings, and the refusal if any, to stderr after "torcrun COMMAND: "; false when the
// workflow must not start. A resumed workflow (`resumed`) is expected to have its outputs.
bool files_allow_start(core::spec::creation_plan const& plan, bool ignore_missing, bool resumed,
                       std::string_view command);

}  // namespace torcrun::apps
