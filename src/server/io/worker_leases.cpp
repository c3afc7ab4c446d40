// Worker leases (an extension): POST /compute_nodes/{id}/heartbeat starts and renews a node's
// lease, and expire_lost_workers, run by the server's timer, hands back or fails the jobs of nodes
// that went silent (core::lease_book, core::orphaned_job_outcome), so no job stays pending or
// running on a worker that is gone. A node that never sent a heartbeat (every Torc runner) holds no
// lease and is never expired. Expiry is decided on the steady clock in memory (server_api::leases);
// the store's last_heartbeat_ms only says which nodes hold a lease.
//
// Jobs held by a deactivated node (its worker shut down while a claim's reply was lost, so it
// never knew it held them) are released the same way: when PUT /compute_nodes/{id} deactivates
// the node, and by every sweep for databases that already hold such jobs.
#include "claim_keys.hpp"
#include "lifecycle_detail.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>

namespace torcrun::io {
namespace {

using api::request;
using core::job_status;
using detail::job_changes;

std::int64_t epoch_ms(std::chrono::system_clock::time_point t)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

api::response heartbeat(server_api& api, request const& req, std::int64_t node)
{
    constexpr std::string_view what = "heartbeat";
    if (auto ok = api::check_optional_body(req.body, what); !ok)
        return api::error_response(ok.error());
    auto& db = api.db().db();
    auto active =
        detail::scalar(db, "SELECT is_active FROM compute_node WHERE id = ?", {node}, what);
    if (!active) return api::error_response(active.error());
    if (!*active) {
        return api::error_response(api::not_found(std::string(what) + ": no compute_node with id " +
                                                  std::to_string(node)));
    }
    if (auto const* flag = std::get_if<std::int64_t>(&**active); flag != nullptr && *flag == 0) {
        return api::error_response(detail::inactive_node(what, node));
    }
    if (auto renewed = detail::renew_lease(api, node, true, what); !renewed)
        return api::error_response(renewed.error());
    boost::json::object out;
    out["compute_node_id"] = node;
    auto const lease = api.options().worker_lease_seconds;
    if (std::floor(lease) == lease) {
        out["lease_seconds"] = static_cast<std::int64_t>(lease);
    } else {
        out["lease_seconds"] = lease;
    }
    return api::json_response(200, boost::json::serialize(out));
}

// The ids a one-column query returns.
api_result<std::vector<std::int64_t>> node_ids(sqlite::connection& db, std::string const& sql,
                                               std::string_view what)
{
    std::vector<std::int64_t> out;
    auto stmt = db.cached(sql);
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return detail::to_api_error(row.error(), what);
        if (!*row) break;
        out.push_back((*stmt)->int64(0));
    }
    return out;
}

// The active nodes that hold a lease (the compute_node_lease index).
api_result<std::vector<std::int64_t>> leased_nodes(sqlite::connection& db, std::string_view what)
{
    return node_ids(db,
                    "SELECT id FROM compute_node "
                    "WHERE is_active = 1 AND last_heartbeat_ms IS NOT NULL",
                    what);
}

// Inactive nodes that still hold jobs: each inactive node probes the job_active_compute_node index.
api_result<std::vector<std::int64_t>> inactive_holders(sqlite::connection& db,
                                                       std::string_view what)
{
    return node_ids(db,
                    "SELECT n.id FROM compute_node n WHERE n.is_active = 0 AND EXISTS "
                    "(SELECT 1 FROM job j WHERE j.active_compute_node_id = n.id) ORDER BY n.id",
                    what);
}

struct held_job {
    std::int64_t id = 0;
    std::int64_t workflow_id = 0;
    job_status status = job_status::uninitialized;
    std::int64_t attempt_id = 1;
};

api_result<std::vector<held_job>> jobs_held_by(sqlite::connection& db, std::int64_t node,
                                               std::string_view what)
{
    std::vector<held_job> out;
    auto stmt = db.cached("SELECT id, workflow_id, status, attempt_id FROM job "
                          "WHERE active_compute_node_id = ? ORDER BY id");
    if (!stmt) return detail::to_api_error(stmt.error(), what);
    (*stmt)->bind(1, node);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return detail::to_api_error(row.error(), what);
        if (!*row) break;
        out.push_back({(*stmt)->int64(0), (*stmt)->int64(1),
                       job_status{static_cast<int>((*stmt)->int64(2))}, (*stmt)->int64(3)});
    }
    return out;
}

// A running job of a lost worker failed by policy: a result as Torc's orphan cleanup writes it
// (return code -128), then dependents resolved like any completion.
api_result<void> fail_orphan(job_changes& changes, held_job const& job, std::int64_t node,
                             std::int64_t return_code)
{
    auto flags = changes.flags(job.workflow_id);
    if (!flags) return flags.error();
    api::record result;
    result.set("job_id", job.id);
    result.set("workflow_id", job.workflow_id);
    result.set("run_id", flags->run_id);
    result.set("attempt_id", job.attempt_id);
    result.set("compute_node_id", node);
    result.set("return_code", return_code);
    result.set("exec_time_minutes", 0.0);
    result.set("completion_time", changes.api().timestamp());
    result.set("status", std::int64_t{core::to_int(job_status::failed)});
    if (auto ok = changes.set_status(job.workflow_id, job.id, job.status, job_status::failed); !ok)
        return ok;
    if (auto ok = changes.record_result(result); !ok) return ok;
    std::int64_t const ids[] = {job.id};
    auto released = changes.finished(job.workflow_id, ids);
    if (!released) return released.error();
    return {};
}

// The pending and running jobs of a node that is gone: pending -> ready, running -> ready on the
// next attempt or failed per lost_worker_jobs (core::orphaned_job_outcome); its claims are not
// repeated. The process of a running job may still be alive on the lost worker, so the job's next
// holder runs attempt N + 1 beside it, never N, and a late report of N is refused by the fence.
api_result<void> release_held_jobs(job_changes& changes, std::int64_t node, lease_sweep& out)
{
    auto const& what = changes.source();
    auto& db = changes.db().db();
    if (auto ok = detail::forget_claims(db, node, what); !ok) return ok;
    auto jobs = jobs_held_by(db, node, what);
    if (!jobs) return jobs.error();
    auto const policy = changes.api().options().lost_worker_jobs;
    for (auto const& job : *jobs) {
        auto const outcome = core::orphaned_job_outcome(job.status, policy);
        if (!outcome) continue;
        if (outcome->return_code) {
            if (auto ok = fail_orphan(changes, job, node, *outcome->return_code); !ok) return ok;
            out.jobs_failed.push_back(job.id);
            continue;
        }
        auto ok = changes.set_status(job.workflow_id, job.id, job.status, outcome->status);
        if (!ok) return ok;
        if (outcome->new_attempt) {
            auto next = detail::scalar(db, "UPDATE job SET attempt_id = ? WHERE id = ?",
                                       {job.attempt_id + 1, job.id}, what);
            if (!next) return next.error();
        }
        // Counted for on_jobs_ready when it first became ready; only the parked claims wake.
        changes.api().notify(job.workflow_id);
        out.jobs_ready.push_back(job.id);
    }
    return {};
}

api_result<void> expire_worker(job_changes& changes, std::int64_t node, lease_sweep& out)
{
    auto off = detail::scalar(changes.db().db(), "UPDATE compute_node SET is_active = 0 WHERE id = ?",
                              {node}, changes.source());
    if (!off) return off.error();
    out.lost_workers.push_back(node);
    return release_held_jobs(changes, node, out);
}

void sort_sweep(lease_sweep& out)
{
    std::sort(out.jobs_ready.begin(), out.jobs_ready.end());
    std::sort(out.jobs_failed.begin(), out.jobs_failed.end());
}

// PUT /compute_nodes/{id} as the plain record update, then, when the node is now inactive, its
// jobs are released (a worker that deactivates its node holds none that it knows of).
api::response update_compute_node(server_api& api, request const& req, std::int64_t node)
{
    constexpr std::string_view what = "compute_nodes";
    auto fields =
        api::decode_body(api::compute_node_model, req.body, api::decode_mode::update, what);
    if (!fields) return api::error_response(fields.error());
    auto row = api.db().update(api::compute_node_model, node, *fields, what);
    if (!row || row->int64("is_active").value_or(1) != 0) {
        return detail::reply(row, api::compute_node_model);
    }
    job_changes changes(api, what);
    lease_sweep released;
    if (auto ok = release_held_jobs(changes, node, released); !ok)
        return api::error_response(ok.error());
    return detail::reply(row, api::compute_node_model);
}

}  // namespace

api::api_error detail::inactive_node(std::string_view what, std::int64_t node)
{
    return api::conflict(std::string(what) + ": compute node " + std::to_string(node) +
                         " is inactive (shut down, or its lease ran out and its jobs went back); "
                         "register a new node");
}

api_result<void> detail::refuse_inactive_node(store& db, std::int64_t node, std::string_view what)
{
    auto active =
        detail::scalar(db.db(), "SELECT is_active FROM compute_node WHERE id = ?", {node}, what);
    if (!active) return active.error();
    if (*active && std::holds_alternative<std::int64_t>(**active) &&
        std::get<std::int64_t>(**active) == 0) {
        return detail::inactive_node(what, node);
    }
    return {};
}

api_result<void> detail::require_active_node(store& db, std::int64_t node, std::int64_t workflow_id,
                                             std::string_view what, std::string_view field)
{
    auto owned = db.check_owner("compute_node", node, workflow_id,
                                std::string(what) + ": " + std::string(field));
    if (!owned) return owned.error();
    return refuse_inactive_node(db, node, what);
}

api_result<void> detail::renew_lease(server_api& api, std::int64_t node, bool start,
                                     std::string_view what)
{
    auto renewed =
        detail::scalar(api.db().db(),
                       start ? "UPDATE compute_node SET last_heartbeat_ms = ? WHERE id = ?"
                             : "UPDATE compute_node SET last_heartbeat_ms = ? WHERE id = ? "
                               "AND last_heartbeat_ms IS NOT NULL",
                       {epoch_ms(api.options().clock()), node}, what);
    if (!renewed) return renewed.error();
    if (start || api.db().db().changes() > 0) api.leases().renew(node, api.options().lease_clock());
    return {};
}

api_result<lease_sweep> expire_lost_workers(server_api& api,
                                            std::chrono::steady_clock::time_point now)
{
    lease_sweep out;
    auto done = api.run_task([&]() -> api_result<void> {
        out = {};
        job_changes changes(api, "lease");
        auto& db = api.db().db();
        auto leased = leased_nodes(db, changes.source());
        if (!leased) return leased.error();
        auto const lease = std::chrono::milliseconds(
            std::llround(std::max(0.0, api.options().worker_lease_seconds) * 1000));
        for (auto node : api.leases().expired(*leased, now, lease)) {
            if (auto ok = expire_worker(changes, node, out); !ok) return ok;
        }
        auto holders = inactive_holders(db, changes.source());
        if (!holders) return holders.error();
        for (auto node : *holders) {
            if (auto ok = release_held_jobs(changes, node, out); !ok) return ok;
            out.inactive_holders.push_back(node);
        }
        return {};
    });
    if (!done) return done.error();
    sort_sweep(out);
    return out;
}

void add_lease_routes(server_api& api)
{
    api.add_route("POST", "/compute_nodes/{id}/heartbeat",
                  api::access::record_in_path("compute_node"),
                  [&api](request const& req, api::path_params const& p) {
                      return heartbeat(api, req, p.id("id"));
                  });
    // Replaces the plain record update of add_resource_routes.
    api.add_route("PUT", "/compute_nodes/{id}", api::access::record_in_path("compute_node"),
                  [&api](request const& req, api::path_params const& p) {
                      return update_compute_node(api, req, p.id("id"));
                  });
}

api_result<core::status_counts> job_status_counts(server_api& api, std::int64_t workflow_id)
{
    api.commit_group();  // counts of committed changes only
    return detail::job_changes(api, "job status counts").counts(workflow_id);
}

}  // namespace torcrun::io
