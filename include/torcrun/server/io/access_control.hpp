// Access control over the store: what a route's `access_rule` names is looked up (the workflow
// in the path, a row's workflow, the query's or the body's `workflow_id`) and the facts about
// the requesting user read in one indexed query; the pure decision (access_rule.hpp) answers.
// server_api calls `check` before each handler when auth.enforce_access_control is on.
#pragma once

#include "torcrun/server/access_rule.hpp"
#include "torcrun/server/http_types.hpp"
#include "torcrun/server/router.hpp"
#include "torcrun/server/io/store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace torcrun::io {

// What a request may go on with.
struct access_grant {
    // GET /workflows: list only the workflows this user may see; nullopt = all of them (an
    // admin, or access control off).
    std::optional<std::string> visible_to;
    // POST /workflows: the owner to record (the requester).
    std::optional<std::string> owner;
};

class access_control {
public:
    explicit access_control(store& db) : store_(db) {}

    // The grant, or the refusal (403; 500 when the database fails). A request whose workflow
    // cannot be found (no such row, no or malformed `workflow_id`) goes on: its handler answers
    // the 404 or 422 and touches nothing.
    api_result<access_grant> check(api::request const& req, api::access_rule const& rule,
                                   api::path_params const& params);

    // The user is a member of the built-in admin group.
    api_result<bool> is_admin(std::string const& user);

    // Owner, shared-group membership and admin of `user` for the workflow `where` selects:
    // `where` is "?2" (a workflow id) or a subquery over ?2; nullopt when no such workflow.
    api_result<std::optional<api::workflow_access_facts>> facts(std::string const& user,
                                                                std::string const& where,
                                                                std::int64_t id);

private:
    api_result<void> workflow(api::request const& req, std::string const& where, std::int64_t id,
                              bool owner_only);

    store& store_;
};

// The built-in admin group holds exactly `admin_users` (Torc syncs it from its configuration
// at each start the same way); `timestamp` is the created_at of the memberships it adds.
api_result<void> sync_admin_group(store& db, std::vector<std::string> const& admin_users,
                                  std::string const& timestamp);

}  // namespace torcrun::io
