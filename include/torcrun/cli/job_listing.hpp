// The facts `torcrun jobs` shows beside each job, from the server's records: its attempts, the
// latest attempt's start, duration, node, GPU ids, peak memory and CPU, and that attempt's log
// directory;
// and the `--status` list. Pure: the records come in as read.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/server/job_status.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// "failed,canceled" -> those statuses, in order, each once. Errors: parse_job_status's for an
// unknown one (`job status: "bogus" is not one of ...`), `--status: an empty status in
// "failed,"`.
result<std::vector<job_status>> parse_status_list(std::string_view text);

// What the latest result of a job says, where the server records it.
struct attempt_facts {
    std::int64_t attempts = 0;  // results the job has, every run
    std::optional<double> start_unix;  // completion_time - exec_time
    std::optional<double> seconds;     // exec_time_minutes x 60
    // Where it ran: a slurm-mode step's node(s) as Slurm names them ("n2"), else the compute
    // node's hostname; empty: unknown.
    std::string node;
    // The GPU ids it held (result.json in its directory); nothing: not known.
    std::optional<std::vector<std::string>> gpu_ids;
    std::optional<std::uint64_t> peak_memory_bytes;
    std::optional<double> peak_cpu_percent;
    std::optional<std::uint64_t> avg_memory_bytes;  // --json only
    std::optional<double> avg_cpu_percent;          // --json only
    std::optional<std::string> log_dir;
    // The GPU figures of the worker's record (direct mode, NVML): peak and average utilisation
    // summed over its GPUs, peak memory used; nothing: not measured.
    std::optional<double> peak_gpu_percent;
    std::optional<double> avg_gpu_percent;
    std::optional<std::uint64_t> peak_gpu_memory_bytes;
    bool gpu_per_process = false;  // --json only
    // The CPUs the job was bound to ("0-3"), direct mode with CPU binding; empty: not bound.
    std::string bound_cpus;
};

// The table cells: start "2026-01-19T22:55:01Z", duration "1m05s", GPUs "0,3" ("none" for an
// attempt that held none), "512 MiB", "97.5%", "-" for what is unknown. With `gpu_columns`
// (some job of the listing held a GPU or was bound to CPUs) three more after PEAK_CPU:
// GPU_UTIL "98.0%/41.3%" (peak/average), GPU_MEM "1.5 GiB" (peak), CPUS "0-3".
std::vector<std::string> attempt_cells(attempt_facts const& facts, bool gpu_columns = false);
// Their headings, in the same order.
std::vector<std::string> attempt_headings(bool gpu_columns = false);

// The ORIGIN cell of a job (shown when some job of the listing has an origin): "-" for a job the
// spec declared, else its origin and, when known, the job that made it: "spawn by 8".
std::string origin_cell(std::string_view origin, std::optional<std::int64_t> spawned_by);

}  // namespace torcrun::core
