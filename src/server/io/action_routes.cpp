// Workflow actions a worker runs: the pending list (triggered, not executed) and the atomic claim,
// as Torc's server has them. Trigger counts are kept by job_changes (on_jobs_ready,
// on_jobs_complete, on_workflow_complete) and initialize_jobs (the start triggers).
#include "lifecycle_detail.hpp"

// GCC 12 reports members left to their default initializers in designated initializer lists (fixed
// in GCC 13); every field_spec member has a default on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace torcrun::io {
namespace {

using api::path_params;
using api::request;

constexpr api::field_spec claim_fields[] = {
    {.name = "compute_node_id", .kind = api::field_kind::integer}};
api::model_spec const claim_body{"claim_action_body", "", claim_fields};

// GET actions/pending?trigger_type=A&trigger_type=B: triggered (trigger_count reached
// required_triggers) and not executed, in id order; no trigger_type lists every type.
api::response pending_actions(store& db, request const& req, std::int64_t wf)
{
    constexpr std::string_view what = "pending_actions";
    if (auto ok = db.require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto const [first, last] = req.query.equal_range("trigger_type");
    std::string sql = "SELECT " + detail::column_list(api::workflow_action_model) +
                      " FROM workflow_action WHERE workflow_id = ? AND trigger_count >= "
                      "required_triggers AND executed = 0";
    if (first != last) {
        sql += " AND trigger_type IN (?";
        for (auto it = std::next(first); it != last; ++it) sql += ", ?";
        sql += ")";
    }
    auto stmt = db.db().prepare(sql + " ORDER BY id");
    if (!stmt) return api::error_response(detail::to_api_error(stmt.error(), what));
    stmt->bind(1, wf);
    int index = 2;
    for (auto it = first; it != last; ++it) stmt->bind(index++, std::string_view(it->second));
    std::vector<api::record> rows;
    while (true) {
        auto row = stmt->step();
        if (!row) return api::error_response(detail::to_api_error(row.error(), what));
        if (!*row) break;
        rows.push_back(detail::read_record(*stmt, api::workflow_action_model));
    }
    return api::json_response(200, api::encode_array(api::workflow_action_model, rows));
}

// POST actions/{action_id}/claim {"compute_node_id": N}: a persistent action may be claimed by
// every worker (only executed_at is noted); any other exactly once (409 afterwards, as v0.10
// declares; its clients take it for "not claimed"). The answer carries both contracts' flag:
// `success` (0.23) and `claimed` (what v0.10's server sent).
api::response claim_action(server_api& api, request const& req, std::int64_t wf,
                           std::int64_t action_id)
{
    constexpr std::string_view what = "claim_action";
    auto& db = api.db();
    if (auto ok = db.require_workflow(wf, what); !ok) return api::error_response(ok.error());
    // No body, null, {} or {"compute_node_id": null}: claimed by no node in particular (0.23's
    // ClaimActionRequest makes the node optional; v0.10's clients always name it).
    if (auto ok = api::check_optional_body(req.body, what); !ok)
        return api::error_response(ok.error());
    std::optional<std::int64_t> node;
    auto const start = req.body.find_first_not_of(" \t\r\n");
    if (start != std::string::npos && req.body[start] == '{') {
        auto body = api::decode_body(claim_body, req.body, api::decode_mode::create, what);
        if (!body) return api::error_response(body.error());
        node = body->int64("compute_node_id");
    }
    // An action of another workflow is not found in this one (404, as Torc answers).
    auto owner = detail::scalar(db.db(), "SELECT workflow_id FROM workflow_action WHERE id = ?",
                                {action_id}, what);
    if (!owner) return api::error_response(owner.error());
    if (!*owner || std::get<std::int64_t>(**owner) != wf) {
        return api::error_response(api::not_found(std::string(what) + ": workflow " +
                                                  std::to_string(wf) + " has no action " +
                                                  std::to_string(action_id)));
    }
    if (node) {
        auto ok =
            db.check_owner("compute_node", *node, wf, std::string(what) + ": compute_node_id");
        if (!ok) return api::error_response(ok.error());
    }
    auto action = db.get(api::workflow_action_model, action_id, what);
    if (!action) return api::error_response(action.error());
    bool const persistent = action->int64("persistent").value_or(0) != 0;
    if (!persistent && action->int64("executed").value_or(0) != 0) {
        return api::error_response(api::conflict(std::string(what) + ": action " +
                                                 std::to_string(action_id) + " already claimed"));
    }
    api::record fields;
    fields.set("executed_at", api.timestamp());
    if (!persistent) {
        fields.set("executed", std::int64_t{1});
        if (node) fields.set("executed_by", *node);
    }
    auto updated = db.update(api::workflow_action_model, action_id, fields, what);
    if (!updated) return api::error_response(updated.error());
    return api::json_response(200, "{\"action_id\":" + std::to_string(action_id) +
                                       ",\"success\":true,\"claimed\":true}");
}

}  // namespace

void add_action_routes(server_api& api)
{
    api.add_route("GET", "/workflows/{id}/actions/pending", api::access::workflow_in_path(),
                  [&api](request const& req, path_params const& p) {
                      return pending_actions(api.db(), req, p.id("id"));
                  });
    api.add_route("POST", "/workflows/{id}/actions/{action_id}/claim",
                  api::access::workflow_in_path(),
                  [&api](request const& req, path_params const& p) {
                      return claim_action(api, req, p.id("id"), p.id("action_id"));
                  });
}

}  // namespace torcrun::io
