// worker_wire.hpp, the requests: for every server action the method, the target and the body
// (parsed, compared field by field), the steps of the two-request actions, and the extensions
// left out of a plain v0.10 request.
#include "torcrun/worker/worker_wire.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace api = torcrun::api;
namespace core = torcrun::core;
namespace w = torcrun::core::worker;
namespace json = boost::json;

namespace {

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

api::wire_context context(bool extensions = true)
{
    api::wire_context c;
    c.workflow_id = 3;
    c.compute_node_id = 9;
    c.run_id = 2;
    c.use_extensions = extensions;
    c.hostname = "x1000c0s0b0n0";
    c.pid = 4242;
    c.start_unix = 1768862490.123;  // 2026-01-19T22:41:30.123Z
    c.scheduler_job_id = "123456";
    return c;
}

core::job_result result(std::int64_t job, core::result_status status, bool usage)
{
    core::job_result r;
    r.job_id = job;
    r.workflow_id = 3;
    r.run_id = 2;
    r.attempt_id = 2;
    r.compute_node_id = 9;
    r.return_code = status == core::result_status::completed ? 0 : 137;
    r.exec_time_minutes = 1.5;
    r.completion_time = 1768863301.1234;  // 2026-01-19T22:55:01.123Z
    r.status = status;
    if (usage) r.usage = core::job_usage{123456789, 98765432, 180.5, 95.25};
    return r;
}

constexpr char const* result_failed_json =
    R"({"job_id":42,"workflow_id":3,"run_id":2,"attempt_id":2,"compute_node_id":9,)"
    R"("return_code":137,"exec_time_minutes":1.5,"completion_time":"2026-01-19T22:55:01.123Z",)"
    R"("peak_memory_bytes":123456789,"avg_memory_bytes":98765432,"peak_cpu_percent":180.5,)"
    R"("avg_cpu_percent":95.25,"status":"failed"})";

struct request_case {
    std::string name;
    core::worker_action action;
    bool extensions;
    std::string method;
    std::string target;
    std::string body;  // JSON, compared parsed; empty for none
    double wait_seconds = 0;
};

w::claim_jobs claim(double wait, std::optional<double> time_limit, bool start = false)
{
    w::claim_jobs c;
    c.start = start;
    c.request = core::request_id{5};
    c.limit = 8;
    c.per_node = {8, 16 * gib, 2};
    c.num_nodes = 2;
    c.time_limit_seconds = time_limit;
    c.wait_seconds = wait;
    return c;
}

std::vector<request_case> request_cases()
{
    auto const batch = w::complete_jobs{
        core::request_id{1},
        {result(42, core::result_status::failed, true),
         result(43, core::result_status::completed, false)}};
    return {
        {"register_node", w::register_node{core::request_id{1}, 104, 240 * gib, 4, 1}, true,
         "POST", "/compute_nodes",
         R"({"workflow_id":3,"hostname":"x1000c0s0b0n0","pid":4242,)"
         R"("start_time":"2026-01-19T22:41:30.123Z","is_active":true,"num_cpus":104,)"
         R"("memory_gb":240,"num_gpus":4,"num_nodes":1,"compute_node_type":"slurm",)"
         R"("scheduler":{"type":"slurm","slurm_job_id":123456}})"},
        {"read_workflow", w::read_workflow{}, true, "GET", "/workflows/3", ""},
        {"read_pending_actions",
         w::read_pending_actions{core::request_id{1}, core::action_trigger::on_worker_start}, true,
         "GET", "/workflows/3/actions/pending", ""},
        {"claim_action", w::claim_action{core::request_id{1}, 5}, true, "POST",
         "/workflows/3/actions/5/claim", R"({"compute_node_id":9})"},
        {"claim_jobs long poll", claim(30, 3 * 3600 + 57 * 60 + 30), true, "POST",
         "/workflows/3/claim_jobs_based_on_resources/8?wait_seconds=30&compute_node_id=9&request_key=5",
         R"({"num_cpus":8,"memory_gb":16,"num_gpus":2,"num_nodes":2,"time_limit":"PT3H57M"})",
         30},
        {"claim_jobs fractional wait", claim(0.25, std::nullopt), true, "POST",
         "/workflows/3/claim_jobs_based_on_resources/8?wait_seconds=0.25&compute_node_id=9&"
         "request_key=5",
         R"({"num_cpus":8,"memory_gb":16,"num_gpus":2,"num_nodes":2})", 0.25},
        {"claim_jobs no wait", claim(0, std::nullopt), true, "POST",
         "/workflows/3/claim_jobs_based_on_resources/8?compute_node_id=9&request_key=5",
         R"({"num_cpus":8,"memory_gb":16,"num_gpus":2,"num_nodes":2})"},
        {"claim_jobs that starts", claim(0, std::nullopt, true), true, "POST",
         "/workflows/3/claim_jobs_based_on_resources/8?compute_node_id=9&request_key=5&start=true",
         R"({"num_cpus":8,"memory_gb":16,"num_gpus":2,"num_nodes":2})"},
        {"claim_jobs that starts, plain v0.10: no start", claim(0, std::nullopt, true), false,
         "POST", "/workflows/3/claim_jobs_based_on_resources/8",
         R"({"num_cpus":8,"memory_gb":16,"num_gpus":2,"num_nodes":2})"},
        {"claim_jobs plain v0.10", claim(30, 7200), false, "POST",
         "/workflows/3/claim_jobs_based_on_resources/8",
         R"({"num_cpus":8,"memory_gb":16,"num_gpus":2,"num_nodes":2,"time_limit":"PT2H"})"},
        {"read_requirements", w::read_requirements{core::request_id{1}, 7}, true, "GET",
         "/resource_requirements/7", ""},
        {"start_job", w::start_job{core::request_id{1}, 42, 2}, true, "PUT",
         "/jobs/42/start_job/2/9?attempt_id=2", ""},
        {"start_job plain v0.10", w::start_job{core::request_id{1}, 42, 2}, false, "PUT",
         "/jobs/42/start_job/2/9", ""},
        {"hand_back", w::hand_back{core::request_id{1}, 42, 2}, true, "PUT",
         "/jobs/42/manage_status_change/ready/2?compute_node_id=9&attempt_id=2", ""},
        {"hand_back plain v0.10", w::hand_back{core::request_id{1}, 42, 2}, false, "PUT",
         "/jobs/42/manage_status_change/ready/2", ""},
        {"read_failure_handler", w::read_failure_handler{core::request_id{1}, 6}, true, "GET",
         "/failure_handlers/6", ""},
        {"retry_job", w::retry_job{core::request_id{1}, 42, 3, 2}, true, "POST",
         "/jobs/42/retry/2?max_retries=3&compute_node_id=9&attempt_id=2", ""},
        {"retry_job plain v0.10", w::retry_job{core::request_id{1}, 42, 3, 2}, false, "POST",
         "/jobs/42/retry/2?max_retries=3", ""},
        {"record_result",
         w::record_result{core::request_id{1}, result(42, core::result_status::failed, true)}, true,
         "POST", "/results", result_failed_json},
        {"complete_job",
         w::complete_job{core::request_id{1}, result(42, core::result_status::failed, true)}, true,
         "POST", "/jobs/42/complete_job/failed/2?compute_node_id=9&attempt_id=2",
         result_failed_json},
        {"complete_job plain v0.10",
         w::complete_job{core::request_id{1}, result(42, core::result_status::failed, true)},
         false, "POST", "/jobs/42/complete_job/failed/2", result_failed_json},
        {"complete_jobs", batch, true, "POST", "/workflows/3/batch_complete_jobs",
         std::string(R"({"completions":[{"job_id":42,"status":"failed","run_id":2,)"
                     R"("compute_node_id":9,"attempt_id":2,"result":)") +
             result_failed_json +
             R"(},{"job_id":43,"status":"completed","run_id":2,"compute_node_id":9,)"
             R"("attempt_id":2,"result":{"job_id":43,)"
             R"("workflow_id":3,"run_id":2,"attempt_id":2,"compute_node_id":9,"return_code":0,)"
             R"("exec_time_minutes":1.5,"completion_time":"2026-01-19T22:55:01.123Z",)"
             R"("status":"completed"}}]})"},
        // the exchange's request id is the claim's key; it never waits
        {"complete_and_claim",
         w::complete_and_claim{core::request_id{6},
                               {result(42, core::result_status::failed, true)},
                               claim(30, std::nullopt, true)},
         true, "POST",
         "/workflows/3/complete_and_claim_jobs/8?compute_node_id=9&request_key=6&start=true",
         std::string(R"({"completions":[{"job_id":42,"status":"failed","run_id":2,)"
                     R"("compute_node_id":9,"attempt_id":2,"result":)") +
             result_failed_json +
             R"(}],"claim":{"num_cpus":8,"memory_gb":16,"num_gpus":2,"num_nodes":2}})"},
        {"check_workflow", w::check_workflow{}, true, "GET", "/workflows/3/is_complete", ""},
        {"deactivate_node", w::deactivate_node{core::request_id{1}, 3600.5}, true, "GET",
         "/compute_nodes/9", ""},
        {"release_node", w::release_node{core::request_id{1}, 7, 3}, true, "GET",
         "/compute_nodes/7", ""},
    };
}

void check_request(api::wire_request const& got, std::string const& method,
                   std::string const& target, std::string const& body, double wait)
{
    BOOST_TEST(got.method == method);
    BOOST_TEST(got.target == target);
    BOOST_TEST(got.wait_seconds == wait);
    if (body.empty()) {
        BOOST_TEST(got.body == "");
    } else {
        BOOST_TEST_REQUIRE(!got.body.empty());
        BOOST_TEST(json::parse(got.body) == json::parse(body), got.body);
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_wire)

BOOST_AUTO_TEST_CASE(every_server_action_as_its_first_request)
{
    for (auto const& c : request_cases()) {
        BOOST_TEST_CONTEXT(c.name)
        {
            auto const got = api::next_request(c.action, context(c.extensions), {});
            BOOST_TEST_REQUIRE(got.has_value());
            check_request(*got, c.method, c.target, c.body, c.wait_seconds);
            // One request only, except the two-step actions (tested below).
            if (c.name != "read_workflow" && c.name != "deactivate_node" &&
                c.name != "release_node") {
                api::wire_reply const ok[] = {{200, "{}"}};
                BOOST_TEST(!api::next_request(c.action, context(c.extensions), ok).has_value());
            }
        }
    }
}

// Field order and number forms as Torc's serde models write them.
// A labelled worker names its label in every claim, percent-encoded, after the extensions'
// parameters; an unlabelled one names none (the server then hands it only unlabelled jobs).
BOOST_AUTO_TEST_CASE(a_labelled_worker_claims_with_its_label)
{
    auto c = context();
    c.label = "gpu a100/x";
    auto const got = api::next_request(claim(30, std::nullopt), c, {});
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->target == "/workflows/3/claim_jobs_based_on_resources/8?wait_seconds=30&"
                              "compute_node_id=9&request_key=5&label=gpu%20a100%2Fx");
    c.compute_node_id = 0;  // before registration
    auto const early = api::next_request(claim(0, std::nullopt), c, {});
    BOOST_TEST(early->target ==
               "/workflows/3/claim_jobs_based_on_resources/8?label=gpu%20a100%2Fx");
    auto const plain = api::next_request(claim(0, std::nullopt), context(), {});
    BOOST_TEST(plain->target.find("label") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(result_model_text_is_exact)
{
    auto const got = api::next_request(
        w::complete_job{core::request_id{1}, result(42, core::result_status::failed, true)},
        context(), {});
    BOOST_TEST(got->body == result_failed_json);
}

BOOST_AUTO_TEST_CASE(a_local_worker_registers_without_scheduler)
{
    auto c = context();
    c.scheduler_job_id.clear();
    c.start_unix = 1768862490.0004;  // milliseconds rounded
    auto const got =
        api::next_request(w::register_node{core::request_id{1}, 8, 3 * gib / 2, 0, 1}, c, {});
    check_request(*got, "POST", "/compute_nodes",
                  R"({"workflow_id":3,"hostname":"x1000c0s0b0n0","pid":4242,)"
                  R"("start_time":"2026-01-19T22:41:30.000Z","is_active":true,"num_cpus":8,)"
                  R"("memory_gb":1.5,"num_gpus":0,"num_nodes":1,"compute_node_type":"local"})",
                  0);
}

BOOST_AUTO_TEST_CASE(a_worker_tells_its_output_directory_in_the_scheduler_object)
{
    auto c = context();
    c.output_dir = "/scratch/u/torc_output";
    auto got =
        api::next_request(w::register_node{core::request_id{1}, 8, 3 * gib / 2, 0, 1}, c, {});
    BOOST_TEST(got->body.ends_with(R"("scheduler":{"type":"slurm","slurm_job_id":123456,)"
                                   R"("output_dir":"/scratch/u/torc_output"}})"),
               got->body);
    c.scheduler_job_id.clear();
    got = api::next_request(w::register_node{core::request_id{1}, 8, 3 * gib / 2, 0, 1}, c, {});
    BOOST_TEST(got->body.ends_with(R"("compute_node_type":"local",)"
                                   R"("scheduler":{"output_dir":"/scratch/u/torc_output"}})"),
               got->body);
}

BOOST_AUTO_TEST_CASE(read_workflow_reads_the_status_and_the_actions_after_the_workflow)
{
    core::worker_action const action = w::read_workflow{core::request_id{4}};
    api::wire_reply const workflow[] = {{200, R"({"id":3,"name":"w","user":"u"})"}};
    auto const second = api::next_request(action, context(), workflow);
    BOOST_TEST_REQUIRE(second.has_value());
    check_request(*second, "GET", "/workflows/3/status", "", 0);

    api::wire_reply const both[] = {workflow[0], {200, R"({"id":3,"run_id":2})"}};
    auto const third = api::next_request(action, context(), both);
    BOOST_TEST_REQUIRE(third.has_value());
    check_request(*third, "GET", "/workflows/3/actions", "", 0);
    api::wire_reply const all[] = {workflow[0], both[1], {200, "[]"}};
    BOOST_TEST(!api::next_request(action, context(), all).has_value());
    api::wire_reply const no_status[] = {workflow[0], {404, R"({"message":"no"})"}};
    BOOST_TEST(!api::next_request(action, context(), no_status).has_value());
    api::wire_reply const missing[] = {{404, R"({"message":"no workflow 3"})"}};
    BOOST_TEST(!api::next_request(action, context(), missing).has_value());
    api::wire_reply const broken[] = {{200, "<html>"}};
    BOOST_TEST(!api::next_request(action, context(), broken).has_value());
}

BOOST_AUTO_TEST_CASE(a_refused_claim_reads_the_actions)
{
    core::worker_action const action = w::claim_action{core::request_id{4}, 5};
    api::wire_reply const refused[] = {{409, R"({"message":"already claimed"})"}};
    auto const next = api::next_request(action, context(), refused);
    BOOST_TEST_REQUIRE(next.has_value());
    check_request(*next, "GET", "/workflows/3/actions", "", 0);
    api::wire_reply const both[] = {refused[0], {200, "[]"}};
    BOOST_TEST(!api::next_request(action, context(), both).has_value());
    api::wire_reply const missing[] = {{404, R"({"message":"no action 5"})"}};
    BOOST_TEST(!api::next_request(action, context(), missing).has_value());
}

BOOST_AUTO_TEST_CASE(deactivate_node_puts_the_node_back_inactive)
{
    core::worker_action const action = w::deactivate_node{core::request_id{4}, 3600.5};
    std::string const node =
        R"({"id":9,"workflow_id":3,"hostname":"n1","pid":7,"start_time":"2026-01-19T22:41:30Z",)"
        R"("is_active":true,"num_cpus":8,"memory_gb":16,"num_gpus":0,"num_nodes":1,)"
        R"("compute_node_type":"local","scheduler":{"type":"slurm"}})";
    api::wire_reply const got[] = {{200, node}};
    auto const put = api::next_request(action, context(), got);
    BOOST_TEST_REQUIRE(put.has_value());
    check_request(
        *put, "PUT", "/compute_nodes/9",
        R"({"id":9,"workflow_id":3,"hostname":"n1","pid":7,"start_time":"2026-01-19T22:41:30Z",)"
        R"("is_active":false,"num_cpus":8,"memory_gb":16,"num_gpus":0,"num_nodes":1,)"
        R"("compute_node_type":"local","scheduler":{"type":"slurm"},"duration_seconds":3600.5})",
        0);

    api::wire_reply const both[] = {got[0], {200, node}};
    BOOST_TEST(!api::next_request(action, context(), both).has_value());
    api::wire_reply const array[] = {{200, "[]"}};
    BOOST_TEST(!api::next_request(action, context(), array).has_value());
    api::wire_reply const gone[] = {{404, ""}};
    BOOST_TEST(!api::next_request(action, context(), gone).has_value());
}

// With node monitoring the worker's PUT carries Torc's compute-node usage fields as well.
BOOST_AUTO_TEST_CASE(deactivate_node_puts_the_node_s_usage_when_sampled)
{
    core::worker_action const action = w::deactivate_node{core::request_id{4}, 12.5};
    auto c = context();
    c.node_usage = core::usage_summary{1048576, 524288, 87.5, 40.25, 3};
    api::wire_reply const got[] = {{200, R"({"id":9,"workflow_id":3,"is_active":true})"}};
    auto const put = api::next_request(action, c, got);
    BOOST_TEST_REQUIRE(put.has_value());
    check_request(*put, "PUT", "/compute_nodes/9",
                  R"({"id":9,"workflow_id":3,"is_active":false,"duration_seconds":1.25E1,)"
                  R"("sample_count":3,"peak_cpu_percent":8.75E1,"avg_cpu_percent":4.025E1,)"
                  R"("peak_memory_bytes":1048576,"avg_memory_bytes":524288})",
                  0);
}

// An earlier worker's node: the jobs it holds, then the node put back inactive (its lifetime as
// it was), only for an active node of this workflow.
BOOST_AUTO_TEST_CASE(release_node_reads_the_held_jobs_then_deactivates)
{
    core::worker_action const action = w::release_node{core::request_id{4}, 7, 3};
    auto const node = [](int workflow, bool active) {
        return R"({"id":7,"workflow_id":)" + std::to_string(workflow) +
               R"(,"hostname":"n1","pid":7,"is_active":)" + (active ? "true" : "false") +
               R"(,"num_cpus":8})";
    };
    api::wire_reply const got[] = {{200, node(3, true)}};
    auto const jobs = api::next_request(action, context(), got);
    BOOST_TEST_REQUIRE(jobs.has_value());
    check_request(*jobs, "GET", "/jobs?workflow_id=3&active_compute_node_id=7&limit=10000", "", 0);
    api::wire_reply const held[] = {got[0], {200, R"({"items":[]})"}};
    auto const put = api::next_request(action, context(), held);
    BOOST_TEST_REQUIRE(put.has_value());
    check_request(*put, "PUT", "/compute_nodes/7",
                  R"({"id":7,"workflow_id":3,"hostname":"n1","pid":7,"is_active":false,)"
                  R"("num_cpus":8})",
                  0);
    api::wire_reply const all[] = {got[0], held[1], {200, "{}"}};
    BOOST_TEST(!api::next_request(action, context(), all).has_value());
    for (auto const& other : {node(4, true), node(3, false), std::string("[]")}) {
        api::wire_reply const first[] = {{200, other}};
        BOOST_TEST(!api::next_request(action, context(), first).has_value(), other);
    }
    api::wire_reply const unread[] = {got[0], {500, ""}};
    BOOST_TEST(!api::next_request(action, context(), unread).has_value());
}

// The never-fit check: is_complete, then (unless complete or canceled) the ready jobs, then
// the workflow's requirements; a plain check stops after is_complete.
BOOST_AUTO_TEST_CASE(check_workflow_with_ready_jobs_reads_the_ready_jobs_and_requirements)
{
    core::worker_action const action = w::check_workflow{core::request_id{4}, true};
    auto const first = api::next_request(action, context(), {});
    BOOST_TEST_REQUIRE(first.has_value());
    check_request(*first, "GET", "/workflows/3/is_complete", "", 0);

    api::wire_reply const open[] = {{200, R"({"is_complete":false,"is_canceled":false})"}};
    auto const jobs = api::next_request(action, context(), open);
    BOOST_TEST_REQUIRE(jobs.has_value());
    check_request(*jobs, "GET", "/jobs?workflow_id=3&limit=10000&status=ready", "", 0);
    // Every ready job, whatever the worker's label: the state machine tells them apart.
    auto labelled = context();
    labelled.label = "gpu";
    check_request(*api::next_request(action, labelled, open), "GET",
                  "/jobs?workflow_id=3&limit=10000&status=ready", "", 0);

    api::wire_reply const two[] = {open[0], {200, R"({"items":[],"has_more":false})"}};
    auto const reqs = api::next_request(action, context(), two);
    BOOST_TEST_REQUIRE(reqs.has_value());
    check_request(*reqs, "GET", "/resource_requirements?workflow_id=3&limit=10000", "", 0);

    api::wire_reply const three[] = {open[0], two[1], {200, R"({"items":[]})"}};
    BOOST_TEST(!api::next_request(action, context(), three).has_value());

    // Complete or canceled: nothing more to read.
    api::wire_reply const complete[] = {{200, R"({"is_complete":true,"is_canceled":false})"}};
    BOOST_TEST(!api::next_request(action, context(), complete).has_value());
    api::wire_reply const canceled[] = {{200, R"({"is_complete":false,"is_canceled":true})"}};
    BOOST_TEST(!api::next_request(action, context(), canceled).has_value());
    // A refused or broken step stops the sequence.
    api::wire_reply const missing[] = {{404, R"({"message":"no workflow 3"})"}};
    BOOST_TEST(!api::next_request(action, context(), missing).has_value());
    api::wire_reply const broken[] = {{200, "<html>"}};
    BOOST_TEST(!api::next_request(action, context(), broken).has_value());
    api::wire_reply const jobs_failed[] = {open[0], {500, "oops"}};
    BOOST_TEST(!api::next_request(action, context(), jobs_failed).has_value());

    // Without with_ready_jobs the check is is_complete alone.
    core::worker_action const plain = w::check_workflow{core::request_id{4}, false};
    BOOST_TEST(!api::next_request(plain, context(), open).has_value());
    BOOST_TEST(!api::next_request(plain, context(false), open).has_value());
}

BOOST_AUTO_TEST_CASE(local_work_sends_nothing)
{
    std::vector<core::worker_action> const local = {
        w::spawn{},          w::signal_job{42, 15}, w::check_outputs{42, {11}},
        w::run_commands{},   w::journal_append{},   w::arm_timer{},
        w::log{},            w::exit_worker{0},     w::run_recovery{}};
    for (auto const& a : local) BOOST_TEST(!api::next_request(a, context(), {}).has_value());
}

BOOST_AUTO_TEST_CASE(heartbeat_and_file_requests)
{
    check_request(api::heartbeat_request(context()), "POST", "/compute_nodes/9/heartbeat", "", 0);
    check_request(api::read_file_request(11), "GET", "/files/11", "", 0);
}

BOOST_AUTO_TEST_SUITE_END()
