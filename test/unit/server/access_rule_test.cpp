// The access decision and its messages: who may touch a workflow, who may share it, who may
// hand it to another owner.
#include "torcrun/server/access_rule.hpp"

#include <boost/test/unit_test.hpp>

namespace api = torcrun::api;

BOOST_AUTO_TEST_SUITE(access_rule)

api::workflow_access_facts alices(bool shared = false, bool admin = false)
{
    return {7, "alice", shared, admin};
}

BOOST_AUTO_TEST_CASE(owner_member_and_admin_may_outsider_may_not)
{
    BOOST_TEST(api::decide_workflow_access("alice", alices(), false).has_value());
    BOOST_TEST(api::decide_workflow_access("bob", alices(true), false).has_value());
    BOOST_TEST(api::decide_workflow_access("ops", alices(false, true), false).has_value());
    auto refused = api::decide_workflow_access("carol", alices(), false);
    BOOST_TEST_REQUIRE(refused.has_error());
    BOOST_TEST(refused.error().status == 403u);
    BOOST_TEST(refused.error().message ==
               "access: user \"carol\" has no access to workflow 7 (not its owner, not in an "
               "access group it is shared with, not an admin)");
}

BOOST_AUTO_TEST_CASE(sharing_is_for_the_owner_and_admins)
{
    BOOST_TEST(api::decide_workflow_access("alice", alices(), true).has_value());
    BOOST_TEST(api::decide_workflow_access("ops", alices(false, true), true).has_value());
    auto member = api::decide_workflow_access("bob", alices(true), true);
    BOOST_TEST_REQUIRE(member.has_error());
    BOOST_TEST(member.error().status == 403u);
    BOOST_TEST(member.error().message ==
               "access: user \"bob\" may not change who shares workflow 7: only its owner "
               "\"alice\" and admins may");
}

BOOST_AUTO_TEST_CASE(no_credentials_is_refused)
{
    auto refused = api::decide_workflow_access(std::nullopt, alices(true, true), false);
    BOOST_TEST_REQUIRE(refused.has_error());
    BOOST_TEST(refused.error().message ==
               "access: a request without credentials has no access to workflow 7 (access "
               "control is on)");
}

BOOST_AUTO_TEST_CASE(only_admins_change_the_owner)
{
    BOOST_TEST(api::decide_owner_change("bob", false, "alice", "alice", 7).has_value());
    BOOST_TEST(api::decide_owner_change("ops", true, "bob", "alice", 7).has_value());
    auto refused = api::decide_owner_change("bob", false, "bob", "alice", 7);
    BOOST_TEST_REQUIRE(refused.has_error());
    BOOST_TEST(refused.error().status == 403u);
    BOOST_TEST(refused.error().message ==
               "workflows: field \"user\": user \"bob\" may not give workflow 7 of \"alice\" to "
               "\"bob\" (only admins change a workflow's owner)");
}

BOOST_AUTO_TEST_CASE(admin_required_names_the_user)
{
    auto const e = api::admin_required(std::string("bob"), "access_groups");
    BOOST_TEST(e.status == 403u);
    BOOST_TEST(e.message == "access_groups: user \"bob\" is not an admin (only members of the "
                            "admin group, auth.admin_users, manage access groups)");
}

BOOST_AUTO_TEST_SUITE_END()
