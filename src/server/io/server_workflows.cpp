// ping and version; workflows (create with their status row and `default` resource
// requirements, list, get, update, delete with cascade); workflow actions (create, list) and the
// failure-handler listing under /workflows/{id}.
#include "server_routes.hpp"

#include <limits>

namespace torcrun::io {
namespace {

using api::param_kind;
using api::path_params;
using api::request;
using detail::filter_spec;

constexpr std::string_view workflows = "workflows";

constexpr filter_spec workflow_filters[] = {
    {{"name", param_kind::string}, "name = ?"},
    {{"user", param_kind::string}, "user = ?"},
    {{"description", param_kind::string}, "description = ?"},
    {{"is_archived", param_kind::boolean},
     "id IN (SELECT id FROM workflow_status WHERE is_archived = ?)"},
};

api::response create_action(store& db, request const& req, std::int64_t workflow_id)
{
    constexpr std::string_view actions = "actions";
    if (auto ok = db.require_workflow(workflow_id, actions); !ok)
        return api::error_response(ok.error());
    auto fields =
        api::decode_body(api::workflow_action_model, req.body, api::decode_mode::create, actions);
    if (!fields) return api::error_response(fields.error());
    if (auto const body_wf = *fields->int64("workflow_id"); body_wf != workflow_id) {
        return api::error_response(api::unprocessable(
            std::string(actions) + ": field \"workflow_id\": " + std::to_string(body_wf) +
            " differs from the workflow in the path, " + std::to_string(workflow_id)));
    }
    return detail::reply(db.insert(api::workflow_action_model, *fields, actions),
                         api::workflow_action_model);
}

api::response list_actions(store& db, std::int64_t workflow_id)
{
    constexpr std::string_view actions = "actions";
    if (auto ok = db.require_workflow(workflow_id, actions); !ok)
        return api::error_response(ok.error());
    list_query query;
    query.where.push_back({"workflow_id = ?", workflow_id});
    query.page.limit = std::numeric_limits<std::int64_t>::max();
    auto rows = db.list(api::workflow_action_model, query, actions);
    if (!rows) return api::error_response(rows.error());
    return api::json_response(200, api::encode_array(api::workflow_action_model, rows->items));
}

api::response list_failure_handlers(store& db, request const& req, std::int64_t workflow_id)
{
    constexpr std::string_view handlers = "failure_handlers";
    if (auto ok = db.require_workflow(workflow_id, handlers); !ok)
        return api::error_response(ok.error());
    auto query = detail::build_query(req, api::failure_handler_model, {}, workflow_id, handlers);
    if (!query) return api::error_response(query.error());
    return detail::reply_list(db.list(api::failure_handler_model, *query, handlers),
                              api::failure_handler_model, query->page);
}

}  // namespace

void add_system_routes(server_api& api)
{
    api.add_route("GET", "/ping", [](request const&, path_params const&) {
        return api::json_response(200, R"({"status":"ok"})");
    });
    api.add_route("GET", "/version", [&api](request const&, path_params const&) {
        return api::json_response(
            200, "{\"version\":" + api::json_quote(api.options().version) +
                     ",\"api_version\":" + api::json_quote(api.options().api_version) + "}");
    });
}

void add_workflow_routes(server_api& api)
{
    auto& db = api.db();
    auto const& model = api::workflow_model;
    api.add_route(
        "POST", "/workflows", [&api, &db, &model](request const& req, path_params const&) {
            auto fields = api::decode_body(model, req.body, api::decode_mode::create, workflows);
            if (!fields) return api::error_response(fields.error());
            return detail::reply(db.create_workflow(*fields, api.timestamp(), workflows), model);
        });
    api.add_route("GET", "/workflows", [&db, &model](request const& req, path_params const&) {
        auto query = detail::build_query(req, model, workflow_filters, std::nullopt, workflows);
        if (!query) return api::error_response(query.error());
        return detail::reply_list(db.list(model, *query, workflows), model, query->page);
    });
    api.add_route("GET", "/workflows/{id}", [&db, &model](request const&, path_params const& p) {
        return detail::reply(db.get(model, p.id("id"), workflows), model);
    });
    api.add_route(
        "PUT", "/workflows/{id}", [&db, &model](request const& req, path_params const& p) {
            auto fields = api::decode_body(model, req.body, api::decode_mode::update, workflows);
            if (!fields) return api::error_response(fields.error());
            return detail::reply(db.update(model, p.id("id"), *fields, workflows), model);
        });
    api.add_route("DELETE", "/workflows/{id}",
                  [&api, &db, &model](request const&, path_params const& p) {
                      auto removed = db.remove(model, p.id("id"), workflows);
                      if (removed) api.notify(p.id("id"));  // wakes long-poll claims parked on it
                      return detail::reply(removed, model);
                  });
    api.add_route("POST", "/workflows/{id}/actions",
                  [&db](request const& req, path_params const& p) {
                      return create_action(db, req, p.id("id"));
                  });
    api.add_route("GET", "/workflows/{id}/actions", [&db](request const&, path_params const& p) {
        return list_actions(db, p.id("id"));
    });
    api.add_route("GET", "/workflows/{id}/failure_handlers",
                  [&db](request const& req, path_params const& p) {
                      return list_failure_handlers(db, req, p.id("id"));
                  });
}

}  // namespace torcrun::io
