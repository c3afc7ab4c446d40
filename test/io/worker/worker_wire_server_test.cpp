// worker_wire.hpp against torcrun's real server: http_server + server_api on an in-memory store,
// spoken to over loopback HTTP by http_client. Every request of the worker's life cycle comes
// from next_request and every answer goes through decode_replies into the event the state
// machine expects: register, read workflow, actions, claims with and without the extensions,
// requirements, start, complete, batch complete, failure handler + retry + result record, hand
// back, is_complete, heartbeat, output files, deactivate. The requests sent are compared, in
// order, with the exact list a worker must send.
#include "loopback.hpp"
#include "run_coro.hpp"
#include "torcrun/worker/worker_wire.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/server/io/http_server.hpp"
#include "torcrun/server/io/server_api.hpp"
#include "torcrun/server/io/store.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace api = torcrun::api;
namespace core = torcrun::core;
namespace io = torcrun::io;
namespace test = torcrun::test;
namespace w = torcrun::core::worker;
namespace net = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t gib = std::uint64_t{1} << 30;
constexpr core::request_id rid{1};

template <class T>
T const& as(core::worker_event const& e)
{
    BOOST_TEST_REQUIRE(std::holds_alternative<T>(e), "event index " << e.index());
    return std::get<T>(e);
}

struct wire_server {
    io::store db = io::store::open(":memory:").value();
    io::server_api handler{db};
    net::io_context ioc{1};
    io::http_server server{ioc, settings(), handler, io::logger{}};
    std::uint16_t port = server.start().value();
    io::http_client client{ioc, test::client_for(port, "/torc-service/v1", 10s)};
    api::wire_context context;
    std::vector<std::string> sent;  // "METHOD target" of every wire request

    static io::server_settings settings()
    {
        io::server_settings s;
        s.host = "127.0.0.1";
        s.port = 0;
        return s;
    }

    wire_server()
    {
        context.workflow_id = 1;
        context.hostname = "n1";
        context.pid = 4242;
        context.start_unix = 1768862490.5;
        context.scheduler_job_id = "77";
    }
    ~wire_server()
    {
        server.stop();
        test::run_to_completion(ioc, 5s);
    }

    api::wire_reply send(std::string method, std::string target, std::string body,
                         std::chrono::milliseconds timeout)
    {
        auto r = test::run_coro(ioc, client.request(method, target, std::move(body), timeout), 30s);
        if (r) return {r->status, r->body};
        BOOST_TEST_REQUIRE(r.error().status != 0u, "transport failure: " << r.error().message);
        return {r.error().status, r.error().body};
    }

    // Setup calls that are not the worker's: must answer 200.
    json::value setup(std::string method, std::string target, std::string body = {})
    {
        auto const r = send(method, target, std::move(body), 10s);
        BOOST_TEST_REQUIRE(r.status == 200u, method << " " << target << ": " << r.body);
        return json::parse(r.body);
    }

    // One server action, carried out as the shell does: request after request until the
    // exchange is complete or an answer is not 2xx, then decoded.
    core::worker_event exchange(core::worker_action const& action)
    {
        std::vector<api::wire_reply> replies;
        while (auto req = api::next_request(action, context, replies)) {
            sent.push_back(req->method + " " + req->target);
            auto const timeout = 10s + std::chrono::milliseconds(
                                           static_cast<std::int64_t>(req->wait_seconds * 1000));
            replies.push_back(send(req->method, req->target, req->body, timeout));
        }
        return api::decode_replies(action, replies);
    }

    void done(core::worker_action const& action)
    {
        auto const e = exchange(action);
        if (auto const* f = std::get_if<w::request_failed>(&e))
            BOOST_TEST_REQUIRE(false, "request_failed: " << f->message);
        BOOST_TEST((as<w::request_done>(e).request == rid));
    }

    std::string job_status(std::int64_t id)
    {
        return std::string(setup("GET", "/jobs/" + std::to_string(id)).at("status").as_string());
    }

    core::job_result result(std::int64_t job, core::result_status status, int rc,
                            std::uint32_t attempt = 1) const
    {
        core::job_result r;
        r.job_id = job;
        r.workflow_id = context.workflow_id;
        r.run_id = context.run_id;
        r.attempt_id = attempt;
        r.compute_node_id = context.compute_node_id;
        r.return_code = rc;
        r.exec_time_minutes = 0.25;
        r.completion_time = 1768863301.123;
        r.status = status;
        r.usage = core::job_usage{64 * 1024 * 1024, 32 * 1024 * 1024, 150.5, 99};
        return r;
    }

    // Workflow 1: requirements "small" (id 2), failure handler 1, file 1, jobs a..f (1..6): d
    // has the handler, f writes file 1; one on_worker_start action.
    void create_workflow()
    {
        setup("POST", "/workflows", R"({"name":"wire","user":"u"})");
        setup("POST", "/resource_requirements",
              R"({"workflow_id":1,"name":"small","num_cpus":2,"num_gpus":0,"num_nodes":1,)"
              R"("memory":"3g","runtime":"PT30M"})");
        setup("POST", "/failure_handlers",
              R"({"workflow_id":1,"name":"retry","rules":)"
              R"("[{\"exit_codes\":[3],\"recovery_script\":\"bash fix.sh\",\"max_retries\":3}]"})");
        setup("POST", "/files", R"({"workflow_id":1,"name":"out","path":"out/f.txt"})");
        for (std::string const name : {"a", "b", "c", "d", "e", "f"}) {
            std::string extra = name == "d"   ? R"(,"failure_handler_id":1)"
                                : name == "f" ? R"(,"output_file_ids":[1])"
                                              : "";
            setup("POST", "/jobs",
                  R"({"workflow_id":1,"name":")" + name + R"(","command":"run )" + name +
                      R"(","resource_requirements_id":2)" + extra + "}");
        }
        setup("POST", "/workflows/1/actions",
              R"({"workflow_id":1,"trigger_type":"on_worker_start","action_type":"run_commands",)"
              R"("action_config":{"commands":["echo hi"]}})");
        setup("POST", "/workflows/1/initialize_jobs");
    }

    std::string exchange_file(std::int64_t file_id)
    {
        auto const req = api::read_file_request(file_id);
        sent.push_back(req.method + " " + req.target);
        auto const reply = send(req.method, req.target, req.body, 10s);
        BOOST_TEST_REQUIRE(reply.status == 200u);
        return api::file_path_of(reply.body).value();
    }

    std::vector<std::int64_t> claim_ids(core::worker_action const& action)
    {
        std::vector<std::int64_t> ids;
        auto const e = exchange(action);
        for (auto const& j : as<w::jobs_claimed>(e).jobs) ids.push_back(j.id);
        return ids;
    }
};

w::claim_jobs claim(std::uint32_t limit, double wait)
{
    w::claim_jobs c;
    c.request = rid;
    c.limit = limit;
    c.per_node = {16, 32 * gib, 0};
    c.num_nodes = 1;
    c.time_limit_seconds = 3600;
    c.wait_seconds = wait;
    return c;
}

using ids = std::vector<std::int64_t>;

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_wire_server)

BOOST_FIXTURE_TEST_CASE(a_whole_worker_life_cycle, wire_server)
{
    create_workflow();
    // -- start-up
    auto const node = exchange(w::register_node{rid, 16, 32 * gib, 0, 1});
    context.compute_node_id = as<w::node_registered>(node).compute_node_id;
    BOOST_TEST(context.compute_node_id == 1);
    auto const registered = setup("GET", "/compute_nodes/1");
    BOOST_TEST(registered.at("is_active").as_bool());
    BOOST_TEST(registered.at("compute_node_type").as_string() == "slurm");
    BOOST_TEST(registered.at("start_time").as_string() == "2026-01-19T22:41:30.500Z");
    auto const read = exchange(w::read_workflow{rid});
    context.run_id = as<w::workflow_read>(read).run_id;
    BOOST_TEST(context.run_id == setup("GET", "/workflows/1/status").at("run_id").as_int64());
    BOOST_TEST(!as<w::workflow_read>(read).use_pending_failed);
    auto const actions =
        exchange(w::read_pending_actions{rid, core::action_trigger::on_worker_start});
    BOOST_TEST((as<w::pending_actions_read>(actions).actions ==
                std::vector<core::workflow_action>{
                    {1, "run_commands", {"echo hi"}, "on_worker_start", false, std::nullopt}}));
    BOOST_TEST(as<w::action_claim_read>(exchange(w::claim_action{rid, 1})).claimed);
    // re-sent (say its answer was lost): 409, and the action names this node as its holder
    auto const again = as<w::action_claim_read>(exchange(w::claim_action{rid, 1}));
    BOOST_TEST(!again.claimed);
    BOOST_TEST((again.held_by == std::optional<std::int64_t>{1}));

    // -- a plain v0.10 claim of everything, the requirements, a start and a completion
    context.use_extensions = false;
    auto const claimed = exchange(claim(10, 30));
    context.use_extensions = true;
    auto const& jobs = as<w::jobs_claimed>(claimed).jobs;
    BOOST_TEST_REQUIRE(jobs.size() == 6u);
    BOOST_TEST((jobs[0] == core::claimed_job{1, "a", "run a", std::nullopt, 2, std::nullopt, 1, {}, {}}));
    BOOST_TEST((jobs[3] == core::claimed_job{4, "d", "run d", std::nullopt, 2, 1, 1, {}, {}}));
    BOOST_TEST((jobs[5] == core::claimed_job{6, "f", "run f", std::nullopt, 2, std::nullopt, 1, {1}, {}}));
    auto const needs = exchange(w::read_requirements{rid, 2});
    BOOST_TEST((as<w::requirements_read>(needs).resources ==
                core::job_resources{2, "small", {2, 0, 1, 3 * gib}, 1800.0, std::nullopt}));
    done(w::start_job{rid, 1});
    BOOST_TEST(job_status(1) == "running");
    done(w::complete_job{rid, result(1, core::result_status::completed, 0)});
    BOOST_TEST(job_status(1) == "completed");
    auto const stored = setup("GET", "/results?workflow_id=1&job_id=1").at("items").at(0);
    BOOST_TEST(stored.at("completion_time").as_string() == "2026-01-19T22:55:01.123Z");
    BOOST_TEST(stored.at("peak_memory_bytes").as_int64() == 64 * 1024 * 1024);
    BOOST_TEST(stored.at("avg_cpu_percent").to_number<double>() == 99.0);

    // -- batch completion: b accepted, c refused (a run that is not the workflow's)
    done(w::start_job{rid, 2});
    done(w::start_job{rid, 3});
    auto stale = result(3, core::result_status::failed, 1);
    stale.run_id = context.run_id + 5;
    auto const batch = exchange(
        w::complete_jobs{rid, {result(2, core::result_status::completed, 0), stale}});
    BOOST_TEST((as<w::jobs_reported>(batch).completed == ids{2}));
    BOOST_TEST_REQUIRE(as<w::jobs_reported>(batch).rejected.size() == 1u);
    BOOST_TEST(as<w::jobs_reported>(batch).rejected[0].job_id == 3);
    BOOST_TEST(as<w::jobs_reported>(batch).rejected[0].message ==
               "complete_job: run_id " + std::to_string(context.run_id + 5) +
                   " is not the workflow's current run_id " + std::to_string(context.run_id));
    done(w::complete_job{rid, result(3, core::result_status::failed, 1)});

    // -- d fails: its handler's rule retries it, and the failed attempt keeps its record
    done(w::start_job{rid, 4});
    auto const rules = exchange(w::read_failure_handler{rid, 1});
    BOOST_TEST((as<w::failure_handler_read>(rules).handler ==
                core::failure_handler{1, {{{3}, false, "bash fix.sh", 3}}}));
    done(w::retry_job{rid, 4, 3});
    done(w::record_result{rid, result(4, core::result_status::failed, 3)});
    BOOST_TEST(job_status(4) == "ready");
    BOOST_TEST(setup("GET", "/jobs/4").at("attempt_id").as_int64() == 2);
    auto const records = setup("GET", "/results?workflow_id=1&job_id=4&all_runs=true");
    BOOST_TEST_REQUIRE(records.at("total_count").as_int64() == 1);
    BOOST_TEST(records.at("items").at(0).at("attempt_id").as_int64() == 1);
    BOOST_TEST(records.at("items").at(0).at("return_code").as_int64() == 3);
    BOOST_TEST(records.at("items").at(0).at("status").as_string() == "failed");

    // -- e goes back unstarted; f checks its output file
    done(w::hand_back{rid, 5});
    BOOST_TEST(job_status(5) == "ready");
    done(w::start_job{rid, 6});
    auto const file = exchange_file(1);
    BOOST_TEST(file == "out/f.txt");
    done(w::complete_job{rid, result(6, core::result_status::completed, 0)});

    // -- a long-poll claim with the extensions that also starts takes d and e back running: no
    // start_job follows (one would be a repeat)
    auto starting = claim(10, 1);
    starting.start = true;
    auto const restarted = as<w::jobs_claimed>(exchange(starting)).jobs;
    BOOST_TEST_REQUIRE(restarted.size() == 2u);
    BOOST_TEST((restarted[0].id == 4 && restarted[0].attempt_id == 2 && restarted[0].started));
    BOOST_TEST((restarted[1].id == 5 && restarted[1].attempt_id == 1 && restarted[1].started));
    BOOST_TEST(setup("GET", "/jobs/4").at("status").as_string() == "running");
    done(w::start_job{rid, 4, 2});  // a repeat: its second attempt, the fence names it
    auto const open = exchange(w::check_workflow{rid});
    BOOST_TEST(!as<w::workflow_state_read>(open).is_complete);
    auto const last = exchange(w::complete_jobs{
        rid, {result(4, core::result_status::completed, 0, 2),
              result(5, core::result_status::completed, 0)}});
    BOOST_TEST((as<w::jobs_reported>(last).completed == ids{4, 5}));
    BOOST_TEST(as<w::jobs_reported>(last).rejected.empty());
    auto const finished = exchange(w::check_workflow{rid});
    BOOST_TEST(as<w::workflow_state_read>(finished).is_complete);
    BOOST_TEST(!as<w::workflow_state_read>(finished).is_canceled);

    // -- heartbeat, then the node goes inactive with its lifetime
    auto const beat = api::heartbeat_request(context);
    sent.push_back(beat.method + " " + beat.target);
    auto const lease = send(beat.method, beat.target, beat.body, 10s);
    BOOST_TEST(lease.status == 200u);
    BOOST_TEST(json::parse(lease.body).at("compute_node_id").as_int64() == 1);
    done(w::deactivate_node{rid, 93.5});
    auto const off = setup("GET", "/compute_nodes/1");
    BOOST_TEST(!off.at("is_active").as_bool());
    BOOST_TEST(off.at("duration_seconds").to_number<double>() == 93.5);

    auto const run = std::to_string(context.run_id);
    std::vector<std::string> const expected = {
        "POST /compute_nodes",
        "GET /workflows/1",
        "GET /workflows/1/actions",
        "GET /workflows/1/actions/pending",
        "POST /workflows/1/actions/1/claim",
        "POST /workflows/1/actions/1/claim",
        "GET /workflows/1/actions",
        "POST /workflows/1/claim_jobs_based_on_resources/10",
        "GET /resource_requirements/2",
        "PUT /jobs/1/start_job/" + run + "/1?attempt_id=1",
        "POST /jobs/1/complete_job/completed/" + run + "?compute_node_id=1&attempt_id=1",
        "PUT /jobs/2/start_job/" + run + "/1?attempt_id=1",
        "PUT /jobs/3/start_job/" + run + "/1?attempt_id=1",
        "POST /workflows/1/batch_complete_jobs",
        "POST /jobs/3/complete_job/failed/" + run + "?compute_node_id=1&attempt_id=1",
        "PUT /jobs/4/start_job/" + run + "/1?attempt_id=1",
        "GET /failure_handlers/1",
        "POST /jobs/4/retry/" + run + "?max_retries=3&compute_node_id=1&attempt_id=1",
        "POST /results",
        "PUT /jobs/5/manage_status_change/ready/" + run + "?compute_node_id=1&attempt_id=1",
        "PUT /jobs/6/start_job/" + run + "/1?attempt_id=1",
        "GET /files/1",
        "POST /jobs/6/complete_job/completed/" + run + "?compute_node_id=1&attempt_id=1",
        "POST /workflows/1/claim_jobs_based_on_resources/10?wait_seconds=1&compute_node_id=1&"
        "request_key=1&start=true",
        "PUT /jobs/4/start_job/" + run + "/1?attempt_id=2",
        "GET /workflows/1/is_complete",
        "POST /workflows/1/batch_complete_jobs",
        "GET /workflows/1/is_complete",
        "POST /compute_nodes/1/heartbeat",
        "GET /compute_nodes/1",
        "PUT /compute_nodes/1",
    };
    BOOST_TEST(sent == expected, boost::test_tools::per_element());
}

// complete_and_claim against the real server: a's completion and the next claim in one
// exchange; sent again (its answer lost), the same completion and the same job.
BOOST_FIXTURE_TEST_CASE(completions_and_a_claim_in_one_exchange, wire_server)
{
    create_workflow();
    auto const node = exchange(w::register_node{rid, 16, 32 * gib, 0, 1});
    context.compute_node_id = as<w::node_registered>(node).compute_node_id;
    context.run_id = as<w::workflow_read>(exchange(w::read_workflow{rid})).run_id;
    auto first = claim(1, 0);
    first.start = true;
    first.request = core::request_id{7};
    BOOST_TEST((claim_ids(first) == ids{1}));
    auto next = claim(1, 0);
    next.start = true;
    w::complete_and_claim const both{core::request_id{8},
                                     {result(1, core::result_status::completed, 0)}, next};
    for (int sent_again = 0; sent_again < 2; ++sent_again) {
        auto const e = exchange(both);
        auto const* x = std::get_if<w::completed_and_claimed>(&e);
        BOOST_TEST_REQUIRE(x != nullptr);
        BOOST_TEST((x->reported.completed == ids{1}));
        BOOST_TEST(x->reported.rejected.empty());
        BOOST_TEST_REQUIRE(x->claimed.jobs.size() == 1u);
        BOOST_TEST(x->claimed.jobs[0].id == 2);
        BOOST_TEST(x->claimed.jobs[0].started);
        BOOST_TEST(!x->claim_error.has_value());
    }
    BOOST_TEST(job_status(1) == "completed");
    BOOST_TEST(job_status(2) == "running");
    BOOST_TEST(job_status(3) == "ready");
    BOOST_TEST(sent.back() == "POST /workflows/1/complete_and_claim_jobs/1?compute_node_id=1&"
                              "request_key=8&start=true");
}

// Refusals come back as request_failed quoting the server; an empty long poll waits its time.
BOOST_FIXTURE_TEST_CASE(refusals_and_an_empty_long_poll, wire_server)
{
    create_workflow();
    context.compute_node_id = as<w::node_registered>(exchange(w::register_node{rid, 4, gib, 0, 1}))
                                  .compute_node_id;
    context.run_id = as<w::workflow_read>(exchange(w::read_workflow{rid})).run_id;
    auto const failed = [&](core::worker_action const& a) {
        auto const e = exchange(a);
        auto const& f = as<w::request_failed>(e);
        BOOST_TEST((f.request == rid));
        return f;
    };
    auto const ready = failed(w::start_job{rid, 1});  // not claimed yet
    BOOST_TEST((ready.kind == core::http_failure::http_4xx));
    BOOST_TEST(ready.http_status == 409);
    BOOST_TEST(ready.message ==
               R"(start_job 1: HTTP 409: "start_job: job 1 is "ready"; only a "pending" job can )"
               R"(start")");
    auto const missing = failed(w::read_requirements{rid, 99});
    BOOST_TEST(missing.http_status == 404);
    BOOST_TEST(missing.message == "get_resource_requirements 99: HTTP 404: \"resource_requirements: "
                                  "no resource_requirements with id 99\"");
    auto const no_handler = failed(w::read_failure_handler{rid, 42});
    BOOST_TEST(no_handler.message == "get_failure_handler 42: HTTP 404: \"failure_handlers: no "
                                     "failure_handler with id 42\"");
    auto const retry = failed(w::retry_job{rid, 1, 3});
    BOOST_TEST(retry.message == R"(retry_job 1: HTTP 422: "retry: job 1 is "ready"; only a running, )"
                                R"(failed or terminated job can be retried")");

    // Nothing fits 4 CPUs and 1 GiB (each job needs 3g): the claim waits, then answers empty.
    auto const small = [] {
        auto c = claim(4, 0.4);
        c.per_node = {4, gib, 0};
        return c;
    }();
    auto const t0 = std::chrono::steady_clock::now();
    BOOST_TEST(claim_ids(small).empty());
    auto const waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0);
    BOOST_TEST(waited.count() >= 0.35);
    BOOST_TEST(waited.count() < 5.0);
    context.compute_node_id = 0;  // a claim that names no node still works
    BOOST_TEST(claim_ids(claim(1, 0)).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
