// The submission sequencer: the calls of docs/TORC-COMPATIBILITY.md §4.9 in order with their exact
// bodies (names swapped for the ids a fake server hands out), the stages a plan skips, every answer
// it rejects with its message verbatim.
#include "torcrun/spec/submission.hpp"

#include "spec_support.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace api = torcrun::api;
using namespace spec_test;

namespace {

// Two jobs on two levels, one of everything else, two actions.
constexpr char const* full_spec = R"({
  name: "full", user: "alice", description: "d",
  files: [{name: "in", path: "/data/in.txt"}, {name: "out", path: "/data/out.txt"}],
  user_data: [{name: "cfg", data: {k: 1}, is_ephemeral: false}],
  resource_requirements: [{name: "small", num_cpus: 2, memory: "1g", runtime: "PT10M"}],
  slurm_schedulers: [{name: "short", account: "acct", walltime: "00:30:00", partition: "debug"}],
  failure_handlers: [{name: "retry", rules: [{exit_codes: [12], max_retries: 3}]}],
  jobs: [
    {name: "b", command: "use in", input_files: ["in"], output_files: ["out"],
     input_user_data: ["cfg"], depends_on: ["a"], cancel_on_blocking_job_failure: false},
    {name: "a", command: "make in", output_files: ["in"], resource_requirements: "small",
     scheduler: "short", failure_handler: "retry", invocation_script: "source env.sh"},
  ],
  actions: [
    {trigger_type: "on_jobs_ready", action_type: "run_commands", jobs: ["b"],
     commands: ["echo hi"]},
    {trigger_type: "on_workflow_start", action_type: "schedule_nodes", scheduler: "short",
     scheduler_type: "slurm", num_allocations: 2},
  ],
})";

spec::plan_options const alice{"alice", false, false};

spec::creation_plan plan_of(char const* text)
{
    auto p = plan(text, alice);
    BOOST_REQUIRE_MESSAGE(p, message_of(p));
    return std::move(*p);
}

// A fake server: ids count up from 100 for records and from 500 for jobs.
struct fake_server {
    std::int64_t next_id = 100;
    std::int64_t next_job = 500;

    std::string answer(api::client_call const& call)
    {
        if (call.path == "/bulk_jobs") {
            auto const body = boost::json::parse(call.body);
            std::string out = "{\"jobs\":[";
            for (std::size_t i = 0; i < body.at("jobs").as_array().size(); ++i)
                out += (i ? "," : "") + std::string("{\"id\":") + std::to_string(next_job++) + "}";
            return out + "]}";
        }
        return "{\"id\":" + std::to_string(next_id++) + "}";
    }
};

std::vector<api::client_call> run_all(api::submission& sub)
{
    fake_server server;
    std::vector<api::client_call> calls;
    while (auto call = sub.next()) {
        calls.push_back(*call);
        auto ok = sub.accept(server.answer(*call));
        BOOST_REQUIRE_MESSAGE(ok.has_value(), (ok ? std::string() : ok.error().message));
        BOOST_REQUIRE(calls.size() < 100U);
    }
    return calls;
}

struct call_case {
    std::size_t index;
    api::client_call expected;
};
std::ostream& operator<<(std::ostream& os, call_case const& c)
{
    return os << c.index << " " << c.expected.what;
}

std::vector<call_case> const full_calls = {
    {0,
     {"POST", "/workflows",
      R"({"name":"full","user":"alice","description":"d",)"
      R"("compute_node_expiration_buffer_seconds":60,"compute_node_wait_for_new_jobs_seconds":90,)"
      R"("compute_node_ignore_workflow_completion":false,)"
      R"("compute_node_wait_for_healthy_database_minutes":20,)"
      R"("compute_node_min_time_for_new_jobs_seconds":300,"use_pending_failed":false})",
      "workflow \"full\""}},
    {1,
     {"POST", "/files", R"({"workflow_id":100,"name":"in","path":"/data/in.txt"})",
      "files \"in\""}},
    {2,
     {"POST", "/files", R"({"workflow_id":100,"name":"out","path":"/data/out.txt"})",
      "files \"out\""}},
    {3,
     {"POST", "/user_data",
      R"({"workflow_id":100,"name":"cfg","is_ephemeral":false,"data":{"k":1}})",
      "user_data \"cfg\""}},
    {4,
     {"POST", "/resource_requirements",
      R"({"workflow_id":100,"name":"small","num_cpus":2,"num_gpus":0,"num_nodes":1,)"
      R"("memory":"1g","runtime":"PT10M"})",
      "resource_requirements \"small\""}},
    {5,
     {"POST", "/slurm_schedulers",
      R"({"workflow_id":100,"name":"short","account":"acct","nodes":1,"walltime":"00:30:00",)"
      R"("partition":"debug"})",
      "slurm_schedulers \"short\""}},
    {6,
     {"POST", "/failure_handlers",
      R"({"workflow_id":100,"name":"retry","rules":)"
      R"("[{\"exit_codes\":[12],\"max_retries\":3}]"})",
      "failure_handlers \"retry\""}},
    {7,
     {"POST", "/bulk_jobs",
      R"({"jobs":[{"workflow_id":100,"name":"a","command":"make in",)"
      R"("invocation_script":"source env.sh","status":"uninitialized",)"
      R"("cancel_on_blocking_job_failure":true,"supports_termination":false,)"
      R"("output_file_ids":[101],"resource_requirements_id":104,"scheduler_id":105,)"
      R"("failure_handler_id":106,"attempt_id":1}]})",
      "bulk_jobs[0] level 0 (1 jobs)"}},
    {8,
     {"POST", "/bulk_jobs",
      R"({"jobs":[{"workflow_id":100,"name":"b","command":"use in","status":"uninitialized",)"
      R"("cancel_on_blocking_job_failure":false,"supports_termination":false,)"
      R"("depends_on_job_ids":[500],"input_file_ids":[101],"output_file_ids":[102],)"
      R"("input_user_data_ids":[103],"attempt_id":1}]})",
      "bulk_jobs[1] level 1 (1 jobs)"}},
    {9,
     {"POST", "/workflows/100/actions",
      R"({"workflow_id":100,"trigger_type":"on_jobs_ready","action_type":"run_commands",)"
      R"("action_config":{"commands":["echo hi"]},"job_ids":[501],"persistent":false})",
      "actions[0] on_jobs_ready run_commands"}},
    {10,
     {"POST", "/workflows/100/actions",
      R"({"workflow_id":100,"trigger_type":"on_workflow_start","action_type":"schedule_nodes",)"
      R"("action_config":{"scheduler_type":"slurm","scheduler_id":105,"num_allocations":2,)"
      R"("start_one_worker_per_node":false},"persistent":false})",
      "actions[1] on_workflow_start schedule_nodes"}},
    {11, {"POST", "/workflows/100/initialize_jobs", "", "initialize_jobs"}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(api_submission)

BOOST_DATA_TEST_CASE(every_call_of_a_full_spec_in_torcs_order, bdata::make(full_calls), c)
{
    api::submission sub(plan_of(full_spec));
    auto const calls = run_all(sub);
    BOOST_REQUIRE_EQUAL(calls.size(), full_calls.size());
    BOOST_TEST(calls[c.index].method == c.expected.method);
    BOOST_TEST(calls[c.index].path == c.expected.path);
    BOOST_TEST(calls[c.index].body == c.expected.body);
    BOOST_TEST(calls[c.index].what == c.expected.what);
}

BOOST_AUTO_TEST_CASE(ids_and_call_count)
{
    api::submission sub(plan_of(full_spec));
    BOOST_TEST(sub.call_count() == full_calls.size());
    BOOST_TEST(!sub.workflow_id().has_value());
    run_all(sub);
    BOOST_TEST(sub.workflow_id().value_or(0) == 100);
    BOOST_TEST(sub.job_ids().at("a") == 500);
    BOOST_TEST(sub.job_ids().at("b") == 501);
    BOOST_TEST(!sub.next().has_value());
}

struct skip_case {
    std::string label;
    std::string text;
    bool initialize;
    std::vector<std::string> whats;
};
std::ostream& operator<<(std::ostream& os, skip_case const& c)
{
    return os << c.label;
}

std::vector<skip_case> const skip_cases = {
    {"jobs only",
     R"({name: "w", jobs: [{name: "x", command: "true"}, {name: "y", command: "true"}]})",
     true,
     {"workflow \"w\"", "bulk_jobs[0] level 0 (2 jobs)", "initialize_jobs"}},
    {"no initialize",
     R"({name: "w", jobs: [{name: "x", command: "true"}]})",
     false,
     {"workflow \"w\"", "bulk_jobs[0] level 0 (1 jobs)"}},
    {"no jobs", R"({name: "w", jobs: []})", false, {"workflow \"w\""}},
    {"the diamond: one level, files first",
     R"({name: "d", files: [{name: "f1", path: "p1"}, {name: "f2", path: "p2"}],
         jobs: [{name: "p", command: "p ${files.input.f1} ${files.output.f2}"},
                {name: "q", command: "q ${files.input.f2}"}]})",
     true,
     {"workflow \"d\"", "files \"f1\"", "files \"f2\"", "bulk_jobs[0] level 0 (2 jobs)",
      "initialize_jobs"}},
};

BOOST_DATA_TEST_CASE(stages_without_records_are_skipped, bdata::make(skip_cases), c)
{
    api::submission sub(plan_of(c.text.c_str()), c.initialize);
    std::vector<std::string> whats;
    for (auto const& call : run_all(sub)) whats.push_back(call.what);
    BOOST_TEST(whats == c.whats, boost::test_tools::per_element());
    BOOST_TEST(sub.call_count() == c.whats.size());
}

struct answer_case {
    std::string label;
    std::size_t good_answers;  // answered by the fake server first
    std::string answer;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, answer_case const& c)
{
    return os << c.label;
}

std::vector<answer_case> const bad_answers = {
    {"workflow not JSON", 0, "<html>",
     "POST /workflows (workflow \"full\"): the answer is not JSON: syntax error"},
    {"workflow without id", 0, R"({"name":"full"})",
     "POST /workflows (workflow \"full\"): the answer has no integer \"id\""},
    {"id as text", 1, R"({"id":"101"})",
     "POST /files (files \"in\"): the answer has no integer \"id\""},
    {"an array", 4, "[1]",
     "POST /resource_requirements (resource_requirements \"small\"): the answer has no integer "
     "\"id\""},
    {"bulk without jobs", 7, R"({"items":[]})",
     "POST /bulk_jobs (bulk_jobs[0] level 0 (1 jobs)): the answer has no \"jobs\" array"},
    {"bulk with too few jobs", 7, R"({"jobs":[]})",
     "POST /bulk_jobs (bulk_jobs[0] level 0 (1 jobs)): the answer holds 0 jobs for 1 sent"},
    {"bulk job without id", 7, R"({"jobs":[{"name":"a"}]})",
     "POST /bulk_jobs (bulk_jobs[0] level 0 (1 jobs)): the answer has no integer \"id\" in "
     "jobs[0]"},
};

BOOST_DATA_TEST_CASE(answers_without_what_later_calls_need_are_errors, bdata::make(bad_answers), c)
{
    api::submission sub(plan_of(full_spec));
    fake_server server;
    for (std::size_t i = 0; i < c.good_answers; ++i)
        BOOST_REQUIRE(sub.accept(server.answer(*sub.next())).has_value());
    auto const before = sub.next();
    auto const rejected = sub.accept(c.answer);
    BOOST_REQUIRE(!rejected);
    BOOST_TEST(rejected.error().message == c.message);
    BOOST_TEST((sub.next() == before));  // the sequencer stays at the rejected call
    BOOST_TEST(sub.workflow_id().has_value() == (c.good_answers > 0));
}

BOOST_AUTO_TEST_CASE(actions_and_initialize_take_any_answer)
{
    api::submission sub(plan_of(full_spec));
    fake_server server;
    for (int i = 0; i < 9; ++i) BOOST_REQUIRE(sub.accept(server.answer(*sub.next())).has_value());
    BOOST_TEST(sub.next()->what == "actions[0] on_jobs_ready run_commands");
    BOOST_TEST(static_cast<bool>(sub.accept("")));
    BOOST_TEST(static_cast<bool>(sub.accept("not json")));
    BOOST_TEST(sub.next()->what == "initialize_jobs");
    BOOST_TEST(static_cast<bool>(sub.accept("{}")));
    BOOST_TEST(!sub.next().has_value());
}

// The workflow's body by the server it goes to: Torc v0.10 takes the configuration fields as
// JSON strings, Torc 0.23 as objects; a torcrun server gets objects and not Torc's default
// resource monitor (no one shape passes both contracts, and a proxy checking either may be in
// front of it), while a monitor the spec asks for goes.
BOOST_AUTO_TEST_CASE(the_workflow_body_takes_the_servers_shapes)
{
    auto const text = R"({name: "s", jobs: [{name: "a", command: "true"}],
                          slurm_defaults: {account: "acct"}})";
    auto p = plan(text, spec::plan_options{"alice", true, false});
    BOOST_REQUIRE_MESSAGE(p, message_of(p));
    auto first_body = [&](api::server_dialect const& server) {
        api::submission sub(*p, true, server);
        return boost::json::parse(sub.next()->body).as_object();
    };
    auto const v10 = first_body({});
    BOOST_TEST(v10.at("resource_monitor_config").is_string());
    BOOST_TEST(v10.at("slurm_defaults").as_string() == R"({"account":"acct"})");
    api::server_dialect const torc23{api::server_kind::torc, api::torc_contract::v0_23, "0.25.1"};
    auto const v23 = first_body(torc23);
    BOOST_TEST(v23.at("resource_monitor_config").as_object().at("sample_interval_seconds") == 5);
    BOOST_TEST(v23.at("slurm_defaults").as_object().at("account") == "acct");
    api::server_dialect const own{api::server_kind::torcrun, api::torc_contract::v0_23, "0.1.0"};
    auto const torcrun = first_body(own);
    BOOST_TEST(!torcrun.contains("resource_monitor_config"));
    BOOST_TEST(torcrun.at("slurm_defaults").is_object());
    auto asked = plan(R"({name: "s", jobs: [{name: "a", command: "true"}],
                          resource_monitor: {enabled: true, sample_interval_seconds: 2}})",
                      spec::plan_options{"alice", true, false});
    BOOST_REQUIRE_MESSAGE(asked, message_of(asked));
    api::submission sub(*asked, true, own);
    auto const body = boost::json::parse(sub.next()->body).as_object();
    BOOST_TEST(body.at("resource_monitor_config").as_object().at("sample_interval_seconds") == 2);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(streamed_creation)

api::server_dialect const own{api::server_kind::torcrun, api::torc_contract::v0_23, "0.1.0"};

// Runs the calls up to the job batches against the fake server; the reservation is answered
// with `reserved`.
api::submission up_to_batches(std::string const& reserved)
{
    api::submission sub(plan_of(full_spec), true, own);
    fake_server server;
    while (auto call = sub.next()) {
        if (call->path.find("reserve_job_ids") != std::string::npos) {
            BOOST_TEST(call->path == "/workflows/100/reserve_job_ids?count=2");
            BOOST_TEST(call->body.empty());
            BOOST_TEST_REQUIRE(sub.accept(reserved).has_value());
            break;
        }
        BOOST_TEST_REQUIRE(call->path.find("bulk_jobs") == std::string::npos);
        BOOST_TEST_REQUIRE(sub.accept(server.answer(*call)).has_value());
    }
    return sub;
}

// Against a torcrun server every job's id is known once the block is reserved: the batches
// name their blockers by those ids and can all be built before any of them is answered.
BOOST_AUTO_TEST_CASE(batches_are_built_from_the_reserved_ids_before_any_answer)
{
    auto sub = up_to_batches(R"({"first_id":700,"count":2})");
    BOOST_TEST_REQUIRE(sub.streaming_batches());
    BOOST_TEST(sub.batch_index() == 0U);
    BOOST_TEST_REQUIRE(sub.batch_count() == 2U);
    auto const first = sub.job_batch(0);
    auto const second = sub.job_batch(1);
    BOOST_TEST(first.path == "/workflows/100/bulk_jobs?first_id=700");
    BOOST_TEST(second.path == "/workflows/100/bulk_jobs?first_id=701");
    auto const b = boost::json::parse(second.body).at("jobs").at(0);
    BOOST_TEST(b.at("name") == "b");
    BOOST_TEST(boost::json::serialize(b.at("depends_on_job_ids")) == "[700]");
    BOOST_TEST(sub.job_ids().at("a") == 700);
    BOOST_TEST(sub.job_ids().at("b") == 701);
    // next() is the same call as the one built ahead.
    BOOST_TEST((*sub.next() == first));
    BOOST_TEST_REQUIRE(sub.accept(R"({"first_id":700,"count":1,"created":true})").has_value());
    BOOST_TEST(sub.batch_index() == 1U);
    // A batch sent again and answered "created": false is as good as created.
    BOOST_TEST_REQUIRE(sub.accept(R"({"first_id":701,"count":1,"created":false})").has_value());
    BOOST_TEST(!sub.streaming_batches());
    std::vector<std::string> rest;
    while (auto call = sub.next()) {
        rest.push_back(call->path);
        BOOST_TEST_REQUIRE(sub.accept(R"({"id":1})").has_value());
    }
    BOOST_TEST_REQUIRE(rest.size() == 3U);
    BOOST_TEST(rest[0] == "/workflows/100/actions");
    BOOST_TEST(rest[2] == "/workflows/100/initialize_jobs");
}

// A reservation answered 404 (a proxy holding a torcrun server to Torc's contract) is declined:
// the jobs then go to Torc's /bulk_jobs, the second batch naming the id the first answer gave.
BOOST_AUTO_TEST_CASE(a_declined_reservation_sends_torc_batches)
{
    api::submission sub(plan_of(full_spec), true, own);
    fake_server server;
    std::vector<std::string> paths;
    while (auto call = sub.next()) {
        if (sub.reserving_job_ids()) {
            sub.decline_streaming();
            continue;
        }
        BOOST_TEST(!sub.streaming_batches());
        paths.push_back(call->path);
        if (call->path == "/bulk_jobs" && paths.size() > 1 && paths[paths.size() - 2] == "/bulk_jobs") {
            auto const b = boost::json::parse(call->body).at("jobs").at(0);
            BOOST_TEST(boost::json::serialize(b.at("depends_on_job_ids")) == "[500]");
        }
        BOOST_TEST_REQUIRE(sub.accept(server.answer(*call)).has_value());
        BOOST_TEST_REQUIRE(paths.size() < 100U);
    }
    BOOST_TEST(std::count(paths.begin(), paths.end(), "/bulk_jobs") == 2);
    BOOST_TEST(std::none_of(paths.begin(), paths.end(), [](std::string const& p) {
        return p.find("reserve_job_ids") != std::string::npos || p.find("first_id") != std::string::npos;
    }));
    BOOST_TEST(sub.job_ids().at("a") == 500);
    BOOST_TEST(sub.job_ids().at("b") == 501);
}

BOOST_AUTO_TEST_CASE(a_reservation_that_does_not_fit_is_an_error)
{
    api::submission sub(plan_of(full_spec), true, own);
    fake_server server;
    while (sub.next()->path.find("reserve_job_ids") == std::string::npos)
        BOOST_TEST_REQUIRE(sub.accept(server.answer(*sub.next())).has_value());
    auto bad = sub.accept(R"({"first_id":700,"count":1})");
    BOOST_TEST_REQUIRE(bad.has_error());
    BOOST_TEST(bad.error().message ==
               "POST /workflows/100/reserve_job_ids?count=2 (reserve_job_ids (2 jobs)): the "
               "answer reserves 1 job ids for 2 asked");
    auto none = sub.accept(R"({"count":2})");
    BOOST_TEST_REQUIRE(none.has_error());
    BOOST_TEST(none.error().message.ends_with("the answer has no positive integer \"first_id\""));
}

BOOST_AUTO_TEST_CASE(a_batch_answer_for_other_ids_is_an_error)
{
    auto sub = up_to_batches(R"({"first_id":700,"count":2})");
    auto bad = sub.accept(R"({"first_id":701,"count":1})");
    BOOST_TEST_REQUIRE(bad.has_error());
    BOOST_TEST(bad.error().message ==
               "POST /workflows/100/bulk_jobs?first_id=700 (bulk_jobs[0] level 0 (1 jobs)): the "
               "answer does not confirm jobs 700 and the 1 after");
}

BOOST_AUTO_TEST_SUITE_END()
