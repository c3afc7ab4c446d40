// spawn_jobs.hpp: the request's decoding, the caller's fence, the batch's plan (fresh, replay,
// convergence, the cap) and the lineage's record names, each refusal verbatim.
#include "torcrun/server/spawn_jobs.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;
namespace api = torcrun::api;

namespace {

template <class T>
std::string refusal(api::api_result<T> const& r)
{
    return r ? std::string("ok") : std::to_string(r.error().status) + " " + r.error().message;
}

core::spawn_request request(std::string const& body)
{
    return core::decode_spawn_request(body, "spawn_jobs").value();
}

core::spawn_caller const running{7, "orch", core::job_status::running, 2, 1};

std::string const batch =
    R"({"lineage":"caseA","state":{"gen":1},"jobs":[)"
    R"({"name":"reeds","command":"r","resource_requirements":"reeds_rr","priority":1},)"
    R"({"name":"pras","command":"p","depends_on":["reeds","prep"]},)"
    R"({"name":"orch_g1","command":"o","depends_on":["reeds","pras"],)"
    R"("cancel_on_blocking_job_failure":false}]})";

}  // namespace

BOOST_AUTO_TEST_SUITE(spawn_jobs)

BOOST_AUTO_TEST_CASE(the_request_reads_as_the_contract_has_it)
{
    auto const r = request(batch);
    BOOST_TEST(r.lineage.value_or("") == "caseA");
    BOOST_TEST(r.state.value_or("") == R"({"gen": 1})");
    BOOST_TEST_REQUIRE(r.jobs.size() == 3u);
    BOOST_TEST(r.jobs[0].resource_requirements.value_or("") == "reeds_rr");
    BOOST_TEST(r.jobs[0].priority == 1);
    BOOST_TEST(r.jobs[1].depends_on == (std::vector<std::string>{"reeds", "prep"}));
    BOOST_TEST(!r.jobs[1].resource_requirements);
    BOOST_TEST(r.jobs[1].cancel_on_blocking_job_failure);
    BOOST_TEST(!r.jobs[2].cancel_on_blocking_job_failure);
    BOOST_TEST(request(R"({"jobs":[],"state":{"metric":0.5}})").state.value_or("") ==
               R"({"metric": 0.5})");
    auto const converge = request(R"({"jobs":[],"state":null})");
    BOOST_TEST(converge.jobs.empty());
    BOOST_TEST(!converge.state);
    BOOST_TEST(!converge.lineage);
}

BOOST_AUTO_TEST_CASE(a_bad_request_is_refused_by_name)
{
    auto const decode = [](std::string const& body) {
        return refusal(core::decode_spawn_request(body, "spawn_jobs"));
    };
    BOOST_TEST(decode(R"({"jobs":[],"extra":1})") ==
               "400 spawn_jobs: unknown field \"extra\" (SpawnJobsRequest has jobs, lineage, "
               "state)");
    BOOST_TEST(decode(R"({"lineage":"a"})") ==
               "400 spawn_jobs: field \"jobs\" is required (an empty list means converged)");
    BOOST_TEST(decode(R"({"jobs":[{"name":"a","command":"c","dependencies":[]}]})") ==
               "400 spawn_jobs: jobs[0]: unknown field \"dependencies\" (SpawnJobModel has name, "
               "command, depends_on, resource_requirements, priority, "
               "cancel_on_blocking_job_failure)");
    BOOST_TEST(decode(R"({"jobs":[{"name":"a"}]})") ==
               "400 spawn_jobs: jobs[0]: field \"command\" is required");
    BOOST_TEST(decode(R"({"jobs":[{"name":"a","command":"c","priority":-1}]})") ==
               "422 spawn_jobs: jobs[0]: spawn job \"a\" has invalid priority -1: must be >= 0");
    BOOST_TEST(decode(R"({"jobs":[{"name":"a","command":"c","depends_on":"b"}]})") ==
               "400 spawn_jobs: jobs[0].depends_on: expected an array of job names, found a "
               "string");
    BOOST_TEST(decode(R"({"jobs":[],"lineage":""})") ==
               "422 spawn_jobs: \"lineage\" is empty (leave it out to use the caller's name)");
    BOOST_TEST(decode("[1]") ==
               "400 spawn_jobs: the body must be an object (SpawnJobsRequest), found an array");
}

BOOST_AUTO_TEST_CASE(only_the_running_attempt_of_the_caller_may_spawn)
{
    auto const check = [](core::spawn_caller const& c, core::spawn_fence const& f) {
        auto const e = core::check_spawn_caller(c, f, "spawn_jobs");
        return e ? std::to_string(e->status) + " " + e->message : std::string("ok");
    };
    BOOST_TEST(check(running, {}) == "ok");
    BOOST_TEST(check(running, {2, 1}) == "ok");
    BOOST_TEST(check(running, {1, 1}) ==
               "409 spawn_jobs: job 7 is on attempt 2, not on attempt 1 (an ended attempt may "
               "not spawn jobs)");
    BOOST_TEST(check(running, {2, 0}) == "409 spawn_jobs: job 7 belongs to run 1, not to run 0");
    auto done = running;
    done.status = core::job_status::completed;
    BOOST_TEST(check(done, {2, 1}) ==
               "422 spawn_jobs: job 7 is \"completed\"; only a running job may spawn jobs "
               "(spawned jobs wait for it and would never be released)");
}

BOOST_AUTO_TEST_CASE(a_fresh_batch_waits_for_the_caller_and_its_siblings)
{
    std::vector<core::job_of_name> const existing{{3, "prep", std::nullopt}};
    auto const plan = core::plan_spawn(running, request(batch), existing, 4, 10, "spawn_jobs");
    BOOST_TEST_REQUIRE(refusal(plan) == "ok");
    BOOST_TEST(plan->lineage == "caseA");
    BOOST_TEST(!plan->replay);
    BOOST_TEST(plan->append_generation);
    BOOST_TEST(plan->iteration == 5);
    using e = core::spawn_edge;
    BOOST_TEST_REQUIRE(plan->edges.size() == 3u);
    BOOST_TEST((plan->edges[0] == std::vector<e>{{7, 0}}));
    BOOST_TEST((plan->edges[1] == std::vector<e>{{7, 0}, {std::nullopt, 0}, {3, 0}}));
    BOOST_TEST((plan->edges[2] == std::vector<e>{{7, 0}, {std::nullopt, 0}, {std::nullopt, 1}}));
}

BOOST_AUTO_TEST_CASE(the_lineage_defaults_to_the_callers_name)
{
    auto const plan = core::plan_spawn(running, request(R"({"jobs":[{"name":"a","command":"c"}]})"),
                                       {}, 0, 1000, "spawn_jobs");
    BOOST_TEST_REQUIRE(refusal(plan) == "ok");
    BOOST_TEST(plan->lineage == "orch");
    BOOST_TEST(plan->iteration == 1);
}

BOOST_AUTO_TEST_CASE(a_replay_answers_the_first_batchs_jobs_and_writes_nothing)
{
    std::vector<core::job_of_name> const existing{
        {3, "prep", std::nullopt}, {20, "reeds", 7}, {21, "pras", 7}, {22, "orch_g1", 7}};
    auto const plan = core::plan_spawn(running, request(batch), existing, 5, 5, "spawn_jobs");
    BOOST_TEST_REQUIRE(refusal(plan) == "ok");  // at the cap: a replay is no new iteration
    BOOST_TEST(plan->replay);
    BOOST_TEST(plan->replay_ids == (std::vector<std::int64_t>{20, 21, 22}));
    BOOST_TEST(plan->iteration == 5);
    BOOST_TEST(!plan->append_generation);
    BOOST_TEST(!plan->write_final);
}

BOOST_AUTO_TEST_CASE(names_of_other_jobs_and_partial_replays_are_refused)
{
    auto const refused = [](std::vector<core::job_of_name> const& existing,
                            std::string const& body = batch) {
        return refusal(core::plan_spawn(running, request(body), existing, 0, 10, "spawn_jobs"));
    };
    BOOST_TEST(refused({{3, "prep", std::nullopt}, {20, "reeds", 7}}) ==
               "422 spawn_jobs: inconsistent replay: 1 of 3 jobs already exist (a replay resends "
               "the same batch)");
    BOOST_TEST(refused({{3, "prep", std::nullopt}, {20, "reeds", 9}}) ==
               "422 spawn_jobs: job name \"reeds\" is already used by job 20, which job 7 did not "
               "spawn; spawned jobs need names of their own");
    BOOST_TEST(refused({{3, "prep", std::nullopt}, {4, "prep", std::nullopt}}) ==
               "422 spawn_jobs: spawn job \"pras\" depends on \"prep\", a name 2 jobs of the "
               "workflow have");
    BOOST_TEST(refused({}) == "422 spawn_jobs: spawn job \"pras\" depends on unknown job \"prep\"");
    BOOST_TEST(refused({}, R"({"jobs":[{"name":"a","command":"c"},{"name":"a","command":"d"}]})") ==
               "422 spawn_jobs: duplicate name \"a\" in the spawn batch");
    BOOST_TEST(refused({}, R"({"jobs":[{"name":"a","command":"c","depends_on":["b"]},)"
                           R"({"name":"b","command":"c","depends_on":["a"]}]})") ==
               "422 spawn_jobs: the spawn batch's dependencies form a cycle: \"a\" -> \"b\"");
}

BOOST_AUTO_TEST_CASE(the_cap_counts_per_lineage)
{
    std::vector<core::job_of_name> const prep{{3, "prep", std::nullopt}};
    auto const at_cap = core::plan_spawn(running, request(batch), prep, 10, 10, "spawn_jobs");
    BOOST_TEST(refusal(at_cap) ==
               "422 spawn_jobs: per-lineage iteration cap reached for lineage \"caseA\": "
               "attempted iteration 11 exceeds dynamic_jobs.max_iterations=10 (current "
               "spawn_count=10)");
    auto const below = core::plan_spawn(running, request(batch), prep, 9, 10, "spawn_jobs");
    BOOST_TEST(refusal(below) == "ok");
    BOOST_TEST(core::max_spawn_iterations(std::nullopt) == 1000);
    BOOST_TEST(core::max_spawn_iterations(std::string("{}")) == 1000);
    BOOST_TEST(core::max_spawn_iterations(std::string(R"({"max_iterations":10})")) == 10);
}

BOOST_AUTO_TEST_CASE(an_empty_batch_is_convergence)
{
    auto const with_state = core::plan_spawn(
        running, request(R"({"jobs":[],"lineage":"caseA","state":{"ok":true}})"), {}, 4, 4,
        "spawn_jobs");
    BOOST_TEST_REQUIRE(refusal(with_state) == "ok");
    BOOST_TEST(with_state->write_final);
    BOOST_TEST(!with_state->append_generation);
    BOOST_TEST(with_state->iteration == 4);
    auto const without = core::plan_spawn(running, request(R"({"jobs":[]})"), {}, 0, 4,
                                          "spawn_jobs");
    BOOST_TEST_REQUIRE(refusal(without) == "ok");
    BOOST_TEST(!without->write_final);
    BOOST_TEST(core::spawn_response_body({}, 4) == R"({"spawned_job_ids":[],"iteration":4})");
}

BOOST_AUTO_TEST_CASE(lineage_records_are_named_as_torc_names_them)
{
    BOOST_TEST(core::lineage_generation_name("caseA", 3) == "__torc_lineage__caseA__g000003");
    BOOST_TEST(core::lineage_generation_name("caseA", 1234567) ==
               "__torc_lineage__caseA__g1234567");
    BOOST_TEST(core::lineage_final_name("caseA") == "__torc_lineage__caseA__final");
    BOOST_TEST(core::lineage_generation_of("__torc_lineage__caseA__g000012", "caseA").value_or(0) ==
               12);
    BOOST_TEST(!core::lineage_generation_of("__torc_lineage__caseA__final", "caseA"));
    BOOST_TEST(!core::lineage_generation_of("__torc_lineage__caseAB__g000001", "caseA"));
    BOOST_TEST(!core::lineage_generation_of("__torc_lineage__caseA__g", "caseA"));
    BOOST_TEST(core::lineage_record_data(2, std::string(R"({"a":1})"), false) ==
               R"({"generation":2,"spawn_count":2,"state":{"a":1}})");
    BOOST_TEST(core::lineage_record_data(2, std::nullopt, true) ==
               R"({"generation":2,"spawn_count":2,"final":true,"state":null})");
}

BOOST_AUTO_TEST_CASE(the_workflows_cap_is_checked_when_stored)
{
    auto const check = [](std::string const& text) {
        return refusal(core::check_dynamic_jobs_config(text, "workflows"));
    };
    BOOST_TEST(check(R"({"max_iterations":10})") == "ok");
    BOOST_TEST(check(R"({})") == "ok");
    BOOST_TEST(check(R"({"max_iterations":null})") == "ok");
    BOOST_TEST(check(R"({"max_iterations":0})") ==
               "422 workflows: field \"dynamic_jobs\": \"max_iterations\" must be at least 1, "
               "found 0 (0 or less would refuse every spawn)");
    BOOST_TEST(check(R"({"max_spawn_iterations_per_lineage":3})") ==
               "422 workflows: field \"dynamic_jobs\": unknown field "
               "\"max_spawn_iterations_per_lineage\" (DynamicJobsConfig has only max_iterations)");
    BOOST_TEST(check(R"({"max_iterations":"10"})") ==
               "422 workflows: field \"dynamic_jobs\": \"max_iterations\" must be an integer, "
               "found a string");
}

BOOST_AUTO_TEST_SUITE_END()
