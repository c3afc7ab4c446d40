// A job step's usage as Slurm's accounting reports it: `sstat -P -o JobID,MaxRSS,TRESUsageInTot,
// NodeList -j 12.3,12.4` while the steps run (jobacct_gather samples them on the nodes), `sacct -P
// -o JobID,JobName,MaxRSS,TotalCPU,NodeList -j 12` after (only where accounting storage exists).
// Both print a header line and '|'-separated rows; columns are found by their header, so either
// command's table reads with the same function.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct step_reading {
    std::string step_id;                      // JobID: "12.3"
    std::string name;                         // JobName (sacct); empty when not asked for
    std::optional<std::uint64_t> max_rss_bytes;  // MaxRSS: the largest task's peak so far
    std::optional<std::uint64_t> rss_bytes;   // TRESUsageInTot mem: the tasks' resident memory now
    std::optional<double> cpu_seconds;        // TRESUsageInTot cpu, or TotalCPU: all tasks' CPU
    std::string nodes;                        // NodeList as Slurm writes it: "n1", "n[1-2]"

    bool operator==(step_reading const&) const = default;
};

// Slurm's sizes: "320636K", "1.50M", "12G", "0", a bare number of bytes; K, M, G, T, P are
// powers of 1024. Error: `"12Q" is not a size`.
result<std::uint64_t> parse_slurm_size(std::string_view text);

// Slurm's CPU times: "00:00:01", "01:02.345" (MM:SS.mmm), "1-02:03:04" (D-HH:MM:SS), "12.5".
// Error: `"1:x" is not a CPU time`.
result<double> parse_slurm_cpu_time(std::string_view text);

// The rows of a `-P` table with its header line. Rows whose JobID is empty are skipped; an empty
// cell is an unknown figure. Errors name the line and column:
// `sstat line 3: MaxRSS "12Q" is not a size`, `sstat: no JobID column in the header "MaxRSS"`.
result<std::vector<step_reading>> parse_step_readings(std::string_view table,
                                                      std::string_view what = "sstat");

}  // namespace torcrun::core
