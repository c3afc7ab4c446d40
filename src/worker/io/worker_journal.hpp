// The worker's journal of results the server has not accepted yet (docs/guides/worker.md, "Server trouble"):
// JSON lines in <output>/journal/wf<W>_<node>.jsonl, one job_report per line. Appends are fsync'ed
// before they count; a removal rewrites the file to a temporary name, fsyncs it and renames it over
// the old one, so a crash leaves either the old or the new list. A lock file held (flock) for the
// journal's life keeps two live workers off one file: the second one gets a file of its own, named
// with its pid. What a crashed worker left is read back at open.
//
// The journal also keeps the compute nodes the worker registered and has not deactivated yet (a
// line `{"kind":"node","compute_node_id":N}` each), so a worker started again in the same output
// directory after a crash finds the nodes of its predecessor and releases their jobs at once
// (worker_fsm_lease.cpp) instead of waiting for their leases to run out.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/worker/worker_actions.hpp"
#include "torcrun/worker/worker_model.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace torcrun::io {

// One attempt's result as the worker writes it down (an attempt's result.json, and each journal
// line with its `kind` added): ResultModel's fields, completion_time in Unix seconds. Its
// values live in `storage` (default: the heap; the worker writes it out at once, from an arena).
boost::json::object result_json(core::job_result const& result,
                                boost::json::storage_ptr storage = {});

// An arena for one such record (a shared monotonic resource the record keeps alive): one
// allocation for its sixteen keys and values instead of one each.
boost::json::storage_ptr record_arena();

// One report as a journal line (no newline), and back: `journal line: <problem>`.
std::string journal_line(core::job_report const& report);
core::result<core::job_report> parse_journal_line(std::string_view line);

class results_journal {
public:
    // Creates <dir>/journal when needed. Errors name the path and the system's reason.
    static core::result<results_journal> open(std::string const& output_dir,
                                              std::int64_t workflow_id,
                                              std::string const& node_name);
    results_journal(results_journal&& other) noexcept;
    results_journal& operator=(results_journal&& other) noexcept;
    ~results_journal();

    std::string const& path() const noexcept { return path_; }
    // The reports on disk: what a previous worker left, then what this one appended.
    std::vector<core::job_report> const& reports() const noexcept { return reports_; }
    // The compute nodes on disk not known to be deactivated, in the order they were added.
    std::vector<std::int64_t> const& nodes() const noexcept { return nodes_; }
    // Lines that did not parse at open (a torn last line after a crash), as `path:line: why`.
    std::vector<std::string> const& skipped() const noexcept { return skipped_; }

    core::result<void> append(std::span<core::job_report const> reports);
    core::result<void> remove(std::span<core::worker::report_key const> keys);
    // A node registered (appended, fsync'ed) or deactivated (the file rewritten without it).
    core::result<void> add_node(std::int64_t compute_node_id);
    core::result<void> remove_node(std::int64_t compute_node_id);

private:
    results_journal() = default;
    core::result<void> read_back();
    core::result<void> append_text(std::string const& text);
    core::result<void> rewrite(std::vector<core::job_report> const& reports,
                               std::vector<std::int64_t> const& nodes);

    std::string path_;
    int lock_fd_ = -1;
    std::vector<core::job_report> reports_;
    std::vector<std::int64_t> nodes_;
    std::vector<std::string> skipped_;
};

}  // namespace torcrun::io
