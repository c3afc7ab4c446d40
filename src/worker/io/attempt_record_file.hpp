// The worker's attempt record on disk (torcrun/worker/attempt_record.hpp says what its lines
// hold): <output>/job_records/wf<W>_<host>_<pid>.jsonl, opened O_APPEND at the first line and
// kept open for the worker's life. Each line goes out in one write(2), so a reader never sees
// two lines interleaved; there is no fsync (the record is a log for people and for `torcrun
// jobs` and the report, not the worker's memory: the results journal is that). Shared by the
// job runner (attempt and usage lines) and the shell (result lines).
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <string>

namespace torcrun::io {

class attempt_record_file {
public:
    attempt_record_file(std::string const& output_dir, std::int64_t workflow_id,
                        std::string const& hostname);
    ~attempt_record_file();
    attempt_record_file(attempt_record_file const&) = delete;
    attempt_record_file& operator=(attempt_record_file const&) = delete;

    std::string const& path() const noexcept { return path_; }
    // Appends `line` and a newline. Errors: `job record: open "PATH": why`, `... write ...`.
    core::result<void> append(std::string line);

private:
    std::string dir_;
    std::string path_;
    int fd_ = -1;
};

}  // namespace torcrun::io
