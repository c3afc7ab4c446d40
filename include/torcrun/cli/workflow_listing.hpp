// The table of `torcrun workflows`: one line per workflow with its state in one word and how
// many of its jobs completed, from what the server says of it (flags and job counts).
#pragma once

#include "torcrun/server/workflow_progress.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct workflow_line {
    std::int64_t id = 0;
    std::string name;
    std::string user;
    bool is_complete = false;
    bool is_canceled = false;
    status_counts jobs;
};

// canceled (the workflow was canceled); empty (no jobs); completed (complete, every job
// completed); failed (complete, some job did not complete); running (a job is pending or
// running); uninitialized (every job uninitialized or disabled); waiting (jobs ready or blocked,
// none held by a worker).
std::string_view workflow_state(workflow_line const& w);

// `ID  NAME  USER  STATUS  COMPLETED` with columns padded to their widest cell, COMPLETED as
// "3/4"; a header only when there are none.
std::string format_workflow_table(std::vector<workflow_line> const& lines);

}  // namespace torcrun::core
