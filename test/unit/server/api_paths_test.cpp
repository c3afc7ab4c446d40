// The route table: literal and placeholder segments, the winner among several fits, and the
// routing errors (404, 405, 400) verbatim, all as JSON responses.
#include "torcrun/server/router.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(api_paths)

// Each handler answers with its pattern and the parameters it received.
api::router make_router()
{
    api::router r;
    auto echo = [](std::string pattern, std::vector<std::string> names) {
        return [pattern, names](api::request const&, api::path_params const& p) {
            std::string body = pattern;
            for (auto const& n : names) body += " " + n + "=" + std::string(p.text(n));
            return api::outcome{api::json_response(200, body)};
        };
    };
    r.add("GET", "/ping", api::access::open(), echo("/ping", {}));
    r.add("GET", "/workflows", api::access::open(), echo("/workflows", {}));
    r.add("POST", "/workflows", api::access::open(), echo("POST /workflows", {}));
    r.add("GET", "/workflows/{id}", api::access::open(), echo("/workflows/{id}", {"id"}));
    r.add("PUT", "/workflows/{id}", api::access::open(), echo("PUT /workflows/{id}", {"id"}));
    r.add("DELETE", "/workflows/{id}", api::access::open(), echo("DELETE /workflows/{id}", {"id"}));
    r.add("GET", "/workflows/{id}/actions/pending", api::access::open(), echo("pending", {"id"}));
    r.add("GET", "/workflows/{id}/actions/{action_id}", api::access::open(),
          echo("action", {"id", "action_id"}));
    r.add("POST", "/jobs/{id}/complete_job/{status:string}/{run_id}", api::access::open(),
          echo("complete", {"id", "status", "run_id"}));
    return r;
}

struct route_case {
    std::string method;
    std::string path;
    unsigned status;
    std::string body;  // the handler's echo, or the error message
};
std::ostream& operator<<(std::ostream& os, route_case const& c)
{
    return os << c.method << " " << c.path;
}

std::vector<route_case> const cases{
    {"GET", "/ping", 200, "/ping"},
    {"GET", "/workflows", 200, "/workflows"},
    {"POST", "/workflows", 200, "POST /workflows"},
    {"GET", "/workflows/12", 200, "/workflows/{id} id=12"},
    {"PUT", "/workflows/0", 200, "PUT /workflows/{id} id=0"},
    {"DELETE", "/workflows/9223372036854775807", 200,
     "DELETE /workflows/{id} id=9223372036854775807"},
    // A literal segment beats a placeholder in the same position.
    {"GET", "/workflows/3/actions/pending", 200, "pending id=3"},
    {"GET", "/workflows/3/actions/44", 200, "action id=3 action_id=44"},
    {"POST", "/jobs/5/complete_job/completed/2", 200, "complete id=5 status=completed run_id=2"},
    {"GET", "/nothing", 404, R"(path: "/nothing" is not an endpoint)"},
    {"GET", "/workflows/", 404, R"(path: "/workflows/" is not an endpoint)"},
    {"GET", "/workflows/1/2", 404, R"(path: "/workflows/1/2" is not an endpoint)"},
    {"GET", "", 404, R"(path: "" is not an endpoint)"},
    {"GET", "workflows", 404, R"(path: "workflows" is not an endpoint)"},
    {"GET", "/Workflows", 404, R"(path: "/Workflows" is not an endpoint)"},
    {"PATCH", "/workflows/1", 405,
     R"(method: PATCH is not allowed on "/workflows/1" (allowed: DELETE, GET, PUT))"},
    {"DELETE", "/workflows", 405,
     R"(method: DELETE is not allowed on "/workflows" (allowed: GET, POST))"},
    {"POST", "/ping", 405, R"(method: POST is not allowed on "/ping" (allowed: GET))"},
    {"GET", "/workflows/abc", 400,
     R"(path: "abc" is not a valid id (expected a non-negative integer))"},
    {"GET", "/workflows/-1", 400,
     R"(path: "-1" is not a valid id (expected a non-negative integer))"},
    {"GET", "/workflows/1x", 400,
     R"(path: "1x" is not a valid id (expected a non-negative integer))"},
    {"GET", "/workflows/99999999999999999999", 400,
     R"(path: "99999999999999999999" is not a valid id (expected a non-negative integer))"},
    {"GET", "/workflows/3/actions/x", 400,
     R"(path: "x" is not a valid action_id (expected a non-negative integer))"},
    {"POST", "/jobs/5/complete_job/done/x", 400,
     R"(path: "x" is not a valid run_id (expected a non-negative integer))"},
};

BOOST_DATA_TEST_CASE(dispatch, bdata::make(cases), c)
{
    auto const r = make_router();
    api::request req;
    req.method = c.method;
    req.path = c.path;
    auto out = r.dispatch(req);
    auto const& res = std::get<api::response>(out);
    BOOST_TEST(res.status == c.status);
    BOOST_TEST(res.content_type == "application/json");
    if (c.status == 200) {
        BOOST_TEST(res.body == c.body);
    } else {
        BOOST_TEST(res.body == api::error_body(c.body));
    }
}

BOOST_AUTO_TEST_CASE(find_reports_params_and_errors)
{
    auto const r = make_router();
    auto m = r.find("GET", "/workflows/3/actions/44");
    BOOST_TEST_REQUIRE(m.has_value());
    BOOST_TEST(m->params.id("id") == 3);
    BOOST_TEST(m->params.id("action_id") == 44);
    BOOST_TEST(m->params.id("missing") == 0);
    BOOST_TEST(m->params.text("missing").empty());
    auto bad = r.find("GET", "/workflows/x");
    BOOST_TEST_REQUIRE(bad.has_error());
    BOOST_TEST(bad.error().status == 400u);
}

BOOST_AUTO_TEST_CASE(a_later_route_replaces_an_earlier_one)
{
    auto r = make_router();
    auto const before = r.size();
    r.add("GET", "/ping", api::access::open(), [](api::request const&, api::path_params const&) {
        return api::outcome{api::json_response(200, "replaced")};
    });
    BOOST_TEST(r.size() == before);
    api::request req;
    req.method = "GET";
    req.path = "/ping";
    BOOST_TEST(std::get<api::response>(r.dispatch(req)).body == "replaced");
}

BOOST_AUTO_TEST_CASE(a_handler_may_park_a_request)
{
    api::router r;
    r.add("POST", "/workflows/{id}/claim_next_jobs", api::access::open(),
          [](api::request const&, api::path_params const& p) {
              return api::outcome{api::wait_for_workflow{p.id("id"), 5.0}};
          });
    api::request req;
    req.method = "POST";
    req.path = "/workflows/8/claim_next_jobs";
    auto out = r.dispatch(req);
    BOOST_TEST_REQUIRE(std::holds_alternative<api::wait_for_workflow>(out));
    BOOST_TEST(std::get<api::wait_for_workflow>(out).workflow_id == 8);
}

BOOST_AUTO_TEST_SUITE_END()
