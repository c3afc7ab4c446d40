// Request handling around the route table: one transaction per request, commit on success,
// rollback on any 4xx/5xx, change notifications after the commit only.
#include "torcrun/server/io/server_api.hpp"

#include "torcrun/server/io/job_lifecycle.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <exception>
#include <utility>

namespace torcrun::io {

server_api::server_api(store& db, server_options options) : store_(db), options_(std::move(options))
{
    if (!options_.clock) options_.clock = [] { return std::chrono::system_clock::now(); };
    add_system_routes(*this);
    add_workflow_routes(*this);
    add_resource_routes(*this);
    add_job_routes(*this);
    // -- job life cycle
    add_workflow_state_routes(*this);
    add_initialize_routes(*this);
    add_job_lifecycle_routes(*this);
    add_claim_routes(*this);
    add_action_routes(*this);
    add_lease_routes(*this);
}

void server_api::add_route(std::string_view method, std::string_view pattern,
                           api::route_handler handler)
{
    router_.add(method, pattern, std::move(handler));
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

api::outcome server_api::run(api::request const& req)
{
    try {
        return router_.dispatch(req);
    } catch (std::exception const& e) {
        return api::error_response(api::internal_error("internal: " + std::string(e.what())));
    }
}

api_result<void> server_api::run_task(std::function<api_result<void>()> const& work)
{
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
    return {};
}

api::outcome server_api::handle(api::request const& req)
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
    return out;
}

}  // namespace torcrun::io
