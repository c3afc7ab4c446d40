// POST /workflows/{id}/complete_and_claim_jobs/{limit}: completions and a claim in one request.
// A chain a -> b -> c: completing a and claiming in one request hands out b (released by the
// completion in the same transaction); the same request sent again (a lost answer) answers the
// same completion as a repeat and the same job b, claiming nothing more; a refused claim leaves
// the completions in; a body without both parts changes nothing.
#include "lifecycle_fixture.hpp"

namespace api = torcrun::api;
using torcrun::test::lifecycle_fixture;
using torcrun::test::node_body;
using torcrun::test::query;

BOOST_AUTO_TEST_SUITE(complete_and_claim)

struct chain_fixture : lifecycle_fixture {
    std::int64_t a = 0, b = 0, c = 0, d = 0, cn = 0;
    chain_fixture()
    {
        a = job("a");
        b = job("b", R"("depends_on_job_ids":[)" + std::to_string(a) + "]");
        c = job("c", R"("depends_on_job_ids":[)" + std::to_string(b) + "]");
        d = job("d", R"("depends_on_job_ids":[)" + std::to_string(b) + "]");
        cn = node();
        initialize();
    }

    query claimant(std::string const& key) const
    {
        return {{"compute_node_id", std::to_string(cn)}, {"request_key", key}, {"start", "true"}};
    }

    std::string body_completing(std::int64_t job_id, int cpus = 1) const
    {
        return R"({"completions":[{"job_id":)" + std::to_string(job_id) +
               R"(,"status":"completed","run_id":0,"compute_node_id":)" + std::to_string(cn) +
               R"(,"attempt_id":1,"result":)" + result_body(job_id, "completed", cn) +
               R"(}],"claim":)" + node_body(cpus, 1, 0, 1) + "}";
    }

    boost::json::value exchange(std::int64_t job_id, std::string const& key, int limit = 1)
    {
        return ok("POST", "/workflows/1/complete_and_claim_jobs/" + std::to_string(limit),
                  body_completing(job_id), claimant(key));
    }
};

BOOST_FIXTURE_TEST_CASE(completion_releases_what_the_claim_takes, chain_fixture)
{
    auto first = ok("POST", "/workflows/1/claim_jobs_based_on_resources/1", node_body(1, 1, 0, 1),
                    claimant("1"));
    BOOST_TEST((ids_of(first) == std::vector<std::int64_t>{a}));
    BOOST_TEST(status(a) == "running");

    auto answer = exchange(a, "2");
    BOOST_TEST(boost::json::serialize(answer.at("completed")) == "[" + std::to_string(a) + "]");
    BOOST_TEST(answer.at("errors").as_array().empty());
    BOOST_TEST((ids_of(answer) == std::vector<std::int64_t>{b}));
    BOOST_TEST(!answer.as_object().contains("claim_error"));
    BOOST_TEST(status(a) == "completed");
    BOOST_TEST(status(b) == "running");
    BOOST_TEST(scalar("SELECT active_compute_node_id FROM job WHERE id = " + std::to_string(b)) ==
               cn);
}

BOOST_FIXTURE_TEST_CASE(sent_again_answers_the_same_and_takes_nothing_more, chain_fixture)
{
    ok("POST", "/workflows/1/claim_jobs_based_on_resources/1", node_body(1, 1, 0, 1),
       claimant("1"));
    auto const once = exchange(a, "2");
    auto const results = scalar("SELECT COUNT(*) FROM result");
    auto const twice = exchange(a, "2");  // the first answer was lost
    BOOST_TEST(boost::json::serialize(twice.at("completed")) == "[" + std::to_string(a) + "]");
    BOOST_TEST((ids_of(twice) == ids_of(once)));
    BOOST_TEST(scalar("SELECT COUNT(*) FROM result") == results);  // a repeat writes nothing
    BOOST_TEST(status(b) == "running");
    // b's completion releases c and d; a claim of two under a new key takes both
    auto next = exchange(b, "3", 2);
    BOOST_TEST((ids_of(next) == std::vector<std::int64_t>{c}));  // one CPU offered: one job
    BOOST_TEST(status(d) == "ready");
}

BOOST_FIXTURE_TEST_CASE(a_refused_claim_keeps_the_completions, chain_fixture)
{
    ok("POST", "/workflows/1/claim_jobs_based_on_resources/1", node_body(1, 1, 0, 1),
       claimant("1"));
    // start=true without a claimant is refused (422) by the claim; the completion stays in
    auto answer = ok("POST", "/workflows/1/complete_and_claim_jobs/1", body_completing(a),
                     {{"start", "true"}});
    BOOST_TEST(boost::json::serialize(answer.at("completed")) == "[" + std::to_string(a) + "]");
    BOOST_TEST(answer.at("jobs").as_array().empty());
    BOOST_TEST(answer.at("claim_error").at("status").as_int64() == 422);
    BOOST_TEST(std::string(answer.at("claim_error").at("message").as_string()).find("start") !=
               std::string::npos);
    BOOST_TEST(status(a) == "completed");
    BOOST_TEST(status(b) == "ready");
}

BOOST_FIXTURE_TEST_CASE(a_body_without_both_parts_changes_nothing, chain_fixture)
{
    auto const before = snapshot();
    BOOST_TEST(fails(400, "POST", "/workflows/1/complete_and_claim_jobs/1",
                     R"({"completions":[]})") ==
               "complete_and_claim_jobs: the body must be an object with \"completions\" and "
               "\"claim\"");
    fails(404, "POST", "/workflows/9/complete_and_claim_jobs/1", body_completing(a));
    BOOST_TEST(snapshot() == before);
}

BOOST_AUTO_TEST_SUITE_END()
