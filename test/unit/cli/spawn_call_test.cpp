// spawn_call.hpp: `torcrun spawn-jobs`' caller from the job's environment, its path with the
// fence, its body, and a lineage's generation from the user-data names.
#include "torcrun/cli/spawn_call.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;

namespace {

core::env_map const job_env{{"TORC_API_URL", "http://127.0.0.1:1/torc-service/v1"},
                            {"TORC_WORKFLOW_ID", "3"},
                            {"TORC_JOB_ID", "7"},
                            {"TORC_ATTEMPT_ID", "2"},
                            {"TORC_RUN_ID", "1"}};

template <class T>
std::string message_of(core::result<T> const& r)
{
    return r ? std::string("ok") : r.error().message;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spawn_call)

BOOST_AUTO_TEST_CASE(the_caller_comes_from_the_jobs_environment)
{
    auto const id = core::spawn_identity_from(job_env, std::nullopt).value();
    BOOST_TEST(id.workflow_id == 3);
    BOOST_TEST(id.job_id == 7);
    BOOST_TEST(!id.lineage);
    BOOST_TEST(core::spawn_path(id) == "/jobs/7/spawn_jobs?attempt_id=2&run_id=1");
    auto spawned = job_env;
    spawned["TORC_ORCHESTRATOR_LINEAGE_ID"] = "caseA";
    BOOST_TEST(core::spawn_identity_from(spawned, std::nullopt)->lineage.value_or("") == "caseA");
    BOOST_TEST(core::spawn_identity_from(spawned, std::string("x"))->lineage.value_or("") == "x");
    auto unfenced = job_env;
    unfenced.erase("TORC_ATTEMPT_ID");
    unfenced.erase("TORC_RUN_ID");
    BOOST_TEST(core::spawn_path(core::spawn_identity_from(unfenced, std::nullopt).value()) ==
               "/jobs/7/spawn_jobs");
}

BOOST_AUTO_TEST_CASE(outside_a_job_it_says_what_is_missing)
{
    BOOST_TEST(message_of(core::spawn_identity_from({}, std::nullopt)) ==
               "TORC_WORKFLOW_ID is not set: torcrun spawn-jobs runs inside a job that a worker "
               "started (it spawns on that job's behalf)");
    auto bad = job_env;
    bad["TORC_ATTEMPT_ID"] = "two";
    BOOST_TEST(message_of(core::spawn_identity_from(bad, std::nullopt)) ==
               "TORC_ATTEMPT_ID: \"two\" is not a non-negative integer");
}

BOOST_AUTO_TEST_CASE(the_body_takes_the_lineage_and_state)
{
    core::spawn_identity id;
    id.lineage = "caseA";
    BOOST_TEST(core::spawn_body(R"({"jobs":[{"name":"a","command":"c"}]})", false, std::nullopt,
                                id)
                   .value() == R"({"jobs":[{"name":"a","command":"c"}],"lineage":"caseA"})");
    BOOST_TEST(core::spawn_body(R"({"jobs":[],"lineage":"mine"})", false, std::nullopt, id)
                   .value() == R"({"jobs":[],"lineage":"mine"})");
    BOOST_TEST(core::spawn_body("", true, std::string(R"({"done":true})"), id).value() ==
               R"({"jobs":[],"state":{"done":true},"lineage":"caseA"})");
    BOOST_TEST(message_of(core::spawn_body("{}", false, std::nullopt, id)) ==
               "the request has no \"jobs\" (give --converge to record convergence)");
    BOOST_TEST(message_of(core::spawn_body(R"({"jobs":[{"name":"a","command":"c"}]})", true,
                                           std::nullopt, id)) ==
               "--converge spawns nothing, but the request lists jobs");
    BOOST_TEST(message_of(core::spawn_body(R"({"jobs":[],"state":1})", false, std::string("2"),
                                           id)) ==
               "--state and the request's \"state\" both give the state");
    BOOST_TEST(message_of(core::spawn_body("[]", false, std::nullopt, id)) ==
               "the request must be a JSON object {\"jobs\": [...], \"lineage\": ..., "
               "\"state\": ...}");
}

BOOST_AUTO_TEST_CASE(the_generation_is_the_lineages_highest_record)
{
    std::vector<std::string> const names{"__torc_lineage__caseA__g000001", "x",
                                         "__torc_lineage__caseA__g000003",
                                         "__torc_lineage__caseA__final",
                                         "__torc_lineage__caseB__g000009"};
    BOOST_TEST(core::lineage_generation(names, "caseA") == 3);
    BOOST_TEST(core::lineage_generation(names, "caseC") == 0);
}

BOOST_AUTO_TEST_SUITE_END()
