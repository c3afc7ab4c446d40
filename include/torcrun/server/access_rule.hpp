// Access control as the route table declares it: every route says how the workflow a request
// touches is found (`access_rule`), and one pure decision (`decide_workflow_access`) says whether
// the authenticated user may touch it. The server reads the facts (owner, sharing, admin) in one
// query per request and calls the decision before the handler, so no handler checks access
// itself. With access control off nothing here is consulted.
//
// Who may: the owner of the workflow (the user who created it), members of an access group it
// is shared with, and admins (members of the built-in `admin` group, the server's
// auth.admin_users). Sharing and revoking a workflow is for its owner and admins only.
#pragma once

#include "torcrun/server/api_error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::api {

enum class access_kind {
    open,                  // touches no workflow and needs no user: ping, version
    any_user,              // touches no workflow: reading access groups and memberships
    admin,                 // admins only: creating, deleting and filling access groups
    workflow_listing,      // GET /workflows: the answer holds only the workflows the user may see
    workflow_creation,     // POST /workflows: the requester becomes the owner, whatever `user` says
    workflow_in_path,      // the path parameter `param` is the workflow's id
    workflow_owner_path,   // as workflow_in_path, for the owner and admins only (sharing it)
    workflow_update,       // PUT /workflows/{id}: as workflow_in_path; `user` changes for admins
    record_in_path,        // the path parameter `param` is a row of `table`, which names it
    workflow_in_query,     // the query parameter `workflow_id`
    workflow_in_body,      // the body's `workflow_id`
    workflows_in_batch,    // `workflow_id` of each element of the body's array `batch`
};

struct access_rule {
    access_kind kind = access_kind::open;
    std::string_view param = "id";
    std::string_view table = {};
    std::string_view batch = {};
};

// The route table's vocabulary.
namespace access {
constexpr access_rule open() { return {access_kind::open}; }
constexpr access_rule any_user() { return {access_kind::any_user}; }
constexpr access_rule admin() { return {access_kind::admin}; }
constexpr access_rule workflow_listing() { return {access_kind::workflow_listing}; }
constexpr access_rule workflow_creation() { return {access_kind::workflow_creation}; }
constexpr access_rule workflow_in_path(std::string_view param = "id")
{
    return {access_kind::workflow_in_path, param};
}
constexpr access_rule workflow_owner_path() { return {access_kind::workflow_owner_path}; }
constexpr access_rule workflow_update() { return {access_kind::workflow_update}; }
constexpr access_rule record_in_path(std::string_view table)
{
    return {access_kind::record_in_path, "id", table};
}
constexpr access_rule workflow_in_query() { return {access_kind::workflow_in_query}; }
constexpr access_rule workflow_in_body() { return {access_kind::workflow_in_body}; }
constexpr access_rule workflows_in_batch(std::string_view batch)
{
    return {access_kind::workflows_in_batch, "id", {}, batch};
}
}  // namespace access

// What the store knows about one user and one workflow.
struct workflow_access_facts {
    std::int64_t workflow_id = 0;
    std::string owner;
    bool shared_with_user = false;  // the user is in a group the workflow is shared with
    bool user_is_admin = false;
};

// Allowed, or the 403 naming the user and the workflow. `owner_only`: group members are not
// enough (sharing and revoking). `user` is nullopt for a request without credentials.
api_result<void> decide_workflow_access(std::optional<std::string> const& user,
                                        workflow_access_facts const& facts, bool owner_only);

// The 403 of a request that needs an admin; `what` names the operation.
api_error admin_required(std::optional<std::string> const& user, std::string_view what);

// PUT /workflows/{id} with a `user`: only an admin hands a workflow to another owner.
api_result<void> decide_owner_change(std::string const& user, bool user_is_admin,
                                     std::string_view body_user, std::string_view current_owner,
                                     std::int64_t workflow_id);

}  // namespace torcrun::api
