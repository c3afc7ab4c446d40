// The plain endpoints through server_api: system, workflows, every per-workflow resource's
// create/get/list/update/delete with the contract's shapes, filters, paging, and actions.
#include "api_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>

namespace api = torcrun::api;
namespace bdata = boost::unit_test::data;
using torcrun::test::api_fixture;
using torcrun::test::check_list;
using torcrun::test::check_shape;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(routes)

// Equal JSON, numbers compared by value (240 == 240.0).
bool same(boost::json::value const& a, boost::json::value const& b)
{
    if (a.is_number() && b.is_number()) return a.to_number<double>() == b.to_number<double>();
    if (a.is_object() && b.is_object()) {
        if (a.as_object().size() != b.as_object().size()) return false;
        for (auto const& kv : a.as_object()) {
            auto const* other = b.as_object().if_contains(kv.key());
            if (other == nullptr || !same(kv.value(), *other)) return false;
        }
        return true;
    }
    if (a.is_array() && b.is_array()) {
        if (a.as_array().size() != b.as_array().size()) return false;
        for (std::size_t i = 0; i < a.as_array().size(); ++i) {
            if (!same(a.as_array()[i], b.as_array()[i])) return false;
        }
        return true;
    }
    return a == b;
}

BOOST_FIXTURE_TEST_CASE(ping_and_version, api_fixture)
{
    BOOST_TEST(call("GET", "/ping").body == R"({"status":"ok"})");
    // 0.23's VersionResponse, with the key torcrun's clients recognise a torcrun server by.
    BOOST_TEST(call("GET", "/version").body ==
               R"({"version":")" TORCRUN_TEST_VERSION R"(","api_version":"0.23.0",)"
               R"("server":"torcrun"})");
}

BOOST_FIXTURE_TEST_CASE(workflow_life, api_fixture)
{
    auto w =
        ok("POST", "/workflows",
           R"({"name":"w","user":"me","description":"d","slurm_defaults":"{\"qos\":\"high\"}"})");
    BOOST_TEST(
        boost::json::serialize(w) ==
        R"({"id":1,"name":"w","user":"me","description":"d","timestamp":"2026-01-19T22:41:30.123Z",)"
        R"("compute_node_expiration_buffer_seconds":60,"compute_node_wait_for_new_jobs_seconds":90,)"
        R"("compute_node_ignore_workflow_completion":false,"compute_node_wait_for_healthy_database_minutes":20,)"
        R"("compute_node_min_time_for_new_jobs_seconds":300,"jobs_sort_method":"gpus_runtime_memory",)"
        R"("slurm_defaults":"{\"qos\":\"high\"}","use_pending_failed":false,"status_id":1,)"
        R"("run_id":0,"is_canceled":false,"is_archived":false})");
    check_shape(api::workflow_model, w);
    BOOST_TEST(ok("GET", "/workflows/1") == w);
    workflow("other");

    auto list = ok("GET", "/workflows", "",
                   {{"user", "me"}, {"sort_by", "name"}, {"reverse_sort", "true"}});
    check_list(api::workflow_model, list);
    BOOST_TEST(list.at("total_count").as_int64() == 2);
    BOOST_TEST(list.at("items").at(0).at("name").as_string() == "w");
    BOOST_TEST(ok("GET", "/workflows", "", {{"name", "other"}}).at("total_count").as_int64() == 1);
    BOOST_TEST(
        ok("GET", "/workflows", "", {{"is_archived", "false"}}).at("total_count").as_int64() == 2);
    BOOST_TEST(
        ok("GET", "/workflows", "", {{"is_archived", "true"}}).at("total_count").as_int64() == 0);

    auto put = ok("PUT", "/workflows/1",
                  R"({"name":"w2","user":"me","jobs_sort_method":"none","timestamp":"x"})");
    BOOST_TEST(put.at("name").as_string() == "w2");
    BOOST_TEST(put.at("jobs_sort_method").as_string() == "none");
    BOOST_TEST(put.at("description").as_string() == "d");                       // kept
    BOOST_TEST(put.at("timestamp").as_string() == "2026-01-19T22:41:30.123Z");  // read-only

    notified.clear();
    auto deleted = ok("DELETE", "/workflows/1");
    BOOST_TEST(deleted.at("name").as_string() == "w2");
    BOOST_TEST((notified == std::vector<std::int64_t>{1}));
    BOOST_TEST(fails(404, "GET", "/workflows/1") == "workflows: no workflow with id 1");
    BOOST_TEST(count("resource_requirements") == 1);  // the other workflow's default
}

struct resource_case {
    std::string path;
    api::model_spec const* model;
    std::string create;  // workflow 1 exists; job 1 and compute node 1 exist in it
    std::string update;
    std::string changed_field;
    std::string changed_value;  // serialized JSON
};
std::ostream& operator<<(std::ostream& os, resource_case const& c) { return os << c.path; }

std::vector<resource_case> const resources{
    {"/files", &api::file_model, R"({"workflow_id":1,"name":"f","path":"/a"})",
     R"({"workflow_id":1,"name":"f","path":"/a","st_mtime":1700000000.25})", "st_mtime",
     "1.70000000025E9"},
    {"/user_data", &api::user_data_model, R"({"workflow_id":1,"name":"d","data":{"k":[1,2]}})",
     R"({"workflow_id":1,"name":"d","data":"replaced"})", "data", R"("replaced")"},
    {"/resource_requirements", &api::resource_requirements_model,
     R"({"workflow_id":1,"name":"gpu","num_cpus":4,"num_gpus":1,"memory":"10g","runtime":"PT2H",)"
     R"("num_nodes":2,"tasks_per_node":2})",
     R"({"workflow_id":1,"name":"gpu","memory":"20g","tasks_per_node":8})", "tasks_per_node", "8"},
    {"/slurm_schedulers", &api::slurm_scheduler_model,
     R"({"workflow_id":1,"name":"s","account":"acct","nodes":2,"walltime":"04:00:00"})",
     R"({"workflow_id":1,"account":"acct","nodes":3,"walltime":"04:00:00"})", "nodes", "3"},
    {"/local_schedulers", &api::local_scheduler_model,
     R"({"workflow_id":1,"memory":"8g","num_cpus":4})", R"({"workflow_id":1,"num_cpus":8})",
     "num_cpus", "8"},
    {"/compute_nodes", &api::compute_node_model,
     R"({"workflow_id":1,"hostname":"n2","pid":7,"start_time":"t","num_cpus":104,"memory_gb":240.0,)"
     R"("num_gpus":0,"num_nodes":1,"compute_node_type":"slurm","scheduler":{"scheduler_id":3,"type":"slurm"}})",
     R"({"workflow_id":1,"hostname":"n2","pid":7,"start_time":"t","num_cpus":104,"memory_gb":240.0,)"
     R"("num_gpus":0,"num_nodes":1,"compute_node_type":"slurm","is_active":false,"duration_seconds":12.5})",
     "is_active", "false"},
    {"/scheduled_compute_nodes", &api::scheduled_compute_nodes_model,
     R"({"workflow_id":1,"scheduler_id":123456,"scheduler_config_id":1,"scheduler_type":"slurm","status":"pending"})",
     R"({"workflow_id":1,"scheduler_id":123456,"scheduler_config_id":1,"scheduler_type":"slurm","status":"active"})",
     "status", R"("active")"},
    {"/results", &api::result_model,
     R"({"workflow_id":1,"job_id":1,"run_id":1,"compute_node_id":1,"return_code":0,)"
     R"("exec_time_minutes":0.8123,"completion_time":"2026-01-19T22:55:01.123Z","status":"completed",)"
     R"("peak_memory_bytes":123456789,"peak_cpu_percent":180.5})",
     R"({"workflow_id":1,"job_id":1,"run_id":1,"compute_node_id":1,"return_code":1,)"
     R"("exec_time_minutes":0.8123,"completion_time":"2026-01-19T22:55:01.123Z","status":"failed"})",
     "status", R"("failed")"},
    {"/events", &api::event_model,
     R"({"workflow_id":1,"timestamp":1768862490123,"data":{"category":"job"}})",
     R"({"workflow_id":1,"timestamp":1768862490124,"data":{"category":"job"}})", "timestamp",
     "1768862490124"},
};

struct resource_fixture : api_fixture {
    resource_fixture()
    {
        workflow();
        ok("POST", "/jobs", R"({"workflow_id":1,"name":"j","command":"c"})");
        ok("POST", "/compute_nodes",
           R"({"workflow_id":1,"hostname":"n1","pid":1,"start_time":"t","num_cpus":1,"memory_gb":1,)"
           R"("num_gpus":0,"num_nodes":1,"compute_node_type":"local"})");
    }
};

BOOST_DATA_TEST_CASE_F(resource_fixture, crud, bdata::make(resources), c)
{
    auto const before = ok("GET", c.path, "", {{"workflow_id", "1"}, {"all_runs", "true"}})
                            .at("total_count")
                            .as_int64();
    auto created = ok("POST", c.path, c.create);
    check_shape(*c.model, created);
    auto const id = std::to_string(created.at("id").as_int64());
    auto sent = boost::json::parse(c.create).as_object();
    for (auto const& kv : sent) BOOST_TEST(same(created.at(kv.key()), kv.value()), kv.key());
    BOOST_TEST(ok("GET", c.path + "/" + id) == created);

    auto list = ok("GET", c.path, "", {{"workflow_id", "1"}, {"all_runs", "true"}});
    check_list(*c.model, list);
    BOOST_TEST(list.at("total_count").as_int64() == before + 1);
    BOOST_TEST(ok("GET", c.path, "", {{"workflow_id", "2"}}).at("total_count").as_int64() == 0);

    auto updated = ok("PUT", c.path + "/" + id, c.update);
    check_shape(*c.model, updated);
    BOOST_TEST(boost::json::serialize(updated.at(c.changed_field)) ==
               boost::json::serialize(boost::json::parse(c.changed_value)));

    BOOST_TEST(ok("DELETE", c.path + "/" + id) == updated);
    BOOST_TEST(call("GET", c.path + "/" + id).status == 404u);
    if (c.path == "/resource_requirements") {
        // job 1 uses the `default` requirements: deleting them all is refused, not cascaded
        BOOST_TEST(fails(409, "DELETE", c.path, "", {{"workflow_id", "1"}}) ==
                   "resource_requirements: other records still refer to it (sqlite: FOREIGN KEY "
                   "constraint failed [DELETE FROM resource_requirements WHERE workflow_id = ?])");
        ok("DELETE", "/jobs/1");
    }
    auto removed = ok("DELETE", c.path, "", {{"workflow_id", "1"}});
    BOOST_TEST(removed.at("count").as_int64() == before);
    BOOST_TEST(ok("GET", c.path, "", {{"workflow_id", "1"}, {"all_runs", "true"}})
                   .at("total_count")
                   .as_int64() == 0);
}

BOOST_FIXTURE_TEST_CASE(failure_handlers, api_fixture)
{
    workflow();
    auto h =
        ok("POST", "/failure_handlers",
           R"({"workflow_id":1,"name":"h","rules":"[{\"exit_codes\":[12],\"max_retries\":3}]"})");
    check_shape(api::failure_handler_model, h);
    BOOST_TEST(ok("GET", "/failure_handlers/1") == h);
    auto list = ok("GET", "/workflows/1/failure_handlers", "", {{"limit", "5"}});
    check_list(api::failure_handler_model, list);
    BOOST_TEST(list.at("items").at(0) == h);
    BOOST_TEST(fails(405, "PUT", "/failure_handlers/1", "{}") ==
               R"(method: PUT is not allowed on "/failure_handlers/1" (allowed: DELETE, GET))");
    BOOST_TEST(fails(405, "GET", "/failure_handlers") ==
               R"(method: GET is not allowed on "/failure_handlers" (allowed: POST))");
    BOOST_TEST(fails(404, "GET", "/workflows/9/failure_handlers") ==
               "failure_handlers: no workflow with id 9");
    BOOST_TEST(ok("DELETE", "/failure_handlers/1") == h);
}

BOOST_FIXTURE_TEST_CASE(paging_and_sorting, api_fixture)
{
    workflow();
    for (int i = 0; i < 25; ++i) {
        ok("POST", "/files",
           R"({"workflow_id":1,"name":"f)" + std::to_string(100 + i) + R"(","path":"/p"})");
    }
    auto page = ok("GET", "/files", "", {{"workflow_id", "1"}, {"offset", "10"}, {"limit", "10"}});
    check_list(api::file_model, page);
    BOOST_TEST(page.at("offset").as_int64() == 10);
    BOOST_TEST(page.at("count").as_int64() == 10);
    BOOST_TEST(page.at("total_count").as_int64() == 25);
    BOOST_TEST(page.at("has_more").as_bool());
    BOOST_TEST(page.at("items").at(0).at("id").as_int64() == 11);
    auto last = ok("GET", "/files", "", {{"workflow_id", "1"}, {"offset", "20"}, {"limit", "10"}});
    BOOST_TEST(last.at("count").as_int64() == 5);
    BOOST_TEST(!last.at("has_more").as_bool());
    auto past = ok("GET", "/files", "", {{"workflow_id", "1"}, {"offset", "30"}});
    BOOST_TEST(past.at("count").as_int64() == 0);
    auto sorted =
        ok("GET", "/files", "",
           {{"workflow_id", "1"}, {"sort_by", "name"}, {"reverse_sort", "true"}, {"limit", "2"}});
    BOOST_TEST(sorted.at("items").at(0).at("name").as_string() == "f124");
    BOOST_TEST(sorted.at("items").at(1).at("name").as_string() == "f123");
    auto big = ok("GET", "/files", "", {{"workflow_id", "1"}, {"limit", "100000"}});
    BOOST_TEST(big.at("count").as_int64() == 25);
}

struct filter_case {
    std::string path;
    query q;
    std::int64_t expected;
};
std::ostream& operator<<(std::ostream& os, filter_case const& c)
{
    os << c.path;
    for (auto const& [k, v] : c.q) os << " " << k << "=" << v;
    return os;
}

// Workflow 1 holds: files 1 (/a, output of job 1) and 2 (/b, input of job 2); user data 1
// (produced by job 1) and 2 (ephemeral, consumed by job 2); requirements default and big
// (job 2); compute nodes 1 (active, scheduler_id 7) and 2 (inactive); scheduled node 1;
// slurm scheduler 1; local scheduler 1; results 1 (job 1, current) and 2 (job 2, failed, all
// runs only); events at 10 (category job) and 20 (category node).
std::vector<filter_case> const filters{
    {"/files", {{"produced_by_job_id", "1"}}, 1},
    {"/files", {{"produced_by_job_id", "2"}}, 0},
    {"/files", {{"is_output", "true"}}, 1},
    {"/files", {{"is_output", "false"}}, 1},
    {"/files", {{"name", "b"}}, 1},
    {"/files", {{"path", "/a"}}, 1},
    {"/user_data", {{"producer_job_id", "1"}}, 1},
    {"/user_data", {{"consumer_job_id", "2"}}, 1},
    {"/user_data", {{"consumer_job_id", "1"}}, 0},
    {"/user_data", {{"is_ephemeral", "true"}}, 1},
    {"/user_data", {{"name", "d1"}}, 1},
    {"/resource_requirements", {{"job_id", "2"}}, 1},
    {"/resource_requirements", {{"name", "default"}}, 1},
    {"/resource_requirements", {{"memory", "2g"}}, 1},
    {"/resource_requirements", {{"num_cpus", "1"}}, 2},
    {"/resource_requirements", {{"num_gpus", "1"}}, 1},
    {"/resource_requirements", {{"num_nodes", "1"}}, 1},
    {"/resource_requirements", {{"runtime", "7200"}}, 1},
    {"/compute_nodes", {{"is_active", "true"}}, 1},
    {"/compute_nodes", {{"hostname", "n2"}}, 1},
    {"/compute_nodes", {{"scheduled_compute_node_id", "7"}}, 1},
    {"/scheduled_compute_nodes", {{"scheduler_id", "555"}}, 1},
    {"/scheduled_compute_nodes", {{"scheduler_config_id", "1"}}, 1},
    {"/scheduled_compute_nodes", {{"status", "active"}}, 0},
    {"/slurm_schedulers",
     {{"name", "s"}, {"account", "a"}, {"nodes", "2"}, {"walltime", "01:00:00"}},
     1},
    {"/slurm_schedulers", {{"partition", "debug"}}, 0},
    {"/local_schedulers", {{"memory", "8g"}, {"num_cpus", "4"}}, 1},
    {"/results", {}, 1},
    {"/results", {{"all_runs", "true"}}, 2},
    {"/results", {{"all_runs", "true"}, {"status", "failed"}}, 1},
    {"/results", {{"all_runs", "true"}, {"job_id", "2"}, {"return_code", "3"}, {"run_id", "1"}}, 1},
    {"/results", {{"all_runs", "true"}, {"compute_node_id", "2"}}, 0},
    {"/events", {{"category", "job"}}, 1},
    {"/events", {{"after_timestamp", "10"}}, 1},
    {"/events", {{"after_timestamp", "5"}}, 2},
};

struct filter_fixture : api_fixture {
    filter_fixture()
    {
        workflow();
        ok("POST", "/files", R"({"workflow_id":1,"name":"a","path":"/a"})");
        ok("POST", "/files", R"({"workflow_id":1,"name":"b","path":"/b"})");
        ok("POST", "/user_data", R"({"workflow_id":1,"name":"d1"})");
        ok("POST", "/user_data", R"({"workflow_id":1,"name":"d2","is_ephemeral":true})");
        ok("POST", "/resource_requirements",
           R"({"workflow_id":1,"name":"big","num_gpus":1,"num_nodes":2,"memory":"2g","runtime":"PT2H"})");
        ok("POST", "/jobs",
           R"({"workflow_id":1,"name":"j1","command":"c","output_file_ids":[1],"output_user_data_ids":[1]})");
        ok("POST", "/jobs",
           R"({"workflow_id":1,"name":"j2","command":"c","input_file_ids":[2],"resource_requirements_id":2})");
        ok("POST", "/user_data", R"({"workflow_id":1,"name":"d3"})");
        ok("DELETE", "/user_data/3");
        ok("POST", "/jobs", R"({"workflow_id":1,"name":"j3","command":"c"})");
        ok("DELETE", "/jobs/3");
        ok("PUT", "/user_data/2", R"({"workflow_id":1,"name":"d2"})");
        auto const node =
            R"("pid":1,"start_time":"t","num_cpus":1,"memory_gb":1,"num_gpus":0,"num_nodes":1,"compute_node_type":"slurm")";
        ok("POST", "/compute_nodes",
           std::string(R"({"workflow_id":1,"hostname":"n1","scheduler":{"scheduler_id":7},)") +
               node + "}");
        ok("POST", "/compute_nodes",
           std::string(R"({"workflow_id":1,"hostname":"n2","is_active":false,)") + node + "}");
        ok("POST", "/scheduled_compute_nodes",
           R"({"workflow_id":1,"scheduler_id":555,"scheduler_config_id":1,"scheduler_type":"slurm","status":"pending"})");
        ok("POST", "/slurm_schedulers",
           R"({"workflow_id":1,"name":"s","account":"a","nodes":2,"walltime":"01:00:00"})");
        ok("POST", "/local_schedulers", R"({"workflow_id":1,"memory":"8g","num_cpus":4})");
        auto const result =
            R"(,"run_id":1,"compute_node_id":1,"exec_time_minutes":1,"completion_time":"t")";
        ok("POST", "/results",
           std::string(R"({"workflow_id":1,"job_id":1,"return_code":0,"status":"completed")") +
               result + "}");
        ok("POST", "/results",
           std::string(R"({"workflow_id":1,"job_id":2,"return_code":3,"status":"failed")") +
               result + "}");
        // complete_job (the job-lifecycle layer) records the current result; stand in for it.
        BOOST_TEST_REQUIRE(
            db.db().exec("INSERT INTO workflow_result VALUES (1, 1, 1)").has_value());
        ok("POST", "/events", R"({"workflow_id":1,"timestamp":10,"data":{"category":"job"}})");
        ok("POST", "/events", R"({"workflow_id":1,"timestamp":20,"data":{"category":"node"}})");
        // consumer link made by POST /user_data?consumer_job_id=
        ok("POST", "/user_data", R"({"workflow_id":1,"name":"d4","is_ephemeral":true})",
           {{"consumer_job_id", "2"}});
        ok("DELETE", "/user_data/2");
    }
};

BOOST_DATA_TEST_CASE_F(filter_fixture, list_filters, bdata::make(filters), c)
{
    auto q = c.q;
    q.emplace_back("workflow_id", "1");
    auto list = ok("GET", c.path, "", q);
    BOOST_TEST(list.at("total_count").as_int64() == c.expected);
    BOOST_TEST(list.at("count").as_int64() == c.expected);
}

BOOST_FIXTURE_TEST_CASE(user_data_links_from_query_parameters, api_fixture)
{
    workflow();
    workflow("other");
    ok("POST", "/jobs", R"({"workflow_id":1,"name":"j","command":"c"})");
    ok("POST", "/jobs", R"({"workflow_id":2,"name":"k","command":"c"})");
    ok("POST", "/user_data", R"({"workflow_id":1,"name":"d"})",
       {{"producer_job_id", "1"}, {"consumer_job_id", "1"}});
    auto job = ok("GET", "/jobs/1");
    BOOST_TEST(boost::json::serialize(job.at("input_user_data_ids")) == "[1]");
    BOOST_TEST(boost::json::serialize(job.at("output_user_data_ids")) == "[1]");
    BOOST_TEST(fails(404, "POST", "/user_data", R"({"workflow_id":1,"name":"e"})",
                     {{"consumer_job_id", "9"}}) ==
               R"(user_data: query parameter "consumer_job_id": no job with id 9)");
    BOOST_TEST(
        fails(422, "POST", "/user_data", R"({"workflow_id":1,"name":"e"})",
              {{"producer_job_id", "2"}}) ==
        R"(user_data: query parameter "producer_job_id": job 2 belongs to workflow 2, not 1)");
    BOOST_TEST(count("user_data") == 1);  // the rejected ones left nothing behind
}

BOOST_FIXTURE_TEST_CASE(actions, api_fixture)
{
    workflow();
    ok("POST", "/jobs", R"({"workflow_id":1,"name":"j","command":"c"})");
    auto a =
        ok("POST", "/workflows/1/actions",
           R"({"workflow_id":1,"trigger_type":"on_jobs_complete","action_type":"run_commands",)"
           R"("action_config":{"commands":["echo done"]},"job_ids":[1],"persistent":true})");
    check_shape(api::workflow_action_model, a);
    BOOST_TEST(
        boost::json::serialize(a) ==
        R"({"id":1,"workflow_id":1,"trigger_type":"on_jobs_complete","action_type":"run_commands",)"
        R"("action_config":{"commands":["echo done"]},"job_ids":[1],"trigger_count":0,)"
        R"("required_triggers":1,"executed":false,"persistent":true})");
    ok("POST", "/workflows/1/actions",
       R"({"workflow_id":1,"trigger_type":"on_worker_start","action_type":"schedule_nodes","action_config":{}})");
    auto list = ok("GET", "/workflows/1/actions");
    BOOST_TEST_REQUIRE(list.as_array().size() == 2u);
    BOOST_TEST(list.as_array()[0] == a);
    check_shape(api::workflow_action_model, list.as_array()[1]);
    BOOST_TEST(
        fails(
            422, "POST", "/workflows/1/actions",
            R"({"workflow_id":2,"trigger_type":"t","action_type":"run_commands","action_config":{"commands":["x"]}})") ==
        R"(actions: field "workflow_id": 2 differs from the workflow in the path, 1)");
    BOOST_TEST(
        fails(
            404, "POST", "/workflows/1/actions",
            R"({"workflow_id":1,"trigger_type":"t","action_type":"run_commands","action_config":{"commands":["x"]},"job_ids":[5]})") ==
        R"(actions: field "job_ids": no job with id 5)");
    BOOST_TEST(fails(404, "GET", "/workflows/7/actions") == "actions: no workflow with id 7");
    BOOST_TEST(fails(404, "POST", "/workflows/7/actions", "{}") ==
               "actions: no workflow with id 7");
}

// A result sent again after its reply was lost (same job, run, attempt and node) is answered with
// the record the first one stored; another attempt or node is a record of its own.
BOOST_FIXTURE_TEST_CASE(a_repeated_result_is_stored_once, api_fixture)
{
    workflow();
    ok("POST", "/jobs", R"({"workflow_id":1,"name":"j1","command":"c"})");
    auto const node =
        R"({"workflow_id":1,"hostname":"n1","pid":1,"start_time":"t","num_cpus":1,"memory_gb":1,)"
        R"("num_gpus":0,"num_nodes":1,"compute_node_type":"local"})";
    ok("POST", "/compute_nodes", node);
    ok("POST", "/compute_nodes", node);
    auto const result = [](int attempt, int node_id, int rc) {
        return R"({"workflow_id":1,"job_id":1,"run_id":0,"attempt_id":)" + std::to_string(attempt) +
               R"(,"compute_node_id":)" + std::to_string(node_id) + R"(,"return_code":)" +
               std::to_string(rc) +
               R"(,"exec_time_minutes":1,"completion_time":"t","status":"completed"})";
    };
    auto const first = ok("POST", "/results", result(1, 1, 0));
    auto const again = ok("POST", "/results", result(1, 1, 0));
    BOOST_TEST(boost::json::serialize(again) == boost::json::serialize(first));
    BOOST_TEST(count("result") == 1);
    auto const changed = ok("POST", "/results", result(1, 1, 7));  // the first one stands
    BOOST_TEST(changed.at("id").as_int64() == first.at("id").as_int64());
    BOOST_TEST(changed.at("return_code").as_int64() == 0);
    BOOST_TEST(ok("POST", "/results", result(2, 1, 0)).at("id").as_int64() == 2);
    BOOST_TEST(ok("POST", "/results", result(1, 2, 0)).at("id").as_int64() == 3);
    BOOST_TEST(count("result") == 3);
}

BOOST_AUTO_TEST_SUITE_END()
