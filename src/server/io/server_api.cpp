// Request handling around the route table: one transaction per request (or one savepoint in a
// group's transaction, server_api.hpp), commit on success, rollback on any 4xx/5xx, change
// notifications after the commit only.
#include "torcrun/server/io/server_api.hpp"

#include "torcrun/server/event_stream.hpp"
#include "torcrun/server/io/dataset_finalizer.hpp"
#include "torcrun/server/io/job_lifecycle.hpp"
#include "ro_crate_records.hpp"
#include "store_detail.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <utility>

namespace torcrun::io {

server_api::server_api(store& db, server_options options)
    : store_(db), options_(std::move(options)), access_(db)
{
    if (!options_.clock) options_.clock = [] { return std::chrono::system_clock::now(); };
    if (!options_.lease_clock)
        options_.lease_clock = [] { return std::chrono::steady_clock::now(); };
    add_system_routes(*this);
    add_workflow_routes(*this);
    add_resource_routes(*this);
    add_job_routes(*this);
    // -- job life cycle
    add_workflow_state_routes(*this);
    add_initialize_routes(*this);
    add_job_lifecycle_routes(*this);
    add_claim_routes(*this);
    add_complete_and_claim_routes(*this);
    add_action_routes(*this);
    add_lease_routes(*this);
    add_spawn_routes(*this);
    add_access_group_routes(*this);
    add_dataset_routes(*this);
    add_ro_crate_routes(*this);
    // The stream itself is the HTTP server's; this route only checks the workflow exists.
    add_route("GET", "/workflows/{id}/events/stream", api::access::workflow_in_path(),
              [this](api::request const&, api::path_params const& p) -> api::outcome {
                  auto const id = p.id("id");
                  auto found = store_.db().cached("SELECT 1 FROM workflow WHERE id = ?");
                  if (!found)
                      return api::error_response(api::internal_error(found.error().message));
                  (*found)->bind(1, id);
                  auto row = (*found)->step();
                  if (!row) return api::error_response(api::internal_error(row.error().message));
                  if (!*row)
                      return api::error_response(api::api_error{
                          404, "events/stream: workflow " + std::to_string(id) + " not found"});
                  return api::event_stream{id};
              });
}

void server_api::set_event_listener(std::function<void(std::int64_t, std::string const&)> listener)
{
    commit_group();  // the newest event row below must be a committed one
    event_listener_ = std::move(listener);
    last_event_id_ = 0;
    if (!event_listener_) return;
    if (auto newest = store_.db().cached("SELECT COALESCE(MAX(id), 0) FROM event")) {
        if (auto row = (*newest)->step(); row && *row) last_event_id_ = (*newest)->int64(0);
        (*newest)->reset();
    }
}

// After a commit: the event rows the request or task wrote, with what a frame names of their job.
void server_api::publish_events()
{
    if (!event_listener_) return;
    auto rows = store_.db().cached(
        "SELECT e.id, e.workflow_id, e.timestamp, e.data, j.name, r.return_code, "
        "j.active_compute_node_id, s.run_id FROM event e "
        "LEFT JOIN job j ON j.id = json_extract(e.data, '$.job_id') "
        "LEFT JOIN workflow_result wr ON wr.job_id = j.id "
        "LEFT JOIN result r ON r.id = wr.result_id "
        "LEFT JOIN workflow_status s ON s.id = e.workflow_id "
        "WHERE e.id > ? ORDER BY e.id");
    if (!rows) return;
    (*rows)->bind(1, last_event_id_);
    std::vector<std::pair<std::int64_t, std::string>> frames;
    for (;;) {
        auto more = (*rows)->step();
        if (!more || !*more) break;
        auto& r = **rows;
        last_event_id_ = r.int64(0);
        core::stored_event e;
        e.workflow_id = r.int64(1);
        e.timestamp_ms = r.int64(2);
        e.data = r.text(3);
        if (!r.is_null(4)) e.job_name = r.text(4);
        if (!r.is_null(5)) e.return_code = r.int64(5);
        if (!r.is_null(6)) e.compute_node_id = r.int64(6);
        if (!r.is_null(7)) e.run_id = r.int64(7);
        if (auto frame = core::format_sse_frame(e)) frames.emplace_back(e.workflow_id, std::move(*frame));
    }
    (*rows)->reset();
    for (auto const& [workflow_id, frame] : frames) event_listener_(workflow_id, frame);
}

void server_api::add_route(std::string_view method, std::string_view pattern,
                           api::access_rule access, api::route_handler handler)
{
    router_.add(method, pattern, access, std::move(handler));
}

void server_api::set_change_listener(std::function<void(std::int64_t)> listener)
{
    listener_ = std::move(listener);
}

void server_api::notify(std::int64_t workflow_id)
{
    // Once per workflow and request: a batch completion may release jobs many times over.
    if (std::find(changed_.begin(), changed_.end(), workflow_id) == changed_.end())
        changed_.push_back(workflow_id);
}

std::string server_api::timestamp() const
{
    auto const now = options_.clock();
    auto const ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
    auto const seconds = static_cast<std::time_t>(ms.count() / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    auto const n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    char millis[8];
    std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(ms.count() % 1000));
    return std::string(text, n) + millis;
}

// With access control on, the route's rule decides before the handler runs; a refused request
// reaches no handler, so it changes nothing.
api::outcome server_api::authorized(api::request const& req, api::router::match const& m)
{
    if (!options_.enforce_access_control) return (*m.handler)(req, m.params);
    auto grant = access_.check(req, m.access, m.params);
    if (!grant) return api::error_response(grant.error());
    if (!grant->visible_to && !grant->owner) return (*m.handler)(req, m.params);
    auto narrowed = req;  // a listing or a creation: small bodies
    narrowed.visible_to = std::move(grant->visible_to);
    narrowed.owner = std::move(grant->owner);
    return (*m.handler)(narrowed, m.params);
}

api::outcome server_api::run(api::request const& req)
{
    try {
        auto m = router_.find(req.method, req.path);
        if (!m) return api::error_response(m.error());
        return authorized(req, *m);
    } catch (std::exception const& e) {
        return api::error_response(api::internal_error("internal: " + std::string(e.what())));
    }
}

api_result<void> server_api::run_task(std::function<api_result<void>()> const& work)
{
    commit_group();
    changed_.clear();
    auto tx = sqlite::transaction::begin(store_.db(), sqlite::transaction::kind::immediate);
    if (!tx) return api::api_error{503, "database: " + tx.error().message};
    api_result<void> done;
    try {
        done = work();
    } catch (std::exception const& e) {
        done = api::internal_error("internal: " + std::string(e.what()));
    }
    if (!done) {
        tx->rollback();
        changed_.clear();
        return done;
    }
    if (auto committed = tx->commit(); !committed) {
        changed_.clear();
        return api::internal_error("database: " + committed.error().message);
    }
    auto const changed = std::exchange(changed_, {});
    if (listener_) {
        for (auto id : changed) listener_(id);
    }
    publish_events();
    return {};
}

void server_api::set_commit_listener(commit_listener listener)
{
    commit_group();
    commit_listener_ = std::move(listener);
}

api::outcome server_api::handle(api::request const& req)
{
    commit_group();
    return handle_alone(req);
}

namespace {

std::string const request_savepoint = "SAVEPOINT request";
std::string const request_rollback = "ROLLBACK TO request";
std::string const request_release = "RELEASE request";

bool failed(api::outcome const& out)
{
    auto const* answer = std::get_if<api::response>(&out);
    return answer != nullptr && answer->status >= 400;
}

}  // namespace

api::outcome server_api::handle_grouped(api::request const& req)
{
    if (!commit_listener_ || (!group_ && req.method == "GET")) return handle_alone(req);
    if (group_lost_) commit_group();  // reports the lost group; this request opens a new one
    auto& db = store_.db();
    if (!group_) {
        auto tx = sqlite::transaction::begin(db, sqlite::transaction::kind::immediate);
        if (!tx) return api::error_response(api::api_error{503, "database: " + tx.error().message});
        group_.emplace(std::move(*tx));
        ++group_id_;
    }
    if (auto begun = detail::run_prepared(db, request_savepoint); !begun)
        return api::error_response(api::api_error{503, "database: " + begun.error().message});
    changed_.clear();
    auto out = run(req);
    if (sqlite3_get_autocommit(db.native()) != 0) {
        // SQLite ended the transaction itself: the group's writes are gone, and commit_group
        // reports them failed; this request's answer waits for that report like the others.
        group_lost_ = true;
        changed_.clear();
        return out;
    }
    if (failed(out)) {
        (void)detail::run_prepared(db, request_rollback);
        changed_.clear();
    } else {
        for (auto id : changed_) {
            if (std::find(group_changed_.begin(), group_changed_.end(), id) == group_changed_.end())
                group_changed_.push_back(id);
        }
        changed_.clear();
    }
    if (auto released = detail::run_prepared(db, request_release); !released) group_lost_ = true;
    return out;
}

void server_api::commit_group()
{
    if (!group_) return;
    std::optional<std::string> failure;
    if (group_lost_) {
        failure = "database: the transaction was rolled back by SQLite";
        group_->rollback();
    } else if (auto done = group_->commit(); !done) {
        failure = "database: " + done.error().message;
        group_->rollback();
    }
    group_.reset();
    group_lost_ = false;
    auto const changed = std::exchange(group_changed_, {});
    if (!failure) {
        if (listener_) {
            for (auto id : changed) listener_(id);
        }
        publish_events();
    }
    if (commit_listener_) commit_listener_(group_id_, failure);
}

api::outcome server_api::handle_alone(api::request const& req)
{
    changed_.clear();
    auto const kind = req.method == "GET" ? sqlite::transaction::kind::deferred
                                          : sqlite::transaction::kind::immediate;
    auto tx = sqlite::transaction::begin(store_.db(), kind);
    if (!tx) {
        return api::error_response(api::api_error{503, "database: " + tx.error().message});
    }
    auto out = run(req);
    auto const* answer = std::get_if<api::response>(&out);
    if (answer != nullptr && answer->status >= 400) {
        tx->rollback();
        changed_.clear();
        return out;
    }
    if (auto done = tx->commit(); !done) {
        changed_.clear();
        return api::error_response(api::internal_error("database: " + done.error().message));
    }
    if (listener_) {
        for (auto id : changed_) listener_(id);
    }
    changed_.clear();
    if (req.method != "GET") publish_events();
    return out;
}

}  // namespace torcrun::io
