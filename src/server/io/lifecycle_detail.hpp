// Pieces the job life-cycle routes share: reading the rows core's decisions need, and writing job
// status changes with everything that follows from them. Internal to src/server/io.
#pragma once

#include "server_routes.hpp"
#include "store_detail.hpp"
#include "torcrun/server/dependency_resolution.hpp"
#include "torcrun/server/job_fence.hpp"
#include "torcrun/server/job_transitions.hpp"
#include "torcrun/server/workflow_progress.hpp"
#include "torcrun/server/io/job_lifecycle.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace torcrun::io::detail {

using core::job_status;

// A refusal of a core decision as the HTTP answer it names.
api::api_error refused(core::rejection const& r);

// The store's window on the dependency graph for core's traversals (resolve_completions,
// downstream_jobs), reading job_depends_on through its two indexes. The interface has no room for
// failures, so the first one is kept for the caller to check afterwards.
class store_view : public core::dependency_view {
public:
    explicit store_view(sqlite::connection& db) : db_(db) {}
    std::vector<core::job_node> dependents_of(std::int64_t job_id) override;
    std::vector<core::job_node> blockers_of(std::int64_t job_id) override;
    std::optional<sqlite::failure> const& failed() const { return failure_; }

private:
    std::vector<core::job_node> read(std::string const& sql, std::int64_t id);
    sqlite::connection& db_;
    std::optional<sqlite::failure> failure_;
};

// The job status changes of one request or sweep and what follows from them: an event row per
// change, dependents released in the same transaction, workflow-action trigger counts, and
// server_api::notify when jobs became claimable. `source` names the endpoint: it starts the
// messages and goes in the event rows.
class job_changes {
public:
    // Event rows carry `now` (the server's clock by default) in milliseconds.
    job_changes(server_api& api, std::string_view source);
    job_changes(server_api& api, std::string_view source,
                std::chrono::system_clock::time_point now);

    server_api& api() { return api_; }
    store& db() { return api_.db(); }
    std::string const& source() const { return source_; }

    // nullopt when there is no such job.
    api_result<std::optional<core::job_state>> job_state(std::int64_t job_id);
    // The job's current result (workflow_result), nullopt when it has none.
    api_result<std::optional<core::kept_result>> kept_result(std::int64_t job_id);
    // The retry of the job's `attempt` the server applied for a fenced request, if any.
    api_result<std::optional<core::applied_retry>> applied_retry(std::int64_t job_id,
                                                                 std::int64_t attempt);
    // Remembers that `retried` was applied (one row per job and attempt; kept across restarts).
    api_result<void> note_retry(std::int64_t job_id, core::applied_retry const& retried);
    // 404 when the workflow does not exist.
    api_result<core::workflow_flags> flags(std::int64_t workflow_id);
    api_result<core::status_counts> counts(std::int64_t workflow_id);
    // Some job is not finished (uninitialized, blocked, ready, pending, running, pending_failed):
    // one probe of the (workflow_id, status) index.
    api_result<bool> has_unfinished_jobs(std::int64_t workflow_id);

    // The job's status, the compute node now holding it (none: NULL), and an event row.
    api_result<void> set_status(std::int64_t workflow_id, std::int64_t job_id, job_status from,
                                job_status to, std::optional<std::int64_t> node = std::nullopt);
    // Inserts a result row (checked as POST /results checks it) and makes it the job's current
    // result (workflow_result).
    // references_checked: the result's job and compute node were checked against the workflow
    // (complete_job's checks), so the insert does not read them again.
    api_result<void> record_result(api::record const& result, bool references_checked = false);
    // Jobs that will run again have no current result.
    api_result<void> drop_current_results(std::span<std::int64_t const> job_ids);

    // After `ids` reached a status that releases dependents: each blocked dependent becomes ready
    // or canceled (core::resolve_completions, transitively), on_jobs_complete and on_jobs_ready
    // actions count, and on_workflow_complete actions trigger once the workflow is complete.
    api_result<core::unblock_outcome> finished(std::int64_t workflow_id,
                                               std::span<std::int64_t const> ids);
    // Jobs became ready: on_jobs_ready actions count and parked claims wake.
    api_result<void> became_ready(std::int64_t workflow_id, std::span<std::int64_t const> ids);
    // Adds, to each action of the type not yet triggered, how many of its job_ids are in `ids`.
    api_result<void> count_triggers(std::int64_t workflow_id, std::string_view trigger_type,
                                    std::span<std::int64_t const> ids);
    // Triggers the on_workflow_complete actions when core::is_complete says so (not canceled).
    api_result<void> check_workflow_complete(std::int64_t workflow_id);

private:
    server_api& api_;
    std::string source_;
    std::int64_t now_ms_ = 0;
};

// 409: the compute node may no longer claim or renew (a lost worker learns it this way).
api::api_error inactive_node(std::string_view what, std::int64_t node);

// 409 inactive_node when `node` is a compute node that is no longer active (none such: success).
api_result<void> refuse_inactive_node(store& db, std::int64_t node, std::string_view what);

// 404/422 unless `node` is a compute node of the workflow (`field` names where the id came
// from in the message), 409 inactive_node when it is no longer active.
api_result<void> require_active_node(store& db, std::int64_t node, std::int64_t workflow_id,
                                     std::string_view what, std::string_view field);

// Sets the node's last heartbeat to the server's clock; with `start` false only when the node
// already holds a lease (a claim renews a lease but never starts one).
api_result<void> renew_lease(server_api& api, std::int64_t node, bool start, std::string_view what);

// The job model (with its links) as the 200 answer of a job endpoint.
api::response job_reply(store& db, std::int64_t job_id, std::string_view what);

// An optional boolean query parameter.
api_result<bool> flag_param(api::request const& req, std::string_view name, bool fallback,
                            std::string_view what);

}  // namespace torcrun::io::detail
