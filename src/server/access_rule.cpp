// The access decisions and their messages. Each 403 names the user and what was refused, so a
// person reading a client's error knows whom to ask (the owner, or an admin).
#include "torcrun/server/access_rule.hpp"

#include "torcrun/server/model_json.hpp"

namespace torcrun::api {
namespace {

std::string who(std::optional<std::string> const& user)
{
    return user ? "user " + json_quote(*user) : std::string("a request without credentials");
}

api_error forbidden(std::string message) { return {403, std::move(message)}; }

}  // namespace

api_result<void> decide_workflow_access(std::optional<std::string> const& user,
                                        workflow_access_facts const& facts, bool owner_only)
{
    auto const id = std::to_string(facts.workflow_id);
    if (!user) {
        return forbidden("access: a request without credentials has no access to workflow " +
                         id + " (access control is on)");
    }
    if (facts.user_is_admin || facts.owner == *user) return {};
    if (owner_only) {
        return forbidden("access: " + who(user) + " may not change who shares workflow " + id +
                         ": only its owner " + json_quote(facts.owner) + " and admins may");
    }
    if (facts.shared_with_user) return {};
    return forbidden("access: " + who(user) + " has no access to workflow " + id +
                     " (not its owner, not in an access group it is shared with, not an admin)");
}

api_error admin_required(std::optional<std::string> const& user, std::string_view what)
{
    return forbidden(std::string(what) + ": " + who(user) +
                     " is not an admin (only members of the admin group, auth.admin_users, "
                     "manage access groups)");
}

api_result<void> decide_owner_change(std::string const& user, bool user_is_admin,
                                     std::string_view body_user, std::string_view current_owner,
                                     std::int64_t workflow_id)
{
    if (body_user == current_owner || user_is_admin) return {};
    return forbidden("workflows: field \"user\": user " + json_quote(user) +
                     " may not give workflow " + std::to_string(workflow_id) + " of " +
                     json_quote(current_owner) + " to " + json_quote(body_user) +
                     " (only admins change a workflow's owner)");
}

}  // namespace torcrun::api
