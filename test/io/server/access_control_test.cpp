// Access control in server_api over a real in-memory store: the route rules applied before the
// handlers (owner, group member, outsider, admin), the filtered listing, the owner taken from
// the credentials, the access-group endpoints and the built-in admin group, and nothing enforced
// with access control off (Torc's default).
#include "api_fixture.hpp"

#include "torcrun/server/io/access_control.hpp"

#include <boost/test/unit_test.hpp>

namespace api = torcrun::api;
namespace io = torcrun::io;
namespace json = boost::json;

namespace {

io::server_options enforcing()
{
    auto options = torcrun::test::fixed_clock();
    options.enforce_access_control = true;
    return options;
}

struct access_fixture {
    io::store db = io::store::open(":memory:").value();
    io::server_api server{db, enforcing()};
    std::int64_t wf = 0;
    std::int64_t team = 0;

    access_fixture()
    {
        BOOST_TEST_REQUIRE(io::sync_admin_group(db, {"ops"}, server.timestamp()).has_value());
        wf = json::parse(as("alice", "POST", "/workflows", R"({"name":"w","user":"mallory"})").body)
                 .at("id")
                 .as_int64();
        team = json::parse(as("ops", "POST", "/access_groups", R"({"name":"team"})").body)
                   .at("id")
                   .as_int64();
        auto const t = std::to_string(team);
        BOOST_TEST_REQUIRE(as("ops", "POST", "/access_groups/" + t + "/members",
                              R"({"user_name":"bob","group_id":)" + t + "}")
                               .status == 200u);
        BOOST_TEST_REQUIRE(
            as("alice", "POST", "/workflows/" + std::to_string(wf) + "/access_groups/" + t)
                .status == 200u);
    }

    api::response as(std::optional<std::string> user, std::string method, std::string path,
                     std::string body = {}, std::multimap<std::string, std::string> q = {})
    {
        api::request req;
        req.user = std::move(user);
        req.method = std::move(method);
        req.path = std::move(path);
        req.body = std::move(body);
        req.query = std::move(q);
        auto out = server.handle(req);
        BOOST_REQUIRE(std::holds_alternative<api::response>(out));
        return std::get<api::response>(out);
    }

    std::string message(api::response const& r)
    {
        return std::string(json::parse(r.body).at("message").as_string());
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(access_control)

BOOST_FIXTURE_TEST_CASE(the_owner_is_the_authenticated_user, access_fixture)
{
    auto const w = json::parse(as("alice", "GET", "/workflows/" + std::to_string(wf)).body);
    BOOST_TEST(w.at("user").as_string() == "alice");
}

BOOST_FIXTURE_TEST_CASE(owner_member_admin_in_outsider_out, access_fixture)
{
    auto const id = std::to_string(wf);
    auto job =
        as("alice", "POST", "/jobs", R"({"workflow_id":)" + id + R"(,"name":"a","command":"x"})");
    BOOST_TEST_REQUIRE(job.status == 200u);
    auto const job_id = std::to_string(json::parse(job.body).at("id").as_int64());
    for (auto const* user : {"alice", "bob", "ops"}) {
        BOOST_TEST(as(user, "GET", "/workflows/" + id).status == 200u, user);
        BOOST_TEST(as(user, "GET", "/jobs/" + job_id).status == 200u, user);
        BOOST_TEST(as(user, "GET", "/jobs", {}, {{"workflow_id", id}}).status == 200u, user);
    }
    auto const refused = as("carol", "GET", "/jobs/" + job_id);
    BOOST_TEST(refused.status == 403u);
    BOOST_TEST(message(refused) == "access: user \"carol\" has no access to workflow " + id +
                                       " (not its owner, not in an access group it is shared "
                                       "with, not an admin)");
    BOOST_TEST(as("carol", "GET", "/jobs", {}, {{"workflow_id", id}}).status == 403u);
    auto const created = as("carol", "POST", "/files",
                            R"({"workflow_id":)" + id + R"(,"name":"f","path":"/f"})");
    BOOST_TEST(created.status == 403u);
    BOOST_TEST(as("alice", "GET", "/files", {}, {{"workflow_id", id}}).body.find("\"items\":[]") !=
               std::string::npos);
    BOOST_TEST(as(std::nullopt, "GET", "/workflows/" + id).status == 403u);
}

// 0.23's WorkflowModel.access_groups: the groups named get access in the creating transaction;
// an unknown group refuses the creation and nothing is created.
BOOST_FIXTURE_TEST_CASE(access_groups_named_at_creation, access_fixture)
{
    auto const made = as("alice", "POST", "/workflows", R"({"name":"s","user":"alice",)"
                                                        R"("access_groups":["team"]})");
    BOOST_TEST_REQUIRE(made.status == 200u);
    auto const id = std::to_string(json::parse(made.body).at("id").as_int64());
    BOOST_TEST(as("bob", "GET", "/workflows/" + id).status == 200u);
    BOOST_TEST(as("carol", "GET", "/workflows/" + id).status == 403u);
    auto const listed = as("alice", "GET", "/workflows/" + id + "/access_groups");
    BOOST_TEST(listed.body.find("\"team\"") != std::string::npos);

    auto const count = [&](char const* table) {
        auto stmt = db.db().prepare(std::string("SELECT COUNT(*) FROM ") + table).value();
        (void)stmt.step().value();
        return stmt.int64(0);
    };
    auto const workflows = count("workflow");
    auto const shares = count("workflow_access_group");
    auto const refused = as("alice", "POST", "/workflows", R"({"name":"t","user":"alice",)"
                                                           R"("access_groups":["team","nobody"]})");
    BOOST_TEST(refused.status == 422u);
    BOOST_TEST(message(refused) == "workflows: field \"access_groups\": group \"nobody\" does "
                                   "not exist (an admin creates it with POST /access_groups)");
    BOOST_TEST(count("workflow") == workflows);
    BOOST_TEST(count("workflow_access_group") == shares);
    BOOST_TEST(count("resource_requirements") == count("workflow"));  // no default row left over
    auto const malformed = as("alice", "POST", "/workflows", R"({"name":"t","user":"alice",)"
                                                             R"("access_groups":"team"})");
    BOOST_TEST(malformed.status == 422u);
}

BOOST_FIXTURE_TEST_CASE(a_missing_row_is_the_handlers_404, access_fixture)
{
    auto const r = as("carol", "GET", "/jobs/999");
    BOOST_TEST(r.status == 404u);
    BOOST_TEST(message(r) == "jobs: no job with id 999");
}

BOOST_FIXTURE_TEST_CASE(listing_shows_what_the_user_may_see, access_fixture)
{
    as("carol", "POST", "/workflows", R"({"name":"c","user":"carol"})");
    auto names = [&](std::string const& user) {
        std::vector<std::string> out;
        auto const listing = json::parse(as(user, "GET", "/workflows").body);
        for (auto const& w : listing.at("items").as_array())
            out.emplace_back(w.at("name").as_string());
        return out;
    };
    BOOST_TEST(names("alice") == std::vector<std::string>{"w"}, boost::test_tools::per_element());
    BOOST_TEST(names("bob") == std::vector<std::string>{"w"}, boost::test_tools::per_element());
    BOOST_TEST(names("carol") == std::vector<std::string>{"c"}, boost::test_tools::per_element());
    BOOST_TEST((names("ops") == std::vector<std::string>{"w", "c"}));
}

BOOST_FIXTURE_TEST_CASE(groups_are_managed_by_admins, access_fixture)
{
    auto const refused = as("alice", "POST", "/access_groups", R"({"name":"mine"})");
    BOOST_TEST(refused.status == 403u);
    BOOST_TEST(message(refused) == "access_groups: user \"alice\" is not an admin (only members "
                                   "of the admin group, auth.admin_users, manage access groups)");
    BOOST_TEST(as("ops", "POST", "/access_groups", R"({"name":"team"})").status == 409u);
    auto const t = std::to_string(team);
    BOOST_TEST(as("bob", "GET", "/access_groups/" + t + "/members").status == 200u);
    BOOST_TEST(as("bob", "POST", "/workflows/" + std::to_string(wf) + "/access_groups/" + t)
                   .status == 403u);
    auto const groups = json::parse(as("carol", "GET", "/users/bob/groups").body);
    BOOST_TEST(groups.at("items").as_array().size() == 1u);
    BOOST_TEST(groups.at("total_count").as_int64() == 1);
}

BOOST_FIXTURE_TEST_CASE(the_admin_group_is_fixed, access_fixture)
{
    auto const list = json::parse(as("ops", "GET", "/access_groups").body).at("items").as_array();
    std::int64_t admin = 0;
    for (auto const& g : list) {
        if (g.at("name").as_string() == "admin") admin = g.at("id").as_int64();
    }
    BOOST_TEST_REQUIRE(admin != 0);
    auto const a = std::to_string(admin);
    BOOST_TEST(as("ops", "DELETE", "/access_groups/" + a).status == 403u);
    auto const add = as("ops", "POST", "/access_groups/" + a + "/members",
                        R"({"user_name":"carol","group_id":)" + a + "}");
    BOOST_TEST(add.status == 403u);
    BOOST_TEST(message(add) == "members: the admin group's members are the server's "
                               "auth.admin_users; they cannot be changed through the API");
    // A restart with other admin_users replaces them.
    BOOST_TEST_REQUIRE(io::sync_admin_group(db, {"root", "ops2"}, server.timestamp()).has_value());
    auto const members = json::parse(as("root", "GET", "/access_groups/" + a + "/members").body);
    BOOST_TEST(members.at("total_count").as_int64() == 2);
    BOOST_TEST(as("ops", "POST", "/access_groups", R"({"name":"x"})").status == 403u);
}

BOOST_FIXTURE_TEST_CASE(access_check_answers_for_any_user, access_fixture)
{
    auto const id = std::to_string(wf);
    auto const bob = json::parse(as("alice", "GET", "/access_check/" + id + "/bob").body);
    BOOST_TEST(bob.at("has_access").as_bool());
    auto const carol = json::parse(as("alice", "GET", "/access_check/" + id + "/carol").body);
    BOOST_TEST(!carol.at("has_access").as_bool());
    BOOST_TEST(as("carol", "GET", "/access_check/" + id + "/carol").status == 403u);
}

BOOST_AUTO_TEST_CASE(nothing_is_enforced_when_off)
{
    torcrun::test::api_fixture f;  // access control off, no user on any request
    auto const wf = f.workflow();
    f.ok("GET", "/workflows/" + std::to_string(wf));
    auto const g = f.ok("POST", "/access_groups", R"({"name":"open"})");
    BOOST_TEST(g.at("name").as_string() == "open");
    auto const w = f.ok("GET", "/workflows/" + std::to_string(wf));
    BOOST_TEST(w.at("user").as_string() == "me");  // the body's user, as Torc stores it
}

BOOST_AUTO_TEST_SUITE_END()
