// Torc's REST API (v0.10's contract and 0.23's, docs/TORC-COMPATIBILITY.md) over the store:
// `api::request` in, `api::response` out, no sockets. Every request runs in one SQLite
// transaction (BEGIN for GET, BEGIN IMMEDIATE otherwise) that commits when the answer is below
// 400 and rolls back otherwise, so a rejected request changes nothing. Handlers never throw on
// bad input; an unexpected exception becomes a 500 JSON answer and a rollback.
//
// Group commit (handle_grouped, once the HTTP server sets a commit listener): the requests that
// arrive together share one BEGIN IMMEDIATE transaction, each in a savepoint of its own that is released when its
// answer is below 400 and rolled back otherwise, and the HTTP server commits the group once the
// requests already read have run (commit_group), then sends their answers. One commit writes each
// page the group changed once, where a commit per request wrote the shared pages (the status
// index, the workflow's counters) once per request. A GET while no group is open runs alone, and
// so does every handle() (a direct caller, a test), after committing the open group.
//
// Extending (the job-lifecycle layer): add endpoints to the same route table with add_route().
// A handler gets the parsed path parameters (`{id}` checked as an integer), runs inside the
// request transaction, may call notify(workflow_id) to wake long-poll waiters after the commit,
// and returns an api::outcome (a response, or wait_for_workflow to park a long-poll claim).
//
//     api.add_route("POST", "/workflows/{id}/claim_next_jobs",
//                   [&api](api::request const& req, api::path_params const& p) { ... });
#pragma once

#include "torcrun/server/http_types.hpp"
#include "torcrun/server/router.hpp"
#include "torcrun/server/worker_lease.hpp"
#include "torcrun/server/io/access_control.hpp"
#include "torcrun/server/io/store.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::io {

struct server_options {
    // GET /version answers 0.23's VersionResponse {"version": version, "api_version":
    // api_version} plus "server": "torcrun", the key by which torcrun's clients recognise a
    // torcrun server (and use its extensions). Torc's clients compare `version` with their own and
    // only warn on a difference. Empty `version`: this torcrun's own. The API version is the
    // newest Torc contract the server answers (it answers v0.10's as well).
    std::string version;
    std::string api_version = "0.23.0";
    // Workflow timestamps; tests pass a fixed clock.
    std::function<std::chrono::system_clock::time_point()> clock;
    // Lease renewals (core::lease_book); tests pass a clock they move.
    std::function<std::chrono::steady_clock::time_point()> lease_clock;
    // -- job life cycle (server_config: long_poll_max_seconds, worker_lease_seconds,
    //    lost_worker_jobs)
    double long_poll_max_seconds = 30;  // a claim's wait_seconds is cut to this (and to 60)
    double worker_lease_seconds = 120;  // a heartbeat older than this loses the worker
    core::orphan_policy lost_worker_jobs = core::orphan_policy::ready;
    // auth.enforce_access_control: every route's access rule is applied before its handler.
    bool enforce_access_control = false;
};

class server_api : public api::request_handler {
public:
    explicit server_api(store& db, server_options options = {});

    api::outcome handle(api::request const& req) override;
    void set_change_listener(std::function<void(std::int64_t workflow_id)> listener) override;
    // Job status changes as server-sent-event frames (event_stream.hpp), reported after each
    // commit of a request or task that wrote event rows: only rows newer than the listener. An
    // empty listener reads no rows (the HTTP server sets one only while a stream is open).
    void set_event_listener(
        std::function<void(std::int64_t workflow_id, std::string const& frame)> listener) override;
    api::outcome handle_grouped(api::request const& req) override;
    void set_commit_listener(commit_listener listener) override;
    std::uint64_t open_group() const override { return group_ ? group_id_ : 0; }
    void commit_group() override;

    // Adds an endpoint, or replaces the one with the same method and pattern; `access` says how
    // the workflow a request touches is found, and access control applies it before `handler`.
    void add_route(std::string_view method, std::string_view pattern, api::access_rule access,
                   api::route_handler handler);

    // Runs `req` through the route table (its access rule included) inside the transaction of the
    // request being handled: for a route that composes others (complete_and_claim_jobs).
    api::outcome compose(api::request const& req) { return run(req); }

    store& db() { return store_; }
    server_options const& options() const { return options_; }
    // The workers' lease renewals, in memory only (a restart starts every lease afresh).
    core::lease_book& leases() { return leases_; }
    // The clock as Torc writes timestamps: "2026-01-19T22:41:30.123Z" (UTC, milliseconds).
    std::string timestamp() const;
    // Reports the workflow to the change listener once the request's transaction commits.
    void notify(std::int64_t workflow_id);
    // Runs work that is not a request (a timer's sweep) the way handle() runs a request: in one
    // BEGIN IMMEDIATE transaction, committed when `work` succeeds and rolled back otherwise, with
    // the notified workflows reported to the listener after the commit.
    // A request group still open commits first.
    api_result<void> run_task(std::function<api_result<void>()> const& work);

private:
    api::outcome handle_alone(api::request const& req);
    api::outcome run(api::request const& req);
    api::outcome authorized(api::request const& req, api::router::match const& m);
    void publish_events();

    store& store_;
    server_options options_;
    core::lease_book leases_;
    api::router router_;
    access_control access_;
    std::function<void(std::int64_t)> listener_;
    std::vector<std::int64_t> changed_;
    std::function<void(std::int64_t, std::string const&)> event_listener_;
    std::int64_t last_event_id_ = 0;  // the newest event row already published
    commit_listener commit_listener_;             // set: group commit
    std::optional<sqlite::transaction> group_;     // the open group's transaction
    std::uint64_t group_id_ = 0;                   // the open group's id, else the last one's
    bool group_lost_ = false;  // SQLite rolled the group back (an I/O error, out of memory)
    std::vector<std::int64_t> group_changed_;      // the workflows its requests changed
};

// The record routes (crud_routes.cpp), by group; the constructor calls them in this order.
void add_system_routes(server_api& api);    // ping, version
void add_workflow_routes(server_api& api);  // workflows, actions, failure handler listing
void add_resource_routes(server_api& api);  // files, user data, schedulers, nodes, results, ...
void add_job_routes(server_api& api);       // jobs, bulk_jobs, relationships, job_ids
// access_group_routes.cpp: access groups, their members, workflows shared with them, and
// access_check.
void add_access_group_routes(server_api& api);

}  // namespace torcrun::io
