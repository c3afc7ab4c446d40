// The access facts read from the store and the route rules applied to a request. One statement
// per request answers owner, sharing and admin together; the statements are cached on the
// connection, so a check costs one indexed lookup.
#include "torcrun/server/io/access_control.hpp"

#include "store_detail.hpp"
#include "torcrun/server/query_params.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <set>

namespace torcrun::io {
namespace {

using api::access_kind;

constexpr std::string_view admin_member =
    "EXISTS(SELECT 1 FROM user_group_membership m JOIN access_group g ON g.id = m.group_id "
    "WHERE g.is_system = 1 AND g.name = 'admin' AND m.user_name = ?1)";

api::api_error database(sqlite::failure const& e)
{
    return api::internal_error("access: " + e.message);
}

// The body as JSON when it is an object; nullopt otherwise (the handler reports it).
std::optional<boost::json::object> body_object(std::string const& body)
{
    boost::json::error_code ec;
    auto value = boost::json::parse(body, ec);
    if (ec || !value.is_object()) return std::nullopt;
    return std::move(value.as_object());
}

std::optional<std::int64_t> workflow_id_of(boost::json::object const& o)
{
    auto const* v = o.if_contains("workflow_id");
    if (!v || !v->is_int64()) return std::nullopt;
    return v->as_int64();
}

api::api_error anonymous()
{
    return {403, "access: a request without credentials is refused (access control is on)"};
}

}  // namespace

api_result<bool> access_control::is_admin(std::string const& user)
{
    auto stmt = store_.db().cached("SELECT " + std::string(admin_member));
    if (!stmt) return database(stmt.error());
    (*stmt)->bind(1, user);
    auto row = (*stmt)->step();
    if (!row) return database(row.error());
    bool const admin = (*stmt)->int64(0) != 0;
    (*stmt)->reset();
    return admin;
}

api_result<std::optional<api::workflow_access_facts>> access_control::facts(
    std::string const& user, std::string const& where, std::int64_t id)
{
    auto stmt = store_.db().cached(
        "SELECT w.id, w.user, EXISTS(SELECT 1 FROM workflow_access_group wag "
        "JOIN user_group_membership m ON m.group_id = wag.group_id "
        "WHERE wag.workflow_id = w.id AND m.user_name = ?1), " +
        std::string(admin_member) + " FROM workflow w WHERE w.id = " + where);
    if (!stmt) return database(stmt.error());
    auto& s = **stmt;
    s.bind(1, user);
    s.bind(2, id);
    auto row = s.step();
    if (!row) return database(row.error());
    std::optional<api::workflow_access_facts> out;
    if (*row)
        out = api::workflow_access_facts{s.int64(0), s.text(1), s.int64(2) != 0, s.int64(3) != 0};
    s.reset();
    return out;
}

api_result<void> access_control::workflow(api::request const& req, std::string const& where,
                                          std::int64_t id, bool owner_only)
{
    auto found = facts(*req.user, where, id);
    if (!found) return found.error();
    if (!*found) return {};  // the handler answers the 404
    return api::decide_workflow_access(req.user, **found, owner_only);
}

api_result<access_grant> access_control::check(api::request const& req,
                                               api::access_rule const& rule,
                                               api::path_params const& params)
{
    if (rule.kind == access_kind::open) return access_grant{};
    if (!req.user) return anonymous();
    auto const& user = *req.user;
    constexpr char const* by_id = "?2";
    switch (rule.kind) {
        case access_kind::open:
        case access_kind::any_user: return access_grant{};
        case access_kind::admin: {
            auto admin = is_admin(user);
            if (!admin) return admin.error();
            if (!*admin) return api::admin_required(req.user, "access_groups");
            return access_grant{};
        }
        case access_kind::workflow_listing: {
            auto admin = is_admin(user);
            if (!admin) return admin.error();
            return access_grant{*admin ? std::nullopt : std::optional<std::string>(user), {}};
        }
        case access_kind::workflow_creation: return access_grant{std::nullopt, user};
        case access_kind::workflow_in_path:
        case access_kind::workflow_owner_path: {
            bool const owner_only = rule.kind == access_kind::workflow_owner_path;
            if (auto ok = workflow(req, by_id, params.id(rule.param), owner_only); !ok)
                return ok.error();
            return access_grant{};
        }
        case access_kind::workflow_update: {
            auto const id = params.id(rule.param);
            auto found = facts(user, by_id, id);
            if (!found) return found.error();
            if (!*found) return access_grant{};
            if (auto ok = api::decide_workflow_access(req.user, **found, false); !ok)
                return ok.error();
            auto body = body_object(req.body);
            auto const* named = body ? body->if_contains("user") : nullptr;
            if (named && named->is_string()) {
                auto ok = api::decide_owner_change(user, (*found)->user_is_admin,
                                                   named->as_string(), (*found)->owner, id);
                if (!ok) return ok.error();
            }
            return access_grant{};
        }
        case access_kind::record_in_path: {
            auto const where = "(SELECT workflow_id FROM " + std::string(rule.table) +
                               " WHERE id = ?2)";
            if (auto ok = workflow(req, where, params.id(rule.param), false); !ok)
                return ok.error();
            return access_grant{};
        }
        case access_kind::workflow_in_query: {
            auto value = api::query_value(req, {"workflow_id"}, "access");
            if (!value || !*value) return access_grant{};  // the handler's 400 or 422
            auto const id = std::get<std::int64_t>(**value);
            if (auto ok = workflow(req, by_id, id, false); !ok) return ok.error();
            return access_grant{};
        }
        case access_kind::workflow_in_body: {
            auto body = body_object(req.body);
            auto const id = body ? workflow_id_of(*body) : std::nullopt;
            if (!id) return access_grant{};
            if (auto ok = workflow(req, by_id, *id, false); !ok) return ok.error();
            return access_grant{};
        }
        case access_kind::workflows_in_batch: {
            auto body = body_object(req.body);
            auto const* items = body ? body->if_contains(rule.batch) : nullptr;
            if (!items || !items->is_array()) return access_grant{};
            std::set<std::int64_t> ids;
            for (auto const& item : items->as_array()) {
                if (auto id = item.is_object() ? workflow_id_of(item.as_object()) : std::nullopt)
                    ids.insert(*id);
            }
            for (auto const id : ids) {
                if (auto ok = workflow(req, by_id, id, false); !ok) return ok.error();
            }
            return access_grant{};
        }
    }
    return access_grant{};
}

api_result<void> sync_admin_group(store& db, std::vector<std::string> const& admin_users,
                                  std::string const& timestamp)
{
    constexpr std::string_view what = "admin group";
    auto tx = sqlite::transaction::begin(db.db(), sqlite::transaction::kind::immediate);
    if (!tx) return api::internal_error(std::string(what) + ": " + tx.error().message);
    auto group = detail::scalar(
        db.db(), "SELECT id FROM access_group WHERE is_system = 1 AND name = 'admin'", {}, what);
    if (!group) return group.error();
    if (!*group) return api::internal_error("admin group: the built-in group is missing");
    auto const id = std::get<std::int64_t>(**group);
    auto removed = detail::scalar(db.db(), "DELETE FROM user_group_membership WHERE group_id = ?",
                                  {id}, what);
    if (!removed) return removed.error();
    for (auto const& user : admin_users) {
        auto added = detail::scalar(
            db.db(),
            "INSERT OR IGNORE INTO user_group_membership (user_name, group_id, role, created_at) "
            "VALUES (?, ?, 'admin', ?)",
            {user, id, timestamp}, what);
        if (!added) return added.error();
    }
    if (auto done = tx->commit(); !done)
        return api::internal_error(std::string(what) + ": " + done.error().message);
    return {};
}

}  // namespace torcrun::io
