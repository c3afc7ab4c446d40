// What `torcrun run` shows: the live progress numbers (done, running, failed, remaining, rate,
// ETA) from the workflow's job status counts and the elapsed time, the progress line, the final
// summary and the exit status. Pure: the elapsed time comes in as seconds.
#pragma once

#include "torcrun/server/job_status.hpp"
#include "torcrun/server/workflow_progress.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct progress_numbers {
    std::int64_t total = 0;
    std::int64_t done = 0;       // completed
    std::int64_t running = 0;    // pending + running: claimed and not yet finished
    std::int64_t failed = 0;     // failed
    std::int64_t remaining = 0;  // not finished and not claimed (blocked, ready, pending_failed..)
    // Finished jobs (done, failed, canceled, terminated) per second since the start; nullopt
    // until one finished.
    std::optional<double> rate;
    // (remaining + running) / rate; 0 once nothing is left; nullopt while the rate is unknown.
    std::optional<double> eta_seconds;
    // Counted apart from `failed`, as the summary counts them.
    std::int64_t canceled = 0;
    std::int64_t terminated = 0;

    bool operator==(progress_numbers const&) const = default;
};

progress_numbers compute_progress(status_counts const& counts, double elapsed_seconds);

// "42s", "3m05s", "2h07m"; negative counts as 0.
std::string format_elapsed(double seconds);

// "[12s] done 10/40  running 4  failed 1  remaining 25  2.50 jobs/s  ETA 10s"; the rate and
// the ETA show as "-" while unknown; "canceled N" and "terminated N" follow "failed" when not
// zero, so that the line counts as the summary does.
std::string format_progress_line(progress_numbers const& p, double elapsed_seconds);

// A job that did not complete, for the summary.
struct unfinished_job {
    std::int64_t id = 0;
    std::string name;
    job_status status = job_status::failed;
    std::optional<std::int64_t> return_code;  // of its latest result; none: it never ran
    std::optional<std::string> log_dir;       // its latest attempt's directory
    // The last lines of that attempt's stderr, where they were read (the summary reads them
    // for the first failed job of each return code).
    std::vector<std::string> stderr_tail = {};
};

// How many lines of a failed job's stderr the run shows.
inline constexpr std::size_t stderr_tail_lines = 5;

// The last `count` lines of `text` (a final newline ends the last line, it does not start an
// empty one); a first line cut by the start of `text` is kept as it is.
std::vector<std::string> last_lines(std::string_view text, std::size_t count);

// The line a run prints when a job fails, with its stderr tail indented below it:
// "torcrun run: failed: train (job 4), return code 3, logs D/jobs/wf1_j4/r0_a1" and a line
// "    | <line>" for each line of the tail, each ended by a newline.
std::string format_failure(unfinished_job const& job);

struct run_summary {
    std::int64_t workflow_id = 0;
    std::string workflow_name;
    status_counts counts;
    double wall_seconds = 0;
    std::vector<unfinished_job> unfinished;  // every job not completed, by id
    std::string database;
    std::string output_dir;
    std::string worker_log;  // empty: the log went to the terminal
    std::string report;      // the HTML report; empty: none was written
};

// Lists at most this many unfinished jobs; the rest are counted.
inline constexpr std::size_t summary_job_limit = 50;

// The summary block, ending with a newline. After the unfinished jobs, the failed ones with a
// return code are grouped by it, in order of return code: "  return code 3: 2 jobs, first
// train (job 4)" and the first one's stderr tail.
std::string format_summary(run_summary const& s);

// 0 when every job completed (also with no jobs), 1 otherwise.
int run_exit_status(status_counts const& counts);

}  // namespace torcrun::core
