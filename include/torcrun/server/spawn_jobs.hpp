// Dynamic jobs: newer Torc's `POST /jobs/{id}/spawn_jobs` as pure decisions
// (docs/TORC-COMPATIBILITY.md §5, "Dynamic jobs"). A running orchestrator job adds jobs that start
// blocked on it; the jobs, the dependency edges and the lineage's state record are written in the
// request's one transaction by src/server/io/spawn_jobs_routes.cpp, which reads what these
// functions need and writes what they decide.
//
// What comes from Torc (its contract 0.23 and its server): the request's shape with no unknown
// fields; the lineage defaulting to the caller's name; the caller must be running; duplicate names,
// a negative priority, an unknown dependency and a cycle among the batch are 422; a batch whose
// names all exist is a replay (the existing ids, nothing written), one whose names partly exist is
// 422; the iteration counter is the highest generation record `__torc_lineage__<L>__g<NNNNNN>`
// of the lineage, capped per lineage by the workflow's `dynamic_jobs.max_iterations` (default
// 1000); `jobs: []` with a state writes the lineage's `__final` record.
//
// What torcrun adds: a replay is recognised only when every existing job was spawned by this same
// caller (Torc takes any job of that name), so a batch cannot adopt declared jobs or another
// orchestrator's; a dependency name that more than one job has is 422 (Torc's names are not unique
// either, and it would pick one); and the request may be fenced by the caller's attempt and run
// (query parameters `attempt_id`, `run_id`: 409 when the job has moved on), so an orchestrator
// process of an attempt the server has already ended cannot add jobs.
#pragma once

#include "torcrun/server/api_error.hpp"
#include "torcrun/server/job_status.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

inline constexpr std::int64_t default_max_spawn_iterations = 1000;

// One entry of the request's `jobs` (SpawnJobModel).
struct spawn_job_request {
    std::string name;
    std::string command;
    std::vector<std::string> depends_on;
    std::optional<std::string> resource_requirements;  // a name; absent: the workflow's default
    std::int64_t priority = 0;
    bool cancel_on_blocking_job_failure = true;
};

struct spawn_request {
    std::vector<spawn_job_request> jobs;
    std::optional<std::string> lineage;
    std::optional<std::string> state;  // the JSON text of `state`; absent or null: none
};

// The body as SpawnJobsRequest: 400 for a body that is not such an object (not JSON, a field of
// the wrong type, an unknown field: `spawn_jobs: jobs[1]: unknown field "dependencies"`), 422
// for an empty name or lineage and a negative priority.
api::api_result<spawn_request> decode_spawn_request(std::string_view body, std::string_view what);

// The workflow's `dynamic_jobs` as stored (its JSON text): 422 unless it is an object with at
// most `max_iterations`, an integer of at least 1 (or null).
api::api_result<void> check_dynamic_jobs_config(std::string_view json_text, std::string_view what);

// The cap of a workflow whose `dynamic_jobs` is `json_text` (absent, or no max_iterations: 1000).
std::int64_t max_spawn_iterations(std::optional<std::string> const& json_text);

// The lineage's generation records: `__torc_lineage__<lineage>__g000001` ... and `__final`.
std::string lineage_generation_name(std::string_view lineage, std::int64_t generation);
std::string lineage_final_name(std::string_view lineage);
// The generation a record name holds for this lineage, nullopt for any other name.
std::optional<std::int64_t> lineage_generation_of(std::string_view record_name,
                                                  std::string_view lineage);

// The calling job as the store holds it, and the fence the request names.
struct spawn_caller {
    std::int64_t id = 0;
    std::string name;
    job_status status = job_status::uninitialized;
    std::int64_t attempt_id = 1;
    std::int64_t current_run = 0;
};
struct spawn_fence {
    std::optional<std::int64_t> attempt_id;
    std::optional<std::int64_t> run_id;
};

// A job of the workflow whose name the batch uses (as a new job or a dependency).
struct job_of_name {
    std::int64_t id = 0;
    std::string name;
    std::optional<std::int64_t> spawned_by;  // the job whose spawn_jobs created it
};

// Where a new job's dependency edge points: an existing job, or a job of the same batch.
struct spawn_edge {
    std::optional<std::int64_t> existing_id;
    std::size_t sibling = 0;  // index in the batch when existing_id is absent

    bool operator==(spawn_edge const&) const = default;
};

struct spawn_plan {
    std::string lineage;
    bool replay = false;                  // every job exists: answer their ids, write nothing
    std::vector<std::int64_t> replay_ids;  // in the request's order
    // For a fresh batch: each job's edges, the caller's first (every job waits for it).
    std::vector<std::vector<spawn_edge>> edges;
    std::int64_t iteration = 0;  // the lineage's counter after the call
    bool append_generation = false;  // write lineage_generation_name(lineage, iteration)
    bool write_final = false;        // jobs: [] with a state: upsert lineage_final_name(lineage)
};

// 409 when the fence names another attempt or run than the caller's (stale process); 422 when the
// caller is not running (its dependents would never be released):
//   "spawn_jobs: job 7 is \"completed\"; only a running job may spawn jobs (spawned jobs wait
//    for it and would never be released)"
std::optional<api::api_error> check_spawn_caller(spawn_caller const& caller,
                                                 spawn_fence const& fence, std::string_view what);

// The decision for a request from a running caller: `existing` are the workflow's jobs with a
// name the batch uses, `spawn_count` the lineage's highest generation so far, `max_iterations`
// the workflow's cap. 422 for duplicate names in the batch, a name already used by a job this
// caller did not spawn, a partial replay, a dependency on an unknown or ambiguous name, a cycle
// in the batch, and the cap:
//   "spawn_jobs: per-lineage iteration cap reached for lineage \"caseA\": attempted iteration 11
//    exceeds dynamic_jobs.max_iterations=10 (current spawn_count=10)"
api::api_result<spawn_plan> plan_spawn(spawn_caller const& caller, spawn_request const& request,
                                       std::span<job_of_name const> existing,
                                       std::int64_t spawn_count, std::int64_t max_iterations,
                                       std::string_view what);

// The 200 body: {"spawned_job_ids":[...],"iteration":N}.
std::string spawn_response_body(std::span<std::int64_t const> ids, std::int64_t iteration);

// The lineage record's data: {"generation":N,"spawn_count":N,"state":...} (with "final":true for
// the final record), as Torc writes it; `state_json` is JSON text or absent (null).
std::string lineage_record_data(std::int64_t generation, std::optional<std::string> const& state_json,
                                bool final);

}  // namespace torcrun::core
