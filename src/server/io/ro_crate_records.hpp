// The RO-Crate entities the server records by itself for a workflow with `enable_ro_crate`
// (ro_crate_routes.cpp). Internal to src/server/io.
#pragma once

#include "torcrun/server/io/server_api.hpp"
#include "torcrun/server/io/store.hpp"

#include <cstdint>
#include <span>
#include <string_view>

namespace torcrun::io {

// POST, GET, PUT, DELETE of the entities (server_api's constructor adds them).
void add_ro_crate_routes(server_api& api);

namespace detail {

// At initialize_jobs: a File entity per input file (no job writes it) that is on disk.
api_result<void> record_input_files(store& db, std::int64_t wf, std::string_view what);

// For each of `ids` that completed: a CreateAction `#job-ID-attempt-N` and a File entity per
// output file, with `wasGeneratedBy` naming the action.
api_result<void> record_completed_jobs(store& db, std::int64_t wf,
                                       std::span<std::int64_t const> ids, std::string_view what);

}  // namespace detail
}  // namespace torcrun::io
