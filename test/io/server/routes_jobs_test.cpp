// Jobs through server_api: create and bulk create (links, defaults, order), list with filters,
// relationships and paging, get, update, delete; the workflow's job ids and relationship
// listings.
#include "api_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

#include <chrono>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::api_fixture;
using torcrun::test::check_list;
using torcrun::test::check_shape;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(routes_jobs)

// Workflow 1 with files 1-2, user data 1, a failure handler and requirements "big" (id 2).
struct jobs_fixture : api_fixture {
    jobs_fixture()
    {
        workflow();
        ok("POST", "/files", R"({"workflow_id":1,"name":"in","path":"/in"})");
        ok("POST", "/files", R"({"workflow_id":1,"name":"out","path":"/out"})");
        ok("POST", "/user_data", R"({"workflow_id":1,"name":"d"})");
        ok("POST", "/failure_handlers", R"({"workflow_id":1,"name":"h","rules":"[]"})");
        ok("POST", "/resource_requirements", R"({"workflow_id":1,"name":"big","num_cpus":8})");
    }
    std::string ids(boost::json::value const& job, char const* field)
    {
        return boost::json::serialize(job.at(field));
    }
};

BOOST_FIXTURE_TEST_CASE(create_and_get, jobs_fixture)
{
    // The body Torc's client sends (docs/TORC-COMPATIBILITY.md §4.9), scheduler_id null included.
    auto job = ok(
        "POST", "/jobs",
        R"({"workflow_id":1,"name":"work_7","command":"bash run.sh 7","invocation_script":"module load x",)"
        R"("status":"uninitialized","cancel_on_blocking_job_failure":false,"supports_termination":true,)"
        R"("input_file_ids":[1],"output_file_ids":[2],"input_user_data_ids":[1],"scheduler_id":null,)"
        R"("failure_handler_id":1,"attempt_id":1,"priority":0})");
    check_shape(api::job_model, job);
    BOOST_TEST(
        boost::json::serialize(job) ==
        R"({"id":1,"workflow_id":1,"name":"work_7","command":"bash run.sh 7",)"
        R"("invocation_script":"module load x","status":"uninitialized",)"
        R"("cancel_on_blocking_job_failure":false,"supports_termination":true,)"
        R"("depends_on_job_ids":[],"input_file_ids":[1],"output_file_ids":[2],)"
        R"("input_user_data_ids":[1],"output_user_data_ids":[],"resource_requirements_id":1,)"
        R"("failure_handler_id":1,"attempt_id":1,"priority":0})");
    BOOST_TEST(ok("GET", "/jobs/1") == job);
    auto second = ok(
        "POST", "/jobs",
        R"({"workflow_id":1,"name":"b","command":"c","depends_on_job_ids":[1],"resource_requirements_id":2})");
    BOOST_TEST(second.at("resource_requirements_id").as_int64() == 2);
    BOOST_TEST(ids(second, "depends_on_job_ids") == "[1]");
    BOOST_TEST(second.at("cancel_on_blocking_job_failure").as_bool());
}

BOOST_FIXTURE_TEST_CASE(bulk_create, jobs_fixture)
{
    auto out = ok("POST", "/bulk_jobs",
                  R"({"jobs":[{"workflow_id":1,"name":"a","command":"c","output_file_ids":[1]},)"
                  R"({"workflow_id":1,"name":"b","command":"c","input_file_ids":[1]},)"
                  R"({"workflow_id":1,"name":"a","command":"again"}]})");
    auto const& jobs = out.at("jobs").as_array();
    BOOST_TEST_REQUIRE(jobs.size() == 3u);
    BOOST_TEST(out.as_object().size() == 1u);
    for (auto const& j : jobs) check_shape(api::job_model, j);
    BOOST_TEST(jobs[0].at("id").as_int64() == 1);
    BOOST_TEST(jobs[2].at("name").as_string() == "a");  // names need not be unique
    BOOST_TEST(jobs[2].at("command").as_string() == "again");
    auto next =
        ok("POST", "/bulk_jobs",
           R"({"jobs":[{"workflow_id":1,"name":"c","command":"c","depends_on_job_ids":[1,2]}]})");
    BOOST_TEST(ids(next.at("jobs").at(0), "depends_on_job_ids") == "[1,2]");
    // The reply's links are what GET reads back: in the order sent, later duplicates dropped.
    auto dup = ok("POST", "/bulk_jobs",
                  R"({"jobs":[{"workflow_id":1,"name":"d","command":"c",)"
                  R"("depends_on_job_ids":[2,1,2],"input_file_ids":[2,1,2,1],)"
                  R"("output_user_data_ids":[1,1]}]})");
    auto const& created = dup.at("jobs").at(0);
    BOOST_TEST(ids(created, "depends_on_job_ids") == "[2,1]");
    BOOST_TEST(ids(created, "input_file_ids") == "[2,1]");
    BOOST_TEST(ids(created, "output_user_data_ids") == "[1]");
    BOOST_TEST(ids(created, "output_file_ids") == "[]");
    BOOST_TEST(ok("GET", "/jobs/5") == created);
    BOOST_TEST(call("POST", "/bulk_jobs", R"({"jobs":[]})").body == R"({"jobs":[]})");
    BOOST_TEST(fails(404, "POST", "/bulk_jobs",
                     R"({"jobs":[{"workflow_id":9,"name":"a","command":"c"}]})") ==
               R"(bulk_jobs: jobs[0]: field "workflow_id": no workflow with id 9)");
    BOOST_TEST(count("job") == 5);
}

struct list_case {
    query q;
    std::string names;  // comma separated, in answer order
};
std::ostream& operator<<(std::ostream& os, list_case const& c)
{
    for (auto const& [k, v] : c.q) os << k << "=" << v << " ";
    return os;
}

// a (outputs file 1) <- b (needs file 1) <- c; d disabled; e in workflow 2.
std::vector<list_case> const lists{
    {{}, "a,b,c,d"},
    {{{"status", "uninitialized"}}, "a,b,c"},
    {{{"status", "disabled"}}, "d"},
    {{{"status", "ready"}}, ""},
    {{{"needs_file_id", "1"}}, "b"},
    {{{"upstream_job_id", "1"}}, "b"},
    {{{"upstream_job_id", "2"}}, "c"},
    {{{"active_compute_node_id", "1"}}, ""},
    {{{"sort_by", "name"}, {"reverse_sort", "true"}}, "d,c,b,a"},
    {{{"offset", "1"}, {"limit", "2"}}, "b,c"},
    {{{"status", "uninitialized"}, {"upstream_job_id", "1"}}, "b"},
};

struct list_fixture : jobs_fixture {
    list_fixture()
    {
        ok("POST", "/bulk_jobs",
           R"({"jobs":[{"workflow_id":1,"name":"a","command":"c","output_file_ids":[1]},)"
           R"({"workflow_id":1,"name":"b","command":"c","input_file_ids":[1],"depends_on_job_ids":[1]}]})");
        ok("POST", "/jobs",
           R"({"workflow_id":1,"name":"c","command":"c","depends_on_job_ids":[2]})");
        ok("POST", "/jobs", R"({"workflow_id":1,"name":"d","command":"c"})");
        ok("PUT", "/jobs/4", R"({"workflow_id":1,"name":"d","command":"c","status":"disabled"})");
        workflow("other");
        ok("POST", "/jobs", R"({"workflow_id":2,"name":"e","command":"c"})");
    }
};

BOOST_DATA_TEST_CASE_F(list_fixture, list_filters, bdata::make(lists), c)
{
    auto q = c.q;
    q.emplace_back("workflow_id", "1");
    auto list = ok("GET", "/jobs", "", q);
    check_list(api::job_model, list);
    std::string names;
    for (auto const& job : list.at("items").as_array()) {
        names += (names.empty() ? "" : ",") + std::string(job.at("name").as_string());
        BOOST_TEST(!job.as_object().contains("depends_on_job_ids"));  // only with relationships
    }
    BOOST_TEST(names == c.names);
}

BOOST_FIXTURE_TEST_CASE(relationships_on_request, list_fixture)
{
    auto list = ok("GET", "/jobs", "", {{"workflow_id", "1"}, {"include_relationships", "true"}});
    auto const& items = list.at("items").as_array();
    BOOST_TEST(ids(items[1], "depends_on_job_ids") == "[1]");
    BOOST_TEST(ids(items[1], "input_file_ids") == "[1]");
    BOOST_TEST(ids(items[0], "output_file_ids") == "[1]");

    auto deps = ok("GET", "/workflows/1/job_dependencies");
    check_list(api::job_dependency_model, deps);
    BOOST_TEST(deps.at("total_count").as_int64() == 2);
    auto files = ok("GET", "/workflows/1/job_file_relationships", "", {{"limit", "1"}});
    check_list(api::job_file_relationship_model, files);
    BOOST_TEST(files.at("total_count").as_int64() == 2);  // file 1 (a -> b), file 2 alone
    BOOST_TEST(files.at("has_more").as_bool());
    auto data = ok("GET", "/workflows/1/job_user_data_relationships");
    check_list(api::job_user_data_relationship_model, data);
    BOOST_TEST(boost::json::serialize(data.at("items")) ==
               R"([{"user_data_id":1,"user_data_name":"d","workflow_id":1}])");
    BOOST_TEST(fails(404, "GET", "/workflows/9/job_dependencies") ==
               "job_dependencies: no workflow with id 9");

    BOOST_TEST(call("GET", "/workflows/1/job_ids").body == R"({"job_ids":[1,2,3,4],"count":4})");
    BOOST_TEST(call("GET", "/workflows/9/job_ids").body == R"({"job_ids":[],"count":0})");
}

BOOST_FIXTURE_TEST_CASE(update_and_delete, list_fixture)
{
    auto put = ok("PUT", "/jobs/3",
                  R"({"workflow_id":1,"name":"c2","command":"c","depends_on_job_ids":[1]})");
    check_shape(api::job_model, put);
    BOOST_TEST(put.at("name").as_string() == "c2");
    BOOST_TEST(ids(put, "depends_on_job_ids") == "[1]");
    BOOST_TEST(
        fails(422, "PUT", "/jobs/1",
              R"({"workflow_id":1,"name":"a","command":"c","depends_on_job_ids":[3]})") ==
        R"(jobs: field "depends_on_job_ids": job 3 depends on job 1, so job 1 cannot depend on it (a cycle))");

    auto deleted = ok("DELETE", "/jobs/2");
    BOOST_TEST(deleted.at("name").as_string() == "b");
    BOOST_TEST(ids(deleted, "input_file_ids") == "[1]");  // as it was
    BOOST_TEST(count("job_depends_on") == 1);             // 2 -> 1 went with it
    BOOST_TEST(ok("DELETE", "/jobs", "", {{"workflow_id", "1"}}).at("count").as_int64() == 3);
    BOOST_TEST(count("job") == 1);
}

// The largest batch Torc's client sends per request (docs/TORC-COMPATIBILITY.md §4.9: chunks of
// 1000; the server takes up to 10000), each job with links, in one transaction.
BOOST_FIXTURE_TEST_CASE(ten_thousand_jobs_in_one_request, jobs_fixture)
{
    std::string body = R"({"jobs":[)";
    for (int i = 0; i < 10000; ++i) {
        body += (i == 0 ? "" : ",");
        body += R"({"workflow_id":1,"name":"job_)" + std::to_string(i) +
                R"(","command":"run","input_file_ids":[1],"output_user_data_ids":[1]})";
    }
    body += "]}";
    auto const start = std::chrono::steady_clock::now();
    auto res = call("POST", "/bulk_jobs", body);
    auto const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
    BOOST_TEST_REQUIRE(res.status == 200u);
    BOOST_TEST_MESSAGE("10000 jobs in " << seconds.count() << " s");
    BOOST_TEST(count("job") == 10000);
    BOOST_TEST(count("job_input_file") == 10000);
    auto const cached = db.db().cached_count();
    ok("POST", "/jobs", R"({"workflow_id":1,"name":"x","command":"c","scheduler_id":3})");
    ok("POST", "/jobs", R"({"workflow_id":1,"name":"y","command":"c","invocation_script":"s"})");
    BOOST_TEST(db.db().cached_count() == cached);  // new body shapes, no new statements
}

// Streamed creation (torcrun extension): a block of job ids reserved, batches written at those
// ids with their blockers named by them; a batch sent twice is written once; ids outside the
// workflow's blocks, another workflow's jobs and a conflicting batch are refused.
BOOST_FIXTURE_TEST_CASE(jobs_at_reserved_ids, jobs_fixture)
{
    ok("POST", "/jobs", R"({"workflow_id":1,"name":"before","command":"c"})");  // id 1
    auto const block = ok("POST", "/workflows/1/reserve_job_ids", "", {{"count", "4"}});
    BOOST_TEST(boost::json::serialize(block) == R"({"first_id":2,"count":4})");
    // An ordinary insert after the reservation skips the block.
    auto const after = ok("POST", "/jobs", R"({"workflow_id":1,"name":"after","command":"c"})");
    BOOST_TEST(after.at("id").as_int64() == 6);
    std::string const first_batch =
        R"({"jobs":[{"workflow_id":1,"name":"a","command":"c","output_file_ids":[1]},)"
        R"({"workflow_id":1,"name":"b","command":"c","depends_on_job_ids":[1]}]})";
    auto const created = ok("POST", "/workflows/1/bulk_jobs", first_batch, {{"first_id", "2"}});
    BOOST_TEST(boost::json::serialize(created) == R"({"first_id":2,"count":2,"created":true})");
    // The same batch again (its reply was lost): answered, not written twice.
    auto const again = ok("POST", "/workflows/1/bulk_jobs", first_batch, {{"first_id", "2"}});
    BOOST_TEST(boost::json::serialize(again) == R"({"first_id":2,"count":2,"created":false})");
    ok("POST", "/workflows/1/bulk_jobs",
       R"({"jobs":[{"workflow_id":1,"name":"c","command":"c","depends_on_job_ids":[3,2,3],)"
       R"("resource_requirements_id":2}]})",
       {{"first_id", "4"}});
    BOOST_TEST(count("job") == 5);
    auto const c = ok("GET", "/jobs/4");
    BOOST_TEST(ids(c, "depends_on_job_ids") == "[3,2]");
    BOOST_TEST(c.at("resource_requirements_id").as_int64() == 2);
    BOOST_TEST(c.at("status").as_string() == "uninitialized");
    BOOST_TEST(ok("GET", "/jobs/2").at("resource_requirements_id").as_int64() == 1);  // default
    BOOST_TEST(ids(ok("GET", "/jobs/3"), "depends_on_job_ids") == "[1]");

    // Refusals, each writing nothing.
    std::string const one = R"({"jobs":[{"workflow_id":1,"name":"x","command":"c"}]})";
    BOOST_TEST(fails(422, "POST", "/workflows/1/bulk_jobs", one, {{"first_id", "6"}}) ==
               "bulk_jobs: job ids 6 to 6 are not in one block reserved for workflow 1 "
               "(POST reserve_job_ids first)");
    BOOST_TEST(fails(409, "POST", "/workflows/1/bulk_jobs", one, {{"first_id", "3"}}) ==
               R"(bulk_jobs: job 3 already exists as "b", not "x")");
    BOOST_TEST(fails(422, "POST", "/workflows/1/reserve_job_ids", "", {{"count", "0"}}) ==
               "reserve_job_ids: count 0 is not between 1 and 10000000");
    BOOST_TEST(fails(404, "POST", "/workflows/9/reserve_job_ids", "", {{"count", "1"}}) ==
               "reserve_job_ids: no workflow with id 9");
    auto const other = workflow("other");
    auto const theirs = ok("POST", "/workflows/" + std::to_string(other) + "/reserve_job_ids", "",
                           {{"count", "2"}});
    auto const their_first = std::to_string(theirs.at("first_id").as_int64());
    BOOST_TEST(their_first == "7");
    // A block of workflow 1's used from the other workflow's path, and the other way round.
    BOOST_TEST(fails(422, "POST", "/workflows/" + std::to_string(other) + "/bulk_jobs", one,
                     {{"first_id", "2"}})
                   .starts_with("bulk_jobs: job ids 2 to 2 are not in one block reserved"));
    BOOST_TEST(fails(422, "POST", "/workflows/" + std::to_string(other) + "/bulk_jobs",
                     R"({"jobs":[{"workflow_id":)" + std::to_string(other) +
                         R"(,"name":"y","command":"c","depends_on_job_ids":[2]}]})",
                     {{"first_id", their_first}}) ==
               R"(bulk_jobs: jobs[0]: field "depends_on_job_ids": job 2 belongs to workflow 1, )"
               "not " + std::to_string(other));
    BOOST_TEST(fails(422, "POST", "/workflows/1/bulk_jobs",
                     R"({"jobs":[{"workflow_id":)" + std::to_string(other) +
                         R"(,"name":"z","command":"c"}]})",
                     {{"first_id", "5"}}) ==
               R"(bulk_jobs: jobs[0]: field "workflow_id": )" + std::to_string(other) +
                   " is not the path's workflow 1");
    BOOST_TEST(count("job") == 5);
    // A workflow deleted takes its blocks with it.
    ok("DELETE", "/workflows/" + std::to_string(other));
    BOOST_TEST(count("job_id_block") == 1);
}

BOOST_AUTO_TEST_SUITE_END()
