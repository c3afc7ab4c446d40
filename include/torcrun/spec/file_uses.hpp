// Which of a workflow's files must exist before it starts and which its jobs will write, from
// the creation plan: a file some job reads (input_files) that no job writes (output_files) is a
// required input, as Torc's server lists under required_existing_files; a file some job writes
// is an output. `torcrun run` and `torcrun submit` look for both on disk before they start.
#pragma once

#include "torcrun/spec/creation_plan.hpp"

#include <string>
#include <vector>

namespace torcrun::core::spec {

struct file_use {
    std::string name;               // the spec's file name
    std::string path;               // as the spec gives it (relative: to the jobs' directory)
    std::vector<std::string> jobs;  // the jobs that read it (inputs) or write it (outputs)
};

struct workflow_file_uses {
    std::vector<file_use> required_inputs;  // read, never written; in the plan's file order
    std::vector<file_use> outputs;          // written by a job; in the plan's file order
};

// Each job named once per file, in the plan's job order. Files no job reads or writes are in
// neither list.
workflow_file_uses file_uses(creation_plan const& plan);

}  // namespace torcrun::core::spec
