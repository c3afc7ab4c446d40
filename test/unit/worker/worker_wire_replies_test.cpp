// worker_wire.hpp, the answers: realistic Torc and torcrun replies decoded into the state
// machine's events, and broken ones (bad JSON, missing or mistyped fields, non-2xx statuses)
// into request_failed with the message asserted verbatim.
#include "torcrun/worker/worker_wire.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace api = torcrun::api;
namespace core = torcrun::core;
namespace w = torcrun::core::worker;

namespace {

constexpr std::uint64_t gib = std::uint64_t{1} << 30;
constexpr core::request_id rid{7};

template <class T>
T const& as(core::worker_event const& e)
{
    BOOST_TEST_REQUIRE(std::holds_alternative<T>(e), "event index " << e.index());
    return std::get<T>(e);
}

core::worker_event decode(core::worker_action const& action, std::vector<api::wire_reply> r)
{
    return api::decode_replies(action, r);
}

core::worker_event one(core::worker_action const& action, unsigned status, std::string body)
{
    return decode(action, {{status, std::move(body)}});
}

// A JobModel as Torc's claim endpoint writes it (nulls included).
std::string torc_job(int id, std::string const& extra = {})
{
    return R"({"id":)" + std::to_string(id) +
           R"(,"workflow_id":3,"name":"work_)" + std::to_string(id) +
           R"(","command":"bash my_script.sh","status":"pending",)"
           R"("cancel_on_blocking_job_failure":true,"supports_termination":false,)"
           R"("resource_requirements_id":4,"scheduler_id":null,"invocation_script":null,)"
           R"("failure_handler_id":null,"attempt_id":1,"output_file_ids":null)" +
           extra + "}";
}

core::job_result result_of(std::int64_t job)
{
    core::job_result r;
    r.job_id = job;
    return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_wire)

BOOST_AUTO_TEST_CASE(register_and_read_workflow)
{
    auto const node = one(w::register_node{rid}, 200,
                          R"({"id":9,"workflow_id":3,"hostname":"n1","is_active":true})");
    BOOST_TEST((as<w::node_registered>(node).request == rid));
    BOOST_TEST(as<w::node_registered>(node).compute_node_id == 9);

    auto const read = decode(
        w::read_workflow{rid},
        {{200, R"({"id":3,"name":"w","user":"u","use_pending_failed":true,"resource_monitor_config":null})"},
         {200, R"({"id":3,"is_canceled":false,"is_archived":false,"run_id":2,)"
               R"("has_detected_need_to_run_completion_script":false})"},
         {200, R"([{"id":1,"trigger_type":"on_workflow_start","action_type":"run_commands",)"
               R"("action_config":{"commands":["a"]}},{"id":2,"trigger_type":"on_jobs_ready",)"
               R"("action_type":"schedule_nodes","action_config":{"scheduler_type":"slurm",)"
               R"("scheduler_id":4}}])"}});
    BOOST_TEST(as<w::workflow_read>(read).run_id == 2);
    BOOST_TEST(as<w::workflow_read>(read).use_pending_failed);
    BOOST_TEST(as<w::workflow_read>(read).job_actions);
    auto const plain = decode(w::read_workflow{rid},
                              {{200, R"({"id":3})"}, {200, R"({"run_id":0})"},
                               {200, R"([{"id":1,"trigger_type":"on_worker_start",)"
                                     R"("action_type":"run_commands","action_config":)"
                                     R"({"commands":[]}}])"}});
    BOOST_TEST(!as<w::workflow_read>(plain).use_pending_failed);
    BOOST_TEST(!as<w::workflow_read>(plain).job_actions);
    auto const complete = decode(
        w::read_workflow{rid}, {{200, R"({"id":3})"}, {200, R"({"run_id":0})"},
                                {200, R"([{"id":5,"trigger_type":"on_jobs_complete",)"
                                      R"("action_type":"run_commands","action_config":)"
                                      R"({"commands":["x"]}}])"}});
    BOOST_TEST(as<w::workflow_read>(complete).job_actions);
    // Torc 0.23 and torcrun name the run in the workflow's record: no status read.
    auto const named = decode(w::read_workflow{rid},
                              {{200, R"({"id":3,"run_id":4,"is_canceled":false})"}, {200, "[]"}});
    BOOST_TEST(as<w::workflow_read>(named).run_id == 4);
    auto const steps = api::next_request(w::read_workflow{rid}, {},
                                         std::vector<api::wire_reply>{{200, R"({"run_id":4})"}});
    BOOST_TEST_REQUIRE(steps.has_value());
    BOOST_TEST(steps->target == "/workflows/0/actions");
}

BOOST_AUTO_TEST_CASE(pending_actions_keep_commands_and_allocations)
{
    auto const e = one(
        w::read_pending_actions{rid, core::action_trigger::on_worker_start}, 200,
        R"([{"id":1,"workflow_id":3,"trigger_type":"on_worker_start","action_type":"run_commands",)"
        R"("action_config":{"commands":["echo a","hostname"]},"job_ids":null,"executed":false},)"
        R"({"id":2,"workflow_id":3,"trigger_type":"on_jobs_ready","action_type":"schedule_nodes",)"
        R"("action_config":{"scheduler_type":"slurm","scheduler_id":1,"num_allocations":2,)"
        R"("start_one_worker_per_node":true,"max_parallel_jobs":3},"persistent":true},)"
        R"({"id":3,"trigger_type":"on_jobs_ready","action_type":"schedule_nodes",)"
        R"("action_config":{"scheduler_type":"slurm","scheduler_id":1}}])");
    // Every pending action is listed (no trigger_type filter is sent); those of the trigger asked
    // for are kept.
    auto const& got = as<w::pending_actions_read>(e).actions;
    BOOST_TEST_REQUIRE(got.size() == 1u);
    BOOST_TEST((got[0] == core::workflow_action{1, "run_commands", {"echo a", "hostname"},
                                                "on_worker_start", false, std::nullopt}));
    auto const ready = as<w::pending_actions_read>(
        one(w::read_pending_actions{rid, core::action_trigger::on_jobs_ready}, 200,
            R"([{"id":2,"workflow_id":3,"trigger_type":"on_jobs_ready","action_type":"schedule_nodes",)"
            R"("action_config":{"scheduler_type":"slurm","scheduler_id":1,"num_allocations":2,)"
            R"("start_one_worker_per_node":true,"max_parallel_jobs":3},"persistent":true},)"
            R"({"id":3,"trigger_type":"on_jobs_ready","action_type":"schedule_nodes",)"
            R"("action_config":{"scheduler_type":"slurm","scheduler_id":1}}])"));
    BOOST_TEST_REQUIRE(ready.actions.size() == 2u);
    BOOST_TEST((ready.actions[0] ==
                core::workflow_action{2, "schedule_nodes", {}, "on_jobs_ready", true,
                                      core::allocation_config{"slurm", 1, 2, true, 3}}));
    BOOST_TEST((ready.actions[1].allocations ==
                core::allocation_config{"slurm", 1, 1, false, std::nullopt}));
    BOOST_TEST(as<w::pending_actions_read>(one(w::read_pending_actions{rid}, 200, "[]"))
                   .actions.empty());
}

BOOST_AUTO_TEST_CASE(action_claims)
{
    struct row {
        unsigned status;
        std::string body;
        bool claimed;
    };
    for (auto const& r : std::vector<row>{
             {200, R"({"claimed":true,"action_id":5})", true},
             {200, R"({"action_id":5,"success":true})", true},
             {200, R"({"action_id":5,"success":true,"claimed":true})", true},
             {200, R"({"action_id":5,"claimed":false})", false},
             {409, R"({"message":"claim_action: action 5 already claimed"})", false}}) {
        BOOST_TEST_CONTEXT(r.status << " " << r.body)
        {
            BOOST_TEST(as<w::action_claim_read>(one(w::claim_action{rid, 5}, r.status, r.body))
                           .claimed == r.claimed);
        }
    }
}

// A 409 claim is followed by the workflow's actions: executed_by of this action is its holder.
BOOST_AUTO_TEST_CASE(a_refused_claim_names_its_holder)
{
    auto const claim = core::worker_action{w::claim_action{rid, 5}};
    std::string const refused = R"({"message":"claim_action: action 5 already claimed"})";
    auto const holder = [&](std::string const& actions, unsigned status = 200) {
        return as<w::action_claim_read>(decode(claim, {{409, refused}, {status, actions}})).held_by;
    };
    BOOST_TEST((holder(R"([{"id":4,"executed_by":2},{"id":5,"executed_by":9}])") ==
                std::optional<std::int64_t>{9}));
    BOOST_TEST(!holder(R"([{"id":5,"executed_by":null}])").has_value());
    BOOST_TEST(!holder(R"([{"id":4,"executed_by":9}])").has_value());
    BOOST_TEST(!holder(R"([{"id":5,"executed_by":"x"}])").has_value());
    BOOST_TEST(!holder("<html>").has_value());
    BOOST_TEST(!holder(R"({"message":"down"})", 500).has_value());
    auto const alone = as<w::action_claim_read>(one(w::claim_action{rid, 5}, 409, refused));
    BOOST_TEST(!alone.claimed);
    BOOST_TEST(!alone.held_by.has_value());
}

// More jobs than the limit come back whole; the state machine hands the surplus back.
BOOST_AUTO_TEST_CASE(claimed_jobs_are_decoded_whole)
{
    w::claim_jobs action;
    action.request = rid;
    action.limit = 2;
    auto const e = one(action, 200,
                       R"({"jobs":[)" + torc_job(41) + "," +
                           torc_job(42, R"(,"invocation_script":"module load x")") + "," +
                           torc_job(43, R"(,"failure_handler_id":6,"attempt_id":2,)"
                                        R"("output_file_ids":[11,12],"output_user_data_ids":[4])") +
                           R"(],"reason":null})");
    auto const& jobs = as<w::jobs_claimed>(e).jobs;
    BOOST_TEST_REQUIRE(jobs.size() == 3u);
    BOOST_TEST((jobs[0] == core::claimed_job{41, "work_41", "bash my_script.sh", std::nullopt, 4,
                                             std::nullopt, 1, {}, {}}));
    BOOST_TEST(*jobs[1].invocation_script == "module load x");
    BOOST_TEST((jobs[2] == core::claimed_job{43, "work_43", "bash my_script.sh", std::nullopt, 4,
                                             6, 2, {11, 12}, {}}));
    BOOST_TEST(as<w::jobs_claimed>(one(action, 200, R"({"jobs":[]})")).jobs.empty());
    BOOST_TEST(!jobs[0].started);
    // A claim with start=true lists its jobs running: started by the claim. A status that is not
    // a string starts nothing and is no error.
    auto const started = one(action, 200,
                             R"({"jobs":[{"id":7,"name":"s","command":"c","status":"running",)"
                             R"("resource_requirements_id":4},{"id":8,"name":"t","command":"c",)"
                             R"("status":4,"resource_requirements_id":4}]})");
    auto const& started_jobs = as<w::jobs_claimed>(started).jobs;
    BOOST_TEST_REQUIRE(started_jobs.size() == 2u);
    BOOST_TEST(started_jobs[0].started);
    BOOST_TEST(!started_jobs[1].started);
    // Newer Torc's job env: its own map, applied over the workflow's by the launch plan.
    auto const with_env = one(action, 200, R"({"jobs":[)" +
                                               torc_job(44, R"(,"env":{"A":"1","B":""})") +
                                               "," + torc_job(45, R"(,"env":null)") + "]}");
    auto const& env_jobs = as<w::jobs_claimed>(with_env).jobs;
    BOOST_TEST_REQUIRE(env_jobs.size() == 2u);
    BOOST_TEST((env_jobs[0].env == core::env_map{{"A", "1"}, {"B", ""}}));
    BOOST_TEST(env_jobs[1].env.empty());
    // Torc's contract does not require `jobs`.
    BOOST_TEST(as<w::jobs_claimed>(one(action, 200, R"({"reason":"Workflow is canceled"})"))
                   .jobs.empty());
}

BOOST_AUTO_TEST_CASE(requirements_with_units_and_extension)
{
    auto const e = one(w::read_requirements{rid, 4}, 200,
                       R"({"id":4,"workflow_id":3,"name":"gpu","num_cpus":8,"num_gpus":2,)"
                       R"("num_nodes":2,"memory":"10g","runtime":"PT1H30M"})");
    auto const& r = as<w::requirements_read>(e).resources;
    BOOST_TEST(r.id == 4);
    BOOST_TEST(r.name == "gpu");
    BOOST_TEST((r.need == core::job_requirement{8, 2, 2, 10 * gib}));
    BOOST_TEST(*r.runtime_seconds == 5400.0);
    BOOST_TEST(!r.tasks_per_node.has_value());

    auto const mpi = one(w::read_requirements{rid, 5}, 200,
                         R"({"id":5,"name":"mpi","num_nodes":2,"memory":"512m",)"
                         R"("runtime":"P0DT1M","tasks_per_node":4})");
    auto const& m = as<w::requirements_read>(mpi).resources;
    BOOST_TEST(*m.tasks_per_node == 4u);
    BOOST_TEST((m.need == core::job_requirement{1, 0, 2, 512u << 20}));
    BOOST_TEST(*m.runtime_seconds == 60.0);
    // Torc's model defaults for what is absent.
    auto const bare = one(w::read_requirements{rid, 6}, 200, R"({"id":6,"name":"default"})");
    auto const& b = as<w::requirements_read>(bare).resources;
    BOOST_TEST((b.need == core::job_requirement{1, 0, 1, 1u << 20}));
    BOOST_TEST(!b.runtime_seconds.has_value());
}

BOOST_AUTO_TEST_CASE(failure_handler_rules_from_their_json_string)
{
    auto const e = one(
        w::read_failure_handler{rid, 6}, 200,
        R"({"id":6,"workflow_id":3,"name":"retry",)"
        R"("rules":"[{\"exit_codes\":[1,137],\"recovery_script\":\"bash fix.sh\",\"max_retries\":2},)"
        R"({\"match_all_exit_codes\":true}]"})");
    auto const& h = as<w::failure_handler_read>(e).handler;
    BOOST_TEST(h.id == 6);
    BOOST_TEST_REQUIRE(h.rules.size() == 2u);
    BOOST_TEST((h.rules[0] == core::failure_rule{{1, 137}, false, "bash fix.sh", 2}));
    BOOST_TEST((h.rules[1] == core::failure_rule{{}, true, std::nullopt, 3}));  // Torc's default
}

BOOST_AUTO_TEST_CASE(batch_completion_workflow_state_and_plain_successes)
{
    auto const batch = one(w::complete_jobs{rid, {}}, 200,
                           R"({"completed":[42,44],"errors":[{"job_id":43,)"
                           R"("message":"batch_complete_jobs: job 43 is ready, not running"},)"
                           R"({"job_id":45,"status":409,"message":"held by compute node 1"}]})");
    auto const& b = as<w::jobs_reported>(batch);
    BOOST_TEST((b.completed == std::vector<std::int64_t>{42, 44}));
    BOOST_TEST_REQUIRE(b.rejected.size() == 2u);
    BOOST_TEST(b.rejected[0].job_id == 43);
    BOOST_TEST(b.rejected[0].message == "batch_complete_jobs: job 43 is ready, not running");
    BOOST_TEST(b.rejected[0].http_status == 0);  // Torc's entries name no status
    BOOST_TEST(b.rejected[1].job_id == 45);
    BOOST_TEST(b.rejected[1].http_status == 409);  // torcrun's do

    auto const exchange =
        one(w::complete_and_claim{rid, {}, {}}, 200,
            R"({"completed":[42],"errors":[{"job_id":43,"status":409,"message":"held"}],)"
            R"("jobs":[{"id":44,"workflow_id":3,"name":"j44","command":"true",)"
            R"("resource_requirements_id":1,"status":"running","attempt_id":1}]})");
    auto const& x = as<w::completed_and_claimed>(exchange);
    BOOST_TEST((x.reported.completed == std::vector<std::int64_t>{42}));
    BOOST_TEST_REQUIRE(x.reported.rejected.size() == 1u);
    BOOST_TEST(x.reported.rejected[0].http_status == 409);
    BOOST_TEST_REQUIRE(x.claimed.jobs.size() == 1u);
    BOOST_TEST(x.claimed.jobs[0].id == 44);
    BOOST_TEST(x.claimed.jobs[0].started);
    BOOST_TEST(!x.claim_error.has_value());
    auto const refused =
        one(w::complete_and_claim{rid, {}, {}}, 200,
            R"({"completed":[],"errors":[],"jobs":[],)"
            R"("claim_error":{"status":409,"message":"compute node 9 is inactive"}})");
    auto const& r = as<w::completed_and_claimed>(refused);
    BOOST_TEST_REQUIRE(r.claim_error.has_value());
    BOOST_TEST(r.claim_error->http_status == 409);
    BOOST_TEST(r.claim_error->message == "compute node 9 is inactive");

    auto const state = one(w::check_workflow{rid}, 200,
                           R"({"is_canceled":true,"is_complete":true,)"
                           R"("needs_to_run_completion_script":false})");
    BOOST_TEST(as<w::workflow_state_read>(state).is_complete);
    BOOST_TEST(as<w::workflow_state_read>(state).is_canceled);

    std::string const job = torc_job(42);
    std::vector<core::worker_action> const plain = {
        w::start_job{rid, 42}, w::hand_back{rid, 42}, w::retry_job{rid, 42, 3},
        w::record_result{rid, {}}, w::complete_job{rid, {}}};
    for (auto const& a : plain) BOOST_TEST((as<w::request_done>(one(a, 200, job)).request == rid));
    auto const off = decode(w::deactivate_node{rid, 5}, {{200, R"({"id":9})"}, {200, "{}"}});
    BOOST_TEST((as<w::request_done>(off).request == rid));
}

// release_node: what the node's record says, with the jobs it held when it was released; a 404
// on the node is an unknown node, not a failure.
BOOST_AUTO_TEST_CASE(release_node_says_what_became_of_the_node)
{
    w::release_node const action{rid, 7, 3};
    std::string const active = R"({"id":7,"workflow_id":3,"is_active":true})";
    auto const released =
        as<w::node_released>(decode(action, {{200, active},
                                             {200, R"({"items":[{"id":41,"status":"running",)"
                                                   R"("attempt_id":2}]})"},
                                             {200, "{}"}}));
    BOOST_TEST((released.request == rid));
    BOOST_TEST(released.compute_node_id == 7);
    BOOST_TEST((released.outcome == w::earlier_node::released));
    BOOST_TEST_REQUIRE(released.jobs.size() == 1u);
    BOOST_TEST(released.jobs[0].job_id == 41);
    BOOST_TEST(released.jobs[0].attempt_id == 2u);
    auto const outcome = [&](std::vector<api::wire_reply> r) {
        return as<w::node_released>(decode(action, std::move(r))).outcome;
    };
    BOOST_TEST((outcome({{200, R"({"id":7,"workflow_id":3,"is_active":false})"}}) ==
                w::earlier_node::inactive));
    BOOST_TEST((outcome({{200, R"({"id":7,"workflow_id":4,"is_active":true})"}}) ==
                w::earlier_node::foreign));
    BOOST_TEST((outcome({{404, R"({"message":"no compute_node with id 7"})"}}) ==
                w::earlier_node::unknown));
    auto const refused = as<w::request_failed>(decode(action, {{200, active}, {403, ""}}));
    BOOST_TEST(refused.http_status == 403);
    BOOST_TEST(refused.message.starts_with("list_jobs: "), refused.message);
    auto const bad = as<w::request_failed>(decode(action, {{200, R"({"id":7})"}}));
    BOOST_TEST(bad.message == R"(get_compute_node: field "workflow_id" is missing)");
}

BOOST_AUTO_TEST_CASE(file_path)
{
    BOOST_TEST(api::file_path_of(R"({"id":11,"workflow_id":3,"name":"f","path":"out/f.txt"})")
                   .value() == "out/f.txt");
    BOOST_TEST(api::file_path_of(R"({"id":11})").error().message ==
               R"(get_file: field "path" is missing)");
    BOOST_TEST(api::file_path_of("[1]").error().message ==
               "get_file: the answer is an array, not an object");
}

struct broken_case {
    std::string name;
    core::worker_action action;
    std::vector<api::wire_reply> replies;
    core::http_failure kind;
    int status;
    std::string message;
};

std::vector<broken_case> broken_cases()
{
    using core::http_failure;
    auto const claim = [] {
        w::claim_jobs c;
        c.request = rid;
        return core::worker_action{c};
    }();
    auto const wf = core::worker_action{w::read_workflow{rid}};
    auto const reqs = core::worker_action{w::read_requirements{rid, 4}};
    auto const handler = core::worker_action{w::read_failure_handler{rid, 6}};
    auto const actions =
        core::worker_action{w::read_pending_actions{rid, core::action_trigger::on_worker_start}};
    auto const rules = [](std::string const& r) {
        return R"({"id":6,"rules":")" + r + "\"}";
    };
    auto const h5 = http_failure::http_5xx;
    auto const h4 = http_failure::http_4xx;
    return {
        {"empty body", w::register_node{rid}, {{201, ""}}, h5, 201,
         "create_compute_node: the answer is empty"},
        {"not JSON", w::register_node{rid}, {{200, "<html>oops</html>"}}, h5, 200,
         R"(create_compute_node: the answer is not JSON (syntax error): "<html>oops</html>")"},
        {"no id", w::register_node{rid}, {{200, R"({"hostname":"n1"})"}}, h5, 200,
         R"(create_compute_node: field "id" is missing)"},
        {"null id", w::register_node{rid}, {{200, R"({"id":null})"}}, h5, 200,
         R"(create_compute_node: field "id" is null)"},
        {"workflow flag", wf, {{200, R"({"use_pending_failed":"yes"})"}, {200, R"({"run_id":1})"}},
         h5, 200, R"(get_workflow: field "use_pending_failed": expected a boolean, found a string)"},
        {"no run id", wf, {{200, R"({"id":3})"}, {200, R"({"id":3,"is_canceled":false})"}}, h5, 200,
         R"(get_workflow_status: field "run_id" is missing)"},
        {"status 404", wf, {{200, R"({"id":3})"}, {404, R"({"message":"no workflow 3"})"}}, h4,
         404, R"(get_workflow_status: HTTP 404: "no workflow 3")"},
        {"actions object", actions, {{200, "{}"}}, h5, 200,
         "get_pending_actions on_worker_start: the answer is an object, not an array"},
        {"no commands", actions,
         {{200, R"([{"id":1,"action_type":"run_commands","action_config":{}}])"}}, h5, 200,
         R"(get_pending_actions on_worker_start: field "[0].action_config.commands" is missing)"},
        {"no config", actions,
         {{200, R"([{"id":1,"action_type":"schedule_nodes","trigger_type":"on_jobs_ready"}])"}},
         h5, 200, R"(get_pending_actions on_worker_start: field "[0].action_config" is missing)"},
        {"allocations text", actions,
         {{200, R"([{"id":1,"action_type":"schedule_nodes","action_config":)"
                R"({"scheduler_type":"slurm","num_allocations":"2"}}])"}},
         h5, 200,
         R"(get_pending_actions on_worker_start: field "[0].action_config.num_allocations": )"
         "expected an integer, found a string"},
        {"actions not a list", wf,
         {{200, R"({"id":3})"}, {200, R"({"run_id":1})"}, {200, R"({"items":[]})"}}, h5, 200,
         "get_workflow_actions: the answer is an object, not an array"},
        {"command number", actions,
         {{200, R"([{"id":1,"action_type":"run_commands","action_config":{"commands":["a",2]}}])"}},
         h5, 200,
         R"(get_pending_actions on_worker_start: field "[0].action_config.commands[1]": )"
         "expected a string, found an integer"},
        {"jobs object", claim, {{200, R"({"jobs":{}})"}}, h5, 200,
         R"(claim_jobs_based_on_resources: field "jobs": expected an array, found an object)"},
        {"job command", claim, {{200, R"({"jobs":[)" + torc_job(1) + R"(,{"id":2,"name":"b","command":7}]})"}},
         h5, 200,
         R"(claim_jobs_based_on_resources: field "jobs[1].command": expected a string, )"
         "found an integer"},
        {"job requirements", claim,
         {{200, R"({"jobs":[{"id":2,"name":"b","command":"c","resource_requirements_id":null}]})"}},
         h5, 200,
         R"(claim_jobs_based_on_resources: field "jobs[0].resource_requirements_id" is null)"},
        {"output ids", claim, {{200, R"({"jobs":[)" + torc_job(1, R"(,"output_file_ids":[1,"2"])") + "]}"}},
         h5, 200,
         R"(claim_jobs_based_on_resources: field "jobs[0].output_file_ids[1]": )"
         "expected an integer, found a string"},
        {"env list", claim, {{200, R"({"jobs":[)" + torc_job(1, R"(,"env":["A=1"])") + "]}"}},
         h5, 200,
         R"(claim_jobs_based_on_resources: field "jobs[0].env": expected an object, found an )"
         "array"},
        {"env number", claim, {{200, R"({"jobs":[)" + torc_job(1, R"(,"env":{"A":1})") + "]}"}},
         h5, 200,
         R"(claim_jobs_based_on_resources: field "jobs[0].env": the value of "A" is an integer, )"
         "not a string"},
        {"attempt zero", claim, {{200, R"({"jobs":[)" + torc_job(1, R"(,"attempt_id":0)") + "]}"}},
         h5, 200,
         R"(claim_jobs_based_on_resources: field "jobs[0].attempt_id": 0 is outside 1 to 4294967295)"},
        {"memory", reqs, {{200, R"({"id":4,"memory":"10GB"})"}}, h5, 200,
         R"(get_resource_requirements 4: field "memory": memory: "10GB" has a multi-letter unit )"
         R"("GB"; use one of k, m, g or t)"},
        {"runtime", reqs, {{200, R"({"id":4,"runtime":"1h"})"}}, h5, 200,
         R"(get_resource_requirements 4: field "runtime": duration: "1h" does not start with P )"
         "(e.g. PT30M, P1DT12H)"},
        {"negative cpus", reqs, {{200, R"({"id":4,"num_cpus":-1})"}}, h5, 200,
         R"(get_resource_requirements 4: field "num_cpus": -1 is outside 0 to 4294967295)"},
        {"tasks zero", reqs, {{200, R"({"id":4,"tasks_per_node":0})"}}, h5, 200,
         R"(get_resource_requirements 4: field "tasks_per_node": 0 is outside 1 to 4294967295)"},
        {"rules not JSON", handler, {{200, rules("[{")}}, h5, 200,
         R"(get_failure_handler 6: field "rules": "[{" is not JSON (incomplete JSON))"},
        {"rules object", handler, {{200, rules("{}")}}, h5, 200,
         R"(get_failure_handler 6: field "rules": expected a JSON array, found an object)"},
        {"max retries", handler, {{200, rules(R"([{\"max_retries\":\"3\"}])")}}, h5, 200,
         R"(get_failure_handler 6: field "rules[0].max_retries": expected an integer, )"
         "found a string"},
        {"exit code", handler, {{200, rules(R"([{\"exit_codes\":[1.5]}])")}}, h5, 200,
         R"(get_failure_handler 6: field "rules[0].exit_codes[0]": expected an exit code, )"
         "found a number"},
        {"batch", w::complete_jobs{rid, {}}, {{200, R"({"errors":[]})"}}, h5, 200,
         R"(batch_complete_jobs: field "completed" is missing)"},
        {"batch error", w::complete_jobs{rid, {}},
         {{200, R"({"completed":[],"errors":[{"message":"m"}]})"}}, h5, 200,
         R"(batch_complete_jobs: field "errors[0].job_id" is missing)"},
        {"exchange", w::complete_and_claim{rid, {}, {}},
         {{200, R"({"completed":[],"errors":[],"claim_error":[]})"}}, h5, 200,
         R"(complete_and_claim_jobs: field "claim_error": expected an object, found an array)"},
        {"exchange 404", w::complete_and_claim{rid, {}, {}}, {{404, R"({"message":"no route"})"}},
         h4, 404, R"(complete_and_claim_jobs: HTTP 404: "no route")"},
        {"is_complete", w::check_workflow{rid}, {{200, R"({"is_canceled":false})"}}, h5, 200,
         R"(is_workflow_complete: field "is_complete" is missing)"},
        {"node GET", w::deactivate_node{rid, 1}, {{200, "[]"}}, h5, 200,
         "get_compute_node: the answer is an array, not an object"},
        {"torcrun 422", w::start_job{rid, 42},
         {{422, R"({"error":{"message":"start_job: job 42 is ready, not pending"},)"
                R"("message":"start_job: job 42 is ready, not pending"})"}},
         h4, 422, R"(start_job 42: HTTP 422: "start_job: job 42 is ready, not pending")"},
        {"torc 500 text", w::complete_job{rid, result_of(42)},
         {{500, "An internal error occurred"}}, h5, 500,
         R"(complete_job 42: HTTP 500: "An internal error occurred")"},
        {"503 empty", w::hand_back{rid, 42}, {{503, ""}}, h5, 503,
         "manage_status_change 42: HTTP 503 with an empty body"},
        {"claim action 404", w::claim_action{rid, 5}, {{404, R"({"message":"no action 5"})"}}, h4,
         404, R"(claim_action 5: HTTP 404: "no action 5")"},
        {"retry 422", w::retry_job{rid, 42, 3}, {{422, R"({"message":"max retries"})"}}, h4, 422,
         R"(retry_job 42: HTTP 422: "max retries")"},
        {"no replies", w::check_workflow{rid}, {}, h5, 0, "is_workflow_complete: no answer to decode"},
    };
}

// The never-fit check's three answers: each ready job with its requirements (memory and
// runtime as written); a job whose requirements are not listed is left out.
BOOST_AUTO_TEST_CASE(ready_jobs_with_their_requirements)
{
    core::worker_action const check = w::check_workflow{rid, true};
    std::string const state = R"({"is_canceled":false,"is_complete":false,)"
                              R"("needs_to_run_completion_script":false})";
    std::string const jobs =
        R"({"items":[)" + torc_job(42) + "," +
        torc_job(43, R"(,"resource_requirements_id":5,"label":"gpu")") + "," +
        torc_job(44, R"(,"resource_requirements_id":6)") +
        R"(],"offset":0,"max_limit":10000,"count":3,"total_count":3,"has_more":false})";
    std::string const reqs =
        R"({"items":[{"id":4,"workflow_id":3,"name":"big","num_cpus":4,"num_gpus":1,)"
        R"("num_nodes":2,"memory":"1000g","runtime":"PT2H"},)"
        R"({"id":5,"workflow_id":3,"name":"plain","num_cpus":1}],"has_more":false})";
    auto const e = decode(check, {{200, state}, {200, jobs}, {200, reqs}});
    auto const& r = as<w::ready_jobs_read>(e);
    BOOST_TEST((r.request == rid));
    BOOST_TEST((r.state.request == rid));
    BOOST_TEST(!r.state.is_complete);
    BOOST_TEST(!r.state.is_canceled);
    BOOST_TEST(!r.more);
    BOOST_TEST_REQUIRE(r.jobs.size() == 2u);  // job 44's requirements 6 are not listed
    BOOST_TEST(r.jobs[0].id == 42);
    BOOST_TEST(r.jobs[0].name == "work_42");
    BOOST_TEST(r.jobs[0].resources.id == 4);
    BOOST_TEST(r.jobs[0].resources.need.num_cpus == 4u);
    BOOST_TEST(r.jobs[0].resources.need.num_gpus == 1u);
    BOOST_TEST(r.jobs[0].resources.need.num_nodes == 2u);
    BOOST_TEST(r.jobs[0].resources.need.memory_bytes == 1000 * gib);
    BOOST_TEST(r.jobs[0].resources.runtime_seconds.value_or(0) == 7200.0);
    BOOST_TEST(r.jobs[0].memory == "1000g");
    BOOST_TEST(r.jobs[0].runtime == "PT2H");
    BOOST_TEST(r.jobs[1].id == 43);
    BOOST_TEST(r.jobs[1].resources.need.num_cpus == 1u);
    BOOST_TEST(r.jobs[1].memory == "");
    BOOST_TEST(r.jobs[1].runtime == "");
    BOOST_TEST(!r.jobs[1].resources.runtime_seconds.has_value());
    BOOST_TEST(!r.jobs[0].label.has_value());  // extension: the job's label, when it has one
    BOOST_TEST(r.jobs[1].label.value_or("") == "gpu");

    // More than one page: `more`, so the worker does not judge from part of the list.
    auto const paged = decode(check, {{200, state},
                                      {200, R"({"items":[)" + torc_job(42) + R"(],"has_more":true})"},
                                      {200, reqs}});
    BOOST_TEST(as<w::ready_jobs_read>(paged).more);
    // No ready job: an empty list, not an error.
    auto const none = decode(check, {{200, state}, {200, R"({"items":[]})"}, {200, R"({"items":[]})"}});
    BOOST_TEST(as<w::ready_jobs_read>(none).jobs.empty());
    BOOST_TEST(!as<w::ready_jobs_read>(none).more);

    // Complete (the shell stopped after is_complete): the plain answer, with_ready_jobs or not.
    std::string const done = R"({"is_canceled":false,"is_complete":true})";
    BOOST_TEST(as<w::workflow_state_read>(one(check, 200, done)).is_complete);
    BOOST_TEST(as<w::workflow_state_read>(one(w::check_workflow{rid}, 200, done)).is_complete);
    auto const open = one(w::check_workflow{rid}, 200, state);
    BOOST_TEST(!as<w::workflow_state_read>(open).is_complete);
    BOOST_TEST((as<w::workflow_state_read>(open).request == rid));
}

BOOST_AUTO_TEST_CASE(broken_ready_jobs_answers_name_the_step_and_field)
{
    using core::http_failure;
    core::worker_action const check = w::check_workflow{rid, true};
    api::wire_reply const state{200, R"({"is_canceled":false,"is_complete":false})"};
    api::wire_reply const no_reqs{200, R"({"items":[]})"};
    auto const jobs = [](std::string const& items) {
        return api::wire_reply{200, R"({"items":[)" + items + "]}"};
    };
    struct bad {
        std::string name;
        std::vector<api::wire_reply> replies;
        http_failure kind;
        int status;
        std::string message;
    };
    auto const h5 = http_failure::http_5xx;
    std::vector<bad> const cases = {
        {"jobs 500", {state, {500, "An internal error occurred"}}, h5, 500,
         R"(list_jobs: HTTP 500: "An internal error occurred")"},
        {"requirements 404", {state, jobs(""), {404, R"({"message":"no workflow 3"})"}},
         http_failure::http_4xx, 404, R"(list_resource_requirements: HTTP 404: "no workflow 3")"},
        {"jobs not JSON", {state, {200, "<html>"}, no_reqs}, h5, 200,
         R"(list_jobs: the answer is not JSON (syntax error): "<html>")"},
        {"no items", {state, {200, R"({"total_count":0})"}, no_reqs}, h5, 200,
         R"(list_jobs: field "items": expected an array)"},
        {"items object", {state, {200, R"({"items":{}})"}, no_reqs}, h5, 200,
         R"(list_jobs: field "items": expected an array)"},
        {"item number", {state, jobs("7"), no_reqs}, h5, 200,
         R"(list_jobs: field "items[0]": expected an object, found an integer)"},
        {"job id", {state, jobs(R"({"name":"a","resource_requirements_id":4})"), no_reqs}, h5,
         200, R"(list_jobs: field "items[0].id" is missing)"},
        {"job requirements null",
         {state, jobs(R"({"id":1,"name":"a","resource_requirements_id":null})"), no_reqs}, h5,
         200, R"(list_jobs: field "items[0].resource_requirements_id" is null)"},
        {"requirements items", {state, jobs(""), {200, R"({"items":"x"})"}}, h5, 200,
         R"(list_resource_requirements: field "items": expected an array)"},
        {"requirements memory",
         {state, jobs(""), {200, R"({"items":[{"id":4},{"id":5,"memory":"10GB"}]})"}}, h5, 200,
         R"(list_resource_requirements: items[1]: field "memory": memory: "10GB" has a )"
         R"(multi-letter unit "GB"; use one of k, m, g or t)"},
        {"state", {{200, R"({"is_canceled":false})"}, jobs(""), no_reqs}, h5, 200,
         R"(is_workflow_complete: field "is_complete" is missing)"},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name)
        {
            auto const e = decode(check, c.replies);
            auto const& f = as<w::request_failed>(e);
            BOOST_TEST((f.request == rid));
            BOOST_TEST((f.kind == c.kind));
            BOOST_TEST(f.http_status == c.status);
            BOOST_TEST(f.message == c.message);
        }
    }
}

BOOST_AUTO_TEST_CASE(broken_and_refused_answers_are_request_failed)
{
    for (auto const& c : broken_cases()) {
        BOOST_TEST_CONTEXT(c.name)
        {
            auto const e = decode(c.action, c.replies);
            auto const& f = as<w::request_failed>(e);
            BOOST_TEST((f.request == rid));
            BOOST_TEST((f.kind == c.kind));
            BOOST_TEST(f.http_status == c.status);
            BOOST_TEST(f.message == c.message);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
