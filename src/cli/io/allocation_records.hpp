// The server's records of a workflow's Slurm allocations (scheduled compute nodes) as `cancel` and
// `workflows sync-status` read and update them.
#pragma once

#include "torc_client.hpp"

#include "torcrun/cli/allocation_listing.hpp"
#include "torcrun/common/error.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace torcrun::apps {

// The workflow's records of Slurm allocations still `pending` or `active` (with a Slurm job id).
core::result<std::vector<boost::json::value>> live_slurm_allocations(torc_client& client,
                                                                     std::int64_t wf);

// PUT the record back with `status` ("canceled", "complete"), its Slurm job and configuration
// kept.
// `extra`: more fields to set (the history fields of torcrun's server: end_time, end_reason).
core::result<void> set_allocation_status(torc_client& client, std::int64_t wf,
                                         boost::json::value const& record,
                                         std::string const& status,
                                         boost::json::object const& extra = {});

// Every Slurm allocation record of the workflow with its scheduler record (for `torcrun
// allocations` and the counts of `torcrun status`); with `ask_slurm`, scontrol's word on each
// record still pending or active.
core::result<std::vector<core::allocation_entry>> allocation_entries(torc_client& client,
                                                                     std::int64_t wf,
                                                                     bool ask_slurm);

}  // namespace torcrun::apps
