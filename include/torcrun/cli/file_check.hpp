// The check `torcrun run` and `torcrun submit` make before a workflow starts, as Torc's
// initialize does: every required input file (one a job reads and no job writes) must exist,
// else the workflow is refused, each missing path named with the jobs that read it, unless the
// user overrides; an output file that exists already is a warning. Pure: whether a path exists
// is asked of `look`.
#pragma once

#include "torcrun/spec/file_uses.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct path_state {
    bool exists = false;
    std::string problem;  // why the path could not be looked at; empty when it simply is not there
};

struct file_check {
    bool refuse = false;
    std::vector<std::string> errors;    // when refused: the lines that say why
    std::vector<std::string> warnings;  // each line follows "warning: "
};

struct file_check_options {
    std::string_view override_flag;  // named in the refusal: `--ignore-missing-data`
    bool ignore_missing = false;     // missing inputs are warnings and nothing is refused
    bool warn_existing_outputs = true;  // false where they are expected (a resumed run)
};

// At most 20 files are listed, and at most 5 jobs per file; the rest are counted.
file_check check_files(spec::workflow_file_uses const& uses,
                       std::function<path_state(std::string const&)> const& look,
                       file_check_options const& options);

}  // namespace torcrun::core
