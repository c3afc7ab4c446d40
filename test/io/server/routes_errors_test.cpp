// Bad requests through server_api: each answer's status and message verbatim, and a rejected
// request never changes the database (the request transaction rolls back), including a handler
// that writes before failing or throws.
#include "api_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

#include <stdexcept>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::api_fixture;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(routes_errors)

struct error_case {
    std::string method;
    std::string path;
    std::string body;
    query q;
    unsigned status;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << c.method << " " << c.path;
}

// Workflow 1 exists with its default requirements (id 1) and job 1.
std::vector<error_case> const errors{
    {"GET", "/nothing", "", {}, 404, R"(path: "/nothing" is not an endpoint)"},
    {"PATCH",
     "/jobs/1",
     "",
     {},
     405,
     R"(method: PATCH is not allowed on "/jobs/1" (allowed: DELETE, GET, PUT))"},
    {"GET",
     "/jobs/x",
     "",
     {},
     400,
     R"(path: "x" is not a valid id (expected a non-negative integer))"},
    {"POST",
     "/files",
     "{",
     {},
     400,
     "files: request body is not valid JSON: incomplete JSON at byte 1"},
    {"POST", "/files", "", {}, 400, "files: request body is empty"},
    {"POST",
     "/files",
     R"({"workflow_id":1,"name":"f","path":5})",
     {},
     422,
     R"(files: field "path": expected a string, found an integer)"},
    {"POST",
     "/files",
     R"({"workflow_id":2,"name":"f","path":"/p"})",
     {},
     404,
     R"(files: field "workflow_id": no workflow with id 2)"},
    {"GET",
     "/files",
     "",
     {},
     400,
     R"(files: query parameter "workflow_id": required parameter is missing)"},
    {"GET",
     "/files",
     "",
     {{"workflow_id", "one"}},
     400,
     R"(files: query parameter "workflow_id": "one" is not an integer)"},
    {"GET",
     "/files",
     "",
     {{"workflow_id", "1"}, {"sort_by", "size"}},
     400,
     R"(files: query parameter "sort_by": "size" is not a sortable field of file_model)"},
    {"GET", "/files/9", "", {}, 404, "files: no file with id 9"},
    {"PUT",
     "/files/9",
     R"({"workflow_id":1,"name":"f","path":"/p"})",
     {},
     404,
     "files: no file with id 9"},
    {"DELETE", "/files/9", "", {}, 404, "files: no file with id 9"},
    {"GET", "/user_data/9", "", {}, 404, "user_data: no user_data with id 9"},
    {"GET",
     "/resource_requirements/9",
     "",
     {},
     404,
     "resource_requirements: no resource_requirements with id 9"},
    {"GET", "/slurm_schedulers/9", "", {}, 404, "slurm_schedulers: no slurm_scheduler with id 9"},
    {"GET", "/local_schedulers/9", "", {}, 404, "local_schedulers: no local_scheduler with id 9"},
    {"GET", "/compute_nodes/9", "", {}, 404, "compute_nodes: no compute_node with id 9"},
    {"GET",
     "/scheduled_compute_nodes/9",
     "",
     {},
     404,
     "scheduled_compute_nodes: no scheduled_compute_node with id 9"},
    {"GET", "/results/9", "", {}, 404, "results: no result with id 9"},
    {"GET", "/events/9", "", {}, 404, "events: no event with id 9"},
    {"GET", "/failure_handlers/9", "", {}, 404, "failure_handlers: no failure_handler with id 9"},
    {"GET", "/jobs/9", "", {}, 404, "jobs: no job with id 9"},
    {"DELETE", "/jobs/9", "", {}, 404, "jobs: no job with id 9"},
    {"GET", "/workflows/9", "", {}, 404, "workflows: no workflow with id 9"},
    {"DELETE", "/workflows/9", "", {}, 404, "workflows: no workflow with id 9"},
    {"POST",
     "/workflows",
     R"({"name":"w"})",
     {},
     422,
     R"(workflows: field "user": required field is missing)"},
    {"PUT",
     "/workflows/1",
     R"({"name":"w","user":"u","jobs_sort_method":"random"})",
     {},
     422,
     R"(workflows: field "jobs_sort_method": "random" is not one of gpus_runtime_memory, gpus_memory_runtime, none)"},
    {"GET",
     "/workflows",
     "",
     {{"is_archived", "maybe"}},
     400,
     R"(workflows: query parameter "is_archived": "maybe" is not true or false)"},
    {"POST",
     "/resource_requirements",
     R"({"workflow_id":1,"name":"default"})",
     {},
     422,
     R"(resource_requirements: field "name": "default" already exists in workflow 1)"},
    {"POST",
     "/resource_requirements",
     R"({"workflow_id":1,"name":"r","memory":"lots"})",
     {},
     422,
     R"(resource_requirements: field "memory": memory: "lots" is not an integer followed by an optional k, m, g or t)"},
    {"DELETE",
     "/resource_requirements/1",
     "",
     {},
     409,
     "resource_requirements: other records still refer to it (sqlite: FOREIGN KEY constraint failed "
     "[DELETE FROM resource_requirements WHERE id = ?])"},
    {"POST",
     "/jobs",
     R"({"workflow_id":1,"name":"j","command":"c","depends_on_job_ids":[7]})",
     {},
     404,
     R"(jobs: field "depends_on_job_ids": no job with id 7)"},
    {"GET",
     "/jobs",
     "",
     {{"workflow_id", "1"}, {"status", "done"}},
     400,
     R"(jobs: query parameter "status": "done" is not a job status)"},
    {"GET",
     "/jobs",
     "",
     {{"workflow_id", "1"}, {"include_relationships", "yes"}},
     400,
     R"(jobs: query parameter "include_relationships": "yes" is not true or false)"},
    {"POST",
     "/bulk_jobs",
     R"({"jobs":[{"workflow_id":1,"name":"a","command":"c"},{"workflow_id":1,"name":"b","command":"c","input_file_ids":[3]}]})",
     {},
     404,
     R"(bulk_jobs: jobs[1]: field "input_file_ids": no file with id 3)"},
    {"PUT",
     "/jobs/1",
     R"({"workflow_id":1,"name":"j","command":"c","output_file_ids":[1]})",
     {},
     422,
     R"(jobs: field "output_file_ids": cannot change after the job is created)"},
    {"GET",
     "/results",
     "",
     {{"workflow_id", "1"}, {"all_runs", "all"}},
     400,
     R"(results: query parameter "all_runs": "all" is not true or false)"},
};

struct error_fixture : api_fixture {
    error_fixture()
    {
        workflow();
        ok("POST", "/jobs", R"({"workflow_id":1,"name":"j","command":"c"})");
    }
    std::string snapshot()
    {
        std::string out;
        for (auto table : {"workflow", "workflow_status", "job", "job_depends_on", "file",
                           "resource_requirements"}) {
            auto stmt = db.db().prepare(std::string("SELECT * FROM ") + table).value();
            while (stmt.step().value()) {
                for (int i = 0; i < stmt.column_count(); ++i) out += stmt.text(i) + "|";
                out += "\n";
            }
        }
        return out;
    }
};

BOOST_DATA_TEST_CASE_F(error_fixture, rejected_requests_change_nothing, bdata::make(errors), c)
{
    auto const before = snapshot();
    BOOST_TEST(fails(c.status, c.method, c.path, c.body, c.q) == c.message);
    BOOST_TEST(snapshot() == before);
}

BOOST_FIXTURE_TEST_CASE(a_failing_handler_is_rolled_back, error_fixture)
{
    auto const before = snapshot();
    server.add_route(
        "POST", "/test/write_then_fail", api::access::open(),
        [this](api::request const&, api::path_params const&) {
            (void)db.db().exec("INSERT INTO file (workflow_id, name, path) VALUES (1, 'x', 'y')");
            server.notify(1);
            return api::error_response(api::unprocessable("test: refused after writing"));
        });
    server.add_route("POST", "/test/throw", api::access::open(),
                     [this](api::request const&, api::path_params const&) -> api::outcome {
                         (void)db.db().exec(
                             "INSERT INTO file (workflow_id, name, path) VALUES (1, 'x', 'y')");
                         throw std::runtime_error("boom");
                     });
    notified.clear();
    BOOST_TEST(fails(422, "POST", "/test/write_then_fail") == "test: refused after writing");
    BOOST_TEST(fails(500, "POST", "/test/throw") == "internal: boom");
    BOOST_TEST(snapshot() == before);
    BOOST_TEST(notified.empty());  // nothing committed, nobody woken
}

BOOST_FIXTURE_TEST_CASE(notifications_follow_commits, error_fixture)
{
    server.add_route("POST", "/workflows/{id}/poke", api::access::workflow_in_path(),
                     [this](api::request const&, api::path_params const& p) {
                         server.notify(p.id("id"));
                         return api::json_response(200, "{}");
                     });
    notified.clear();
    ok("POST", "/workflows/1/poke");
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
}

BOOST_FIXTURE_TEST_CASE(a_parked_request_passes_through, error_fixture)
{
    server.add_route("POST", "/workflows/{id}/claim_next_jobs", api::access::workflow_in_path(),
                     [](api::request const&, api::path_params const& p) {
                         return api::outcome{api::wait_for_workflow{p.id("id"), 30}};
                     });
    api::request req;
    req.method = "POST";
    req.path = "/workflows/1/claim_next_jobs";
    auto out = server.handle(req);
    BOOST_TEST_REQUIRE(std::holds_alternative<api::wait_for_workflow>(out));
    BOOST_TEST(std::get<api::wait_for_workflow>(out).seconds == 30.0);
}

// The store's transactions must not outlive a request: a second server on the same database
// file sees the first one's commit at once.
BOOST_AUTO_TEST_CASE(each_request_commits)
{
    auto const path = std::string("/tmp/torcrun-routes-") + std::to_string(::getpid()) + ".db";
    {
        auto db1 = torcrun::io::store::open(path).value();
        auto db2 = torcrun::io::store::open(path).value();
        torcrun::io::server_api one(db1), two(db2);
        api::request create;
        create.method = "POST";
        create.path = "/workflows";
        create.body = R"({"name":"w","user":"u"})";
        BOOST_TEST(std::get<api::response>(one.handle(create)).status == 200u);
        api::request get;
        get.method = "GET";
        get.path = "/workflows/1";
        BOOST_TEST(std::get<api::response>(two.handle(get)).status == 200u);
    }
    std::remove(path.c_str());
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
}

BOOST_AUTO_TEST_SUITE_END()
