// What `torcrun spawn-jobs` sends, from the job's own environment and its arguments (pure: the
// environment comes in as a map). A job that a worker started has TORC_API_URL, TORC_WORKFLOW_ID,
// TORC_JOB_ID, TORC_ATTEMPT_ID and TORC_RUN_ID (env_policy.hpp); a job spawn_jobs added also has
// TORC_ORCHESTRATOR_LINEAGE_ID, which newer Torc's Python `Orchestrator` reads as its lineage.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace torcrun::core {

struct spawn_identity {
    std::int64_t workflow_id = 0;
    std::int64_t job_id = 0;
    std::optional<std::int64_t> attempt_id;  // the fence: only this attempt may spawn
    std::optional<std::int64_t> run_id;
    std::optional<std::string> lineage;  // --lineage, else TORC_ORCHESTRATOR_LINEAGE_ID
};

// The caller from the environment. Errors name the variable:
// `TORC_JOB_ID is not set: torcrun spawn-jobs runs inside a job a worker started`,
// `TORC_ATTEMPT_ID: "x" is not a positive integer`.
result<spawn_identity> spawn_identity_from(env_map const& env,
                                           std::optional<std::string> const& lineage_flag);

// The request path: /jobs/7/spawn_jobs?attempt_id=2&run_id=1 (the fence when known).
std::string spawn_path(spawn_identity const& id);

// The SpawnJobsRequest body: `request_text` (a JSON object with `jobs`, or empty for
// --converge: `{"jobs":[]}`) with the identity's lineage added unless it names one, and `state`
// (JSON text) set when given. Errors: not JSON (with line and column), not an object, no
// `jobs` without --converge, `jobs` not empty with --converge, state given twice.
result<std::string> spawn_body(std::string const& request_text, bool converge,
                               std::optional<std::string> const& state_text,
                               spawn_identity const& id);

// The lineage's current generation among the workflow's user-data names (Torc's records
// `__torc_lineage__<lineage>__g<NNNNNN>`): the highest, 0 before the first spawn.
std::int64_t lineage_generation(std::span<std::string const> user_data_names,
                                std::string const& lineage);

}  // namespace torcrun::core
