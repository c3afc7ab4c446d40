// The job and attempt `torcrun logs` shows: by id, by name (the lowest id of a shared name), the
// hint for a mistyped name, the latest attempt across runs, --attempt N in the latest run that
// has it, and each refusal verbatim.
#include "torcrun/cli/log_selection.hpp"

#include <boost/test/unit_test.hpp>

#include <vector>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(log_selection)

std::vector<core::named_job> const jobs{{4, "preprocess"}, {5, "training"}, {6, "training"},
                                        {12, "12"}};

BOOST_AUTO_TEST_CASE(a_job_is_found_by_id_or_name)
{
    auto by_id = core::find_job(jobs, "5", 3);
    BOOST_TEST_REQUIRE(by_id.has_value());
    BOOST_TEST(by_id->name == "training");
    auto by_name = core::find_job(jobs, "preprocess", 3);
    BOOST_TEST_REQUIRE(by_name.has_value());
    BOOST_TEST(by_name->id == 4);
    auto shared = core::find_job(jobs, "training", 3);
    BOOST_TEST_REQUIRE(shared.has_value());
    BOOST_TEST(shared->id == 5);
    // Digits are an id, even where a job is named so.
    auto digits = core::find_job(jobs, "12", 3);
    BOOST_TEST_REQUIRE(digits.has_value());
    BOOST_TEST(digits->id == 12);
}

BOOST_AUTO_TEST_CASE(unknown_jobs_are_named_with_the_closest_name)
{
    auto typo = core::find_job(jobs, "traning", 3);
    BOOST_TEST_REQUIRE(!typo.has_value());
    BOOST_TEST(typo.error().message ==
               "job \"traning\": workflow 3 has no job of that name (did you mean \"training\"?)");
    auto far = core::find_job(jobs, "zzz", 3);
    BOOST_TEST_REQUIRE(!far.has_value());
    BOOST_TEST(far.error().message == "job \"zzz\": workflow 3 has no job of that name");
    auto id = core::find_job(jobs, "99", 3);
    BOOST_TEST_REQUIRE(!id.has_value());
    BOOST_TEST(id.error().message == "job 99: workflow 3 has no such job");
}

BOOST_AUTO_TEST_CASE(the_latest_attempt_is_shown_unless_one_is_asked_for)
{
    std::vector<core::attempt_key> const attempts{{0, 2}, {1, 1}, {0, 1}, {1, 1}};
    auto latest = core::pick_attempt(attempts, std::nullopt, "\"t\" (job 5)", "failed");
    BOOST_TEST_REQUIRE(latest.has_value());
    BOOST_TEST((*latest == core::attempt_key{1, 1}));
    auto second = core::pick_attempt(attempts, 2, "\"t\" (job 5)", "failed");
    BOOST_TEST_REQUIRE(second.has_value());
    BOOST_TEST((*second == core::attempt_key{0, 2}));
    auto first = core::pick_attempt(attempts, 1, "\"t\" (job 5)", "failed");
    BOOST_TEST_REQUIRE(first.has_value());
    BOOST_TEST((*first == core::attempt_key{1, 1}));
}

BOOST_AUTO_TEST_CASE(missing_attempts_are_refused_by_name)
{
    auto none = core::pick_attempt({}, std::nullopt, "\"t\" (job 5)", "blocked");
    BOOST_TEST_REQUIRE(!none.has_value());
    BOOST_TEST(none.error().message == "\"t\" (job 5) has not run (status blocked): no logs yet");
    auto third = core::pick_attempt({{0, 2}, {0, 1}}, 3, "\"t\" (job 5)", "failed");
    BOOST_TEST_REQUIRE(!third.has_value());
    BOOST_TEST(third.error().message == "\"t\" (job 5) has no attempt 3 (its attempts: 1, 2)");
}

BOOST_AUTO_TEST_CASE(a_run_narrows_the_attempts)
{
    std::vector<core::attempt_key> const attempts{{1, 1}, {0, 1}, {0, 2}, {1, 2}};
    auto first_run = core::pick_attempt(attempts, std::nullopt, "\"t\" (job 5)", "failed", 0);
    BOOST_TEST_REQUIRE(first_run.has_value());
    BOOST_TEST((*first_run == core::attempt_key{0, 2}));
    auto one = core::pick_attempt(attempts, 1, "\"t\" (job 5)", "failed", 0);
    BOOST_TEST_REQUIRE(one.has_value());
    BOOST_TEST((*one == core::attempt_key{0, 1}));
    auto none = core::pick_attempt(attempts, 1, "\"t\" (job 5)", "failed", 4);
    BOOST_TEST_REQUIRE(!none.has_value());
    BOOST_TEST(none.error().message == "\"t\" (job 5) has no attempt in run 4 (its runs: 0, 1)");
    auto third = core::pick_attempt(attempts, 3, "\"t\" (job 5)", "failed", 1);
    BOOST_TEST_REQUIRE(!third.has_value());
    BOOST_TEST(third.error().message == "\"t\" (job 5) has no attempt 3 (its attempts: 1, 2)");
}

BOOST_AUTO_TEST_SUITE_END()
