// `torcrun allocations WF`: each Slurm allocation of a workflow (its scheduled_compute_nodes
// record, the scheduler record it was made from, and Slurm's word on it while Slurm knows it) as
// one row: Slurm id, state, shape, the jobs it was made for, its nodes, when it was submitted,
// started and ended, and why it ended; also the counts by state `torcrun status` prints. Pure.
#pragma once

#include "torcrun/slurm/job_facts.hpp"

#include <boost/json/array.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core {

struct allocation_entry {
    std::int64_t slurm_id = 0;  // 0: sbatch refused it
    std::string status;         // the record's: pending, active, complete, canceled
    // the scheduler record's
    std::string scheduler;
    std::int64_t nodes = 0;
    std::string walltime, partition, gres;
    // the record's history (torcrun's extension fields; empty when not written)
    std::string made_for, shape, submit_time, start_time, end_time, node, end_reason;
    std::optional<slurm_job_facts> slurm;  // Slurm's word, for a live record
};

struct allocation_row {
    std::int64_t slurm_id = 0;
    std::string state;  // queued, running, done, failed, cancelled
    std::string shape, made_for, node, submitted, started, ended, why;
};

// The state: a refused sbatch is failed; a record's end_reason "slurm: STATE..." says how it
// ended (COMPLETED done, CANCELLED cancelled, any other failed); canceled records are cancelled,
// complete ones done; pending ones are running once Slurm says RUNNING, else queued; active ones
// running, unless Slurm says they have ended.
allocation_row allocation_row_of(allocation_entry const& e);

// "2-5,9,11-12" for {2,3,4,5,9,11,12} (in the order given; runs of +1 become ranges).
std::string id_ranges(std::vector<std::int64_t> const& ids);

// The table for people: a header and a line per row.
std::string format_allocation_table(std::vector<allocation_row> const& rows);

boost::json::array allocations_to_json(std::vector<allocation_row> const& rows);

// Rows by state, the states in the order queued, running, done, failed, cancelled (absent: 0).
std::map<std::string, std::int64_t> allocation_counts(std::vector<allocation_row> const& rows);

}  // namespace torcrun::core
