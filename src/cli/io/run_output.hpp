// What `torcrun run` writes besides the jobs' own files: the log files of its worker and server,
// the live progress on stderr (one line rewritten in place on a terminal, a plain line per
// interval otherwise) and the facts of the final summary, read from the server.
#pragma once

#include "torc_client.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/cli/run_progress.hpp"
#include "torcrun/common/io/logger.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace torcrun::apps {

// A logger appending one line per event to `path` (created, or appended to: a rerun in the same
// output directory keeps the earlier runs' lines), each after its UTC time as Torc writes times ("2026-01-19T22:55:01.123Z "). Lines from several
// threads never interleave. Error: `PATH: cannot open: REASON`.
core::result<io::logger> file_logger(std::string const& path, io::log_level level);

class progress_display {
public:
    // `in_place`: a terminal, where each line replaces the one before.
    progress_display(bool in_place, std::chrono::steady_clock::time_point start)
        : in_place_(in_place), start_(start)
    {
    }

    // Writes the progress line for these counts.
    void show(core::status_counts const& counts);
    // The last line, ended so that what follows starts on a line of its own.
    void finish(core::status_counts const& counts);
    // `text` (whole lines) on stderr, above the progress line when that is redrawn in place.
    void note(std::string const& text);

private:
    std::string line(core::status_counts const& counts) const;

    bool in_place_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
};

// The last core::stderr_tail_lines lines of the file at `path` (of its last 8 KiB); none when it
// cannot be read.
std::vector<std::string> stderr_tail(std::string const& path);

// The summary's facts from the server: the workflow's name, every job that did not complete
// with its latest result's return code and attempt directory under `output_dir` (for a job
// canceled while it ran, which has no result, the directory of its attempt when it exists),
// and the stderr tail of the first failed job of each return code.
core::result<core::run_summary> read_summary(torc_client& client, std::int64_t workflow_id,
                                             core::status_counts const& counts,
                                             std::string const& output_dir);

}  // namespace torcrun::apps
