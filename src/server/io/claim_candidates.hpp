// The ready jobs a claim chooses from, read without loading every ready job of the workflow:
// from the store's ready index (ready_jobs.hpp), or from the job table when the index is off.
// Internal to src/server/io (job_claims.cpp; the claim_candidates and ready_jobs tests).
#pragma once

#include "store_detail.hpp"
#include "torcrun/server/claim_selection.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::io::detail {

// Each read takes the claim's `label` (core's claim_label): only the ready jobs with that label,
// or with none when it is nullopt.

// The ready jobs of workflow `wf` that core::select_claim with this `limit` can choose: of each
// group of jobs sharing resource_requirements_id and scheduler_id (identical to select_claim but
// for their priorities and ids), only the first `limit` by priority (higher first), then id. select_claim over
// these picks exactly what it picks over all ready jobs. Read from the ready index.
api_result<std::vector<core::claim_candidate>> claim_candidates(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what);
// The same read from the job table (the index's fallback, and what the tests compare it with).
// With many groups it falls back to reading every ready job, which costs less than seeking each
// group.
api_result<std::vector<core::claim_candidate>> claim_candidates_by_sql(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what);

// Every ready job of workflow `wf`: what claim_candidates narrows, and its fallback.
api_result<std::vector<core::claim_candidate>> all_claim_candidates(
    store& db, std::int64_t wf, std::optional<std::string> const& label, std::string_view what);

// The first `limit` ready jobs of workflow `wf` by priority (higher first), then id: what
// core::select_next_jobs chooses.
api_result<std::vector<core::next_candidate>> next_candidates(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what);
api_result<std::vector<core::next_candidate>> next_candidates_by_sql(
    store& db, std::int64_t wf, std::int64_t limit, std::optional<std::string> const& label,
    std::string_view what);

}  // namespace torcrun::io::detail
