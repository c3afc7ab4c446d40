// Datasets in the job life cycle (docs/TORC-COMPATIBILITY.md §5, "Datasets"). A consumer waits
// for its producers through implied edges (added at initialize_jobs) and, beyond them, for every
// dataset it reads to be `finalized`: a job about to become ready that reads an unfinalized
// dataset stays blocked (held_by_datasets), and the finalizer makes it ready once the last of its
// datasets is hashed (promote_consumers). settle_datasets runs after every change of job states:
// it reopens datasets whose producers no longer all completed (a rerun), claims for finalization
// those whose producers all did (status `finalizing`, generation + 1), and cancels the blocked
// consumers of datasets that can never be finalized (a producer ended failed, canceled or
// terminated, or hashing failed), so no consumer waits for ever. Internal to src/server/io.
#pragma once

#include "lifecycle_detail.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace torcrun::io::detail {

api_result<std::vector<std::int64_t>> held_by_datasets(store& db,
                                                       std::span<std::int64_t const> ids,
                                                       std::string_view what);

api_result<void> settle_datasets(job_changes& changes, std::int64_t workflow_id);

// Blocked consumers of `dataset_id` whose blockers are all done and whose datasets are all
// finalized become ready.
api_result<void> promote_consumers(job_changes& changes, std::int64_t workflow_id,
                                   std::int64_t dataset_id);

}  // namespace torcrun::io::detail
