// The access-group endpoints of the contract (Torc's team-based access control):
// - /access_groups: create (admins), list; /access_groups/{id}: get, delete (admins; the
//   built-in admin group cannot be deleted);
// - /access_groups/{id}/members: add (admins), list; .../members/{user_name}: remove (admins);
//   the admin group's members are auth.admin_users and cannot be changed here;
// - /users/{user_name}/groups: the groups a user is in;
// - /workflows/{id}/access_groups: share the workflow with a group (its owner and admins), list
//   the groups it is shared with; .../{group_id}: revoke (owner and admins); POST on that path
//   shares too, as newer Torc's clients send it;
// - /access_check/{workflow_id}/{user_name}: whether that user may use the workflow.
// Who may call each is the route's access rule (access_rule.hpp), applied before the handler;
// the handlers only keep the records right. created_at is the server's clock.
#include "server_routes.hpp"
#include "store_detail.hpp"

namespace torcrun::io {

using api::path_params;
using api::request;

namespace {

namespace access = api::access;

constexpr std::string_view groups = "access_groups";

// {"items": [...], "offset", "limit", "total_count", "has_more"}: the contract's list answer.
api::response list_reply(api_result<page_rows> const& page, api::model_spec const& model,
                         api::paging const& paging)
{
    if (!page) return api::error_response(page.error());
    std::string items;
    for (auto const& row : page->items) {
        if (!items.empty()) items += ',';
        items += api::encode(model, row);
    }
    auto const end = paging.offset + static_cast<std::int64_t>(page->items.size());
    return api::json_response(
        200, "{\"items\":[" + items + "],\"offset\":" + std::to_string(paging.offset) +
                 ",\"limit\":" + std::to_string(paging.limit) +
                 ",\"total_count\":" + std::to_string(page->total_count) +
                 ",\"has_more\":" + (end < page->total_count ? "true" : "false") + "}");
}

api_result<std::optional<api::cell>> one(store& db, std::string const& sql,
                                         std::vector<api::cell> const& args, std::string_view what)
{
    return detail::scalar(db.db(), sql, args, what);
}

// The group, 404 when there is none; `system` tells the built-in admin group.
struct group_row {
    api::record row;
    bool system = false;
};
api_result<group_row> find_group(store& db, std::int64_t id, std::string_view what)
{
    auto row = db.get(api::access_group_model, id, what);
    if (!row) return row.error();
    auto system = one(db, "SELECT is_system FROM access_group WHERE id = ?", {id}, what);
    if (!system) return system.error();
    return group_row{std::move(*row), *system && std::get<std::int64_t>(**system) != 0};
}

api::api_error admin_group_fixed(std::string_view what)
{
    return {403, std::string(what) + ": the admin group's members are the server's "
                                     "auth.admin_users; they cannot be changed through the API"};
}

api::response create_group(server_api& api, request const& req)
{
    auto fields = api::decode_body(api::access_group_model, req.body, api::decode_mode::create,
                                   groups);
    if (!fields) return api::error_response(fields.error());
    auto const& name = *fields->text("name");
    if (name.empty())
        return api::error_response(api::unprocessable("access_groups: field \"name\": is empty"));
    auto taken = one(api.db(), "SELECT id FROM access_group WHERE name = ?", {name}, groups);
    if (!taken) return api::error_response(taken.error());
    if (*taken)
        return api::error_response(api::conflict("access_groups: group " + api::json_quote(name) +
                                                 " already exists"));
    auto const* description = fields->text("description");
    auto inserted = one(api.db(),
                        "INSERT INTO access_group (name, description, created_at) VALUES (?, ?, ?)",
                        {name, description ? api::cell(*description) : api::cell{},
                         api.timestamp()},
                        groups);
    if (!inserted) return api::error_response(inserted.error());
    return detail::reply(api.db().get(api::access_group_model, api.db().db().last_insert_rowid(),
                                      groups),
                         api::access_group_model);
}

api::response delete_group(server_api& api, std::int64_t id)
{
    auto group = find_group(api.db(), id, groups);
    if (!group) return api::error_response(group.error());
    if (group->system)
        return api::error_response(
            {403, "access_groups: the admin group is built in and cannot be deleted"});
    auto removed = api.db().remove(api::access_group_model, id, groups);
    return detail::reply(removed, api::access_group_model);
}

api::response list_groups(server_api& api, request const& req, std::string_view what,
                          std::optional<sql_filter> filter)
{
    auto page = api::parse_paging(req, api::access_group_model, what);
    if (!page) return api::error_response(page.error());
    list_query query;
    query.page = *page;
    if (!query.page.sort_by) query.page.sort_by = "name";
    if (filter) query.where.push_back(std::move(*filter));
    return list_reply(api.db().list(api::access_group_model, query, what),
                      api::access_group_model, query.page);
}

// ---- members

constexpr std::string_view members = "members";

api_result<api::record> find_membership(store& db, std::int64_t group, std::string const& user,
                                        std::string_view what)
{
    auto id = one(db, "SELECT id FROM user_group_membership WHERE group_id = ? AND user_name = ?",
                  {group, user}, what);
    if (!id) return id.error();
    if (!*id)
        return api::not_found(std::string(what) + ": user " + api::json_quote(user) +
                              " is not a member of group " + std::to_string(group));
    return db.get(api::user_group_membership_model, std::get<std::int64_t>(**id), what);
}

api::response add_member(server_api& api, request const& req, std::int64_t group_id)
{
    auto fields = api::decode_body(api::user_group_membership_model, req.body,
                                   api::decode_mode::create, members);
    if (!fields) return api::error_response(fields.error());
    if (auto const body_group = *fields->int64("group_id"); body_group != group_id) {
        return api::error_response(api::unprocessable(
            "members: field \"group_id\": " + std::to_string(body_group) +
            " differs from the group in the path, " + std::to_string(group_id)));
    }
    auto const& user = *fields->text("user_name");
    if (user.empty())
        return api::error_response(api::unprocessable("members: field \"user_name\": is empty"));
    auto group = find_group(api.db(), group_id, members);
    if (!group) return api::error_response(group.error());
    if (group->system) return api::error_response(admin_group_fixed(members));
    if (auto existing = find_membership(api.db(), group_id, user, members); existing) {
        return api::error_response(api::conflict("members: user " + api::json_quote(user) +
                                                 " is already a member of group " +
                                                 std::to_string(group_id)));
    }
    auto inserted = one(api.db(),
                        "INSERT INTO user_group_membership (user_name, group_id, role, created_at) "
                        "VALUES (?, ?, ?, ?)",
                        {user, group_id, *fields->text("role"), api.timestamp()}, members);
    if (!inserted) return api::error_response(inserted.error());
    return detail::reply(find_membership(api.db(), group_id, user, members),
                         api::user_group_membership_model);
}

api::response remove_member(server_api& api, std::int64_t group_id, std::string const& user)
{
    auto group = find_group(api.db(), group_id, members);
    if (!group) return api::error_response(group.error());
    if (group->system) return api::error_response(admin_group_fixed(members));
    auto membership = find_membership(api.db(), group_id, user, members);
    if (!membership) return api::error_response(membership.error());
    auto removed =
        api.db().remove(api::user_group_membership_model, *membership->int64("id"), members);
    return detail::reply(removed, api::user_group_membership_model);
}

api::response list_members(server_api& api, request const& req, std::int64_t group_id)
{
    if (auto group = find_group(api.db(), group_id, members); !group)
        return api::error_response(group.error());
    auto page = api::parse_paging(req, api::user_group_membership_model, members);
    if (!page) return api::error_response(page.error());
    list_query query;
    query.page = *page;
    if (!query.page.sort_by) query.page.sort_by = "user_name";
    query.where.push_back({"group_id = ?", group_id});
    return list_reply(api.db().list(api::user_group_membership_model, query, members),
                      api::user_group_membership_model, query.page);
}

// ---- workflows shared with groups

constexpr std::string_view shares = "workflow access_groups";

api_result<api::record> find_share(store& db, std::int64_t workflow_id, std::int64_t group_id)
{
    auto at = one(db,
                  "SELECT created_at FROM workflow_access_group WHERE workflow_id = ? AND "
                  "group_id = ?",
                  {workflow_id, group_id}, shares);
    if (!at) return at.error();
    if (!*at)
        return api::not_found(std::string(shares) + ": workflow " + std::to_string(workflow_id) +
                              " is not shared with group " + std::to_string(group_id));
    api::record row;
    row.set("workflow_id", workflow_id);
    row.set("group_id", group_id);
    row.set("created_at", std::get<std::string>(**at));
    return row;
}

api::response share(server_api& api, std::int64_t workflow_id, std::int64_t group_id)
{
    if (auto ok = api.db().require_workflow(workflow_id, shares); !ok)
        return api::error_response(ok.error());
    if (auto group = find_group(api.db(), group_id, shares); !group)
        return api::error_response(group.error());
    if (find_share(api.db(), workflow_id, group_id)) {
        return api::error_response(api::conflict(
            std::string(shares) + ": workflow " + std::to_string(workflow_id) +
            " is already shared with group " + std::to_string(group_id)));
    }
    auto inserted = one(api.db(),
                        "INSERT INTO workflow_access_group (workflow_id, group_id, created_at) "
                        "VALUES (?, ?, ?)",
                        {workflow_id, group_id, api.timestamp()}, shares);
    if (!inserted) return api::error_response(inserted.error());
    return detail::reply(find_share(api.db(), workflow_id, group_id),
                         api::workflow_access_group_model);
}

// POST /workflows/{id}/access_groups with the contract's body.
api::response share_from_body(server_api& api, request const& req, std::int64_t workflow_id)
{
    auto fields = api::decode_body(api::workflow_access_group_model, req.body,
                                   api::decode_mode::create, shares);
    if (!fields) return api::error_response(fields.error());
    if (auto const body_wf = *fields->int64("workflow_id"); body_wf != workflow_id) {
        return api::error_response(api::unprocessable(
            std::string(shares) + ": field \"workflow_id\": " + std::to_string(body_wf) +
            " differs from the workflow in the path, " + std::to_string(workflow_id)));
    }
    return share(api, workflow_id, *fields->int64("group_id"));
}

api::response revoke(server_api& api, std::int64_t workflow_id, std::int64_t group_id)
{
    auto row = find_share(api.db(), workflow_id, group_id);
    if (!row) return api::error_response(row.error());
    auto removed =
        one(api.db(), "DELETE FROM workflow_access_group WHERE workflow_id = ? AND group_id = ?",
            {workflow_id, group_id}, shares);
    if (!removed) return api::error_response(removed.error());
    return detail::reply(row, api::workflow_access_group_model);
}

// Owner, member of a group the workflow is shared with, or admin: the rule access control
// applies, asked for any user.
api::response access_check(server_api& api, std::int64_t workflow_id, std::string const& user)
{
    constexpr std::string_view what = "access_check";
    if (auto ok = api.db().require_workflow(workflow_id, what); !ok)
        return api::error_response(ok.error());
    access_control rules(api.db());
    auto facts = rules.facts(user, "?2", workflow_id);
    if (!facts) return api::error_response(facts.error());
    bool const allowed =
        *facts && api::decide_workflow_access(user, **facts, false).has_value();
    return api::json_response(200, "{\"has_access\":" + std::string(allowed ? "true" : "false") +
                                       ",\"user_name\":" + api::json_quote(user) +
                                       ",\"workflow_id\":" + std::to_string(workflow_id) + "}");
}

}  // namespace

void add_access_group_routes(server_api& api)
{
    api.add_route(
        "POST", "/access_groups", access::admin(),
        [&api](request const& req, path_params const&) { return create_group(api, req); });
    api.add_route("GET", "/access_groups", access::any_user(),
                  [&api](request const& req, path_params const&) {
                      return list_groups(api, req, groups, std::nullopt);
                  });
    api.add_route("GET", "/access_groups/{id}", access::any_user(),
                  [&api](request const&, path_params const& p) {
                      return detail::reply(
                          api.db().get(api::access_group_model, p.id("id"), groups),
                          api::access_group_model);
                  });
    api.add_route("DELETE", "/access_groups/{id}", access::admin(),
                  [&api](request const&, path_params const& p) {
                      return delete_group(api, p.id("id"));
                  });
    api.add_route("POST", "/access_groups/{id}/members", access::admin(),
                  [&api](request const& req, path_params const& p) {
                      return add_member(api, req, p.id("id"));
                  });
    api.add_route("GET", "/access_groups/{id}/members", access::any_user(),
                  [&api](request const& req, path_params const& p) {
                      return list_members(api, req, p.id("id"));
                  });
    api.add_route("DELETE", "/access_groups/{id}/members/{user_name:string}", access::admin(),
                  [&api](request const&, path_params const& p) {
                      return remove_member(api, p.id("id"), std::string(p.text("user_name")));
                  });
    api.add_route("GET", "/users/{user_name:string}/groups", access::any_user(),
                  [&api](request const& req, path_params const& p) {
                      return list_groups(api, req, "users groups",
                                         sql_filter{"id IN (SELECT group_id FROM "
                                                    "user_group_membership WHERE user_name = ?)",
                                                    std::string(p.text("user_name"))});
                  });
    api.add_route("POST", "/workflows/{id}/access_groups", access::workflow_owner_path(),
                  [&api](request const& req, path_params const& p) {
                      return share_from_body(api, req, p.id("id"));
                  });
    api.add_route("POST", "/workflows/{id}/access_groups/{group_id}",
                  access::workflow_owner_path(), [&api](request const&, path_params const& p) {
                      return share(api, p.id("id"), p.id("group_id"));
                  });
    api.add_route("GET", "/workflows/{id}/access_groups", access::workflow_in_path(),
                  [&api](request const& req, path_params const& p) {
                      auto const wf = p.id("id");
                      if (auto ok = api.db().require_workflow(wf, shares); !ok)
                          return api::error_response(ok.error());
                      return list_groups(api, req, shares,
                                         sql_filter{"id IN (SELECT group_id FROM "
                                                    "workflow_access_group WHERE workflow_id = ?)",
                                                    wf});
                  });
    api.add_route("DELETE", "/workflows/{id}/access_groups/{group_id}",
                  access::workflow_owner_path(), [&api](request const&, path_params const& p) {
                      return revoke(api, p.id("id"), p.id("group_id"));
                  });
    api.add_route(
        "GET", "/access_check/{workflow_id}/{user_name:string}",
        access::workflow_in_path("workflow_id"), [&api](request const&, path_params const& p) {
            return access_check(api, p.id("workflow_id"), std::string(p.text("user_name")));
        });
}

}  // namespace torcrun::io
