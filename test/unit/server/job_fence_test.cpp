// The fence of a worker's job transition: who holds the job on which attempt, the message of each
// refusal verbatim, the repeats that are answered as success, and the hand-back.
#include "torcrun/server/job_fence.hpp"

#include "rules_printing.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace core = torcrun::core;
using st = core::job_status;

namespace {

core::job_state job7(st s, std::optional<std::int64_t> holder, std::int64_t attempt = 1)
{
    return {7, 3, s, attempt, holder};
}

core::job_fence node(std::int64_t n, std::optional<std::int64_t> attempt = std::nullopt)
{
    return {n, attempt};
}

std::string refusal(std::optional<core::rejection> const& r)
{
    return r ? std::to_string(r->http_status) + " " + r->message : "accepted";
}

std::string shown(core::decision<core::status_change> const& d)
{
    if (!d) return std::to_string(d.error().http_status) + " " + d.error().message;
    return std::string(d->changed ? "-> " : "stays ") + std::string(core::to_string(d->status));
}

constexpr core::run_ids same_run{2, 2};

}  // namespace

BOOST_AUTO_TEST_SUITE(job_fence)

BOOST_AUTO_TEST_CASE(holder_and_attempt)
{
    auto const running_on_1 = job7(st::running, 1, 2);
    BOOST_TEST(refusal(core::check_holder("complete_job", running_on_1, node(1, 2))) ==
               "accepted");
    BOOST_TEST(refusal(core::check_holder("complete_job", running_on_1, node(1))) == "accepted");
    BOOST_TEST(refusal(core::check_holder("complete_job", running_on_1, node(2, 2))) ==
               "409 complete_job: job 7 is held by compute node 1 on attempt 2, not by compute "
               "node 2");
    BOOST_TEST(refusal(core::check_holder("complete_job", running_on_1, node(1, 1))) ==
               "409 complete_job: job 7 is on attempt 2 (held by compute node 1), not on attempt "
               "1");
    BOOST_TEST(refusal(core::check_holder("complete_job", job7(st::ready, std::nullopt),
                                          node(1))) ==
               "409 complete_job: job 7 is \"ready\", held by no compute node, not by compute "
               "node 1");
    // Claimed without a claimant: any node, on its attempt.
    BOOST_TEST(refusal(core::check_holder("start_job", job7(st::pending, std::nullopt), node(2))) ==
               "accepted");
    BOOST_TEST(refusal(core::check_holder("start_job", job7(st::pending, std::nullopt, 2),
                                          node(2, 1))) ==
               "409 start_job: job 7 is on attempt 2, not on attempt 1");
    // Unfenced (a Torc v0.10 client): nothing to check here.
    BOOST_TEST(refusal(core::check_holder("complete_job", running_on_1, {})) == "accepted");
}

// An unfenced completion (a Torc v0.10 runner) is fenced by the node its result names: refused
// only when another node holds the job.
BOOST_AUTO_TEST_CASE(result_node)
{
    BOOST_TEST(refusal(core::check_result_node("complete_job", job7(st::running, 1), 2)) ==
               "409 complete_job: job 7 is held by compute node 1 on attempt 1, not by compute "
               "node 2");
    BOOST_TEST(refusal(core::check_result_node("batch_complete_jobs", job7(st::running, 1, 3),
                                               2)) ==
               "409 batch_complete_jobs: job 7 is held by compute node 1 on attempt 3, not by "
               "compute node 2");
    BOOST_TEST(refusal(core::check_result_node("complete_job", job7(st::running, 1), 1)) ==
               "accepted");
    // The holder's own result passes whatever attempt it is on (the result's attempt_id is not
    // read: v0.10 defaults it to 1).
    BOOST_TEST(refusal(core::check_result_node("complete_job", job7(st::running, 1, 4), 1)) ==
               "accepted");
    // Held by nobody: claimed without a claimant, or already finished (a repeat): the status
    // checks decide.
    BOOST_TEST(refusal(core::check_result_node("complete_job", job7(st::pending, std::nullopt),
                                               2)) == "accepted");
    BOOST_TEST(refusal(core::check_result_node("complete_job",
                                               job7(st::completed, std::nullopt), 2)) ==
               "accepted");
    BOOST_TEST(refusal(core::check_result_node("complete_job", job7(st::running, std::nullopt),
                                               2)) == "accepted");
}

BOOST_AUTO_TEST_CASE(repeats)
{
    BOOST_TEST(core::repeats_start(job7(st::running, 1), node(1)));
    BOOST_TEST(core::repeats_start(job7(st::running, 1, 2), node(1, 2)));
    BOOST_TEST(!core::repeats_start(job7(st::running, 1, 2), node(1, 1)));
    BOOST_TEST(!core::repeats_start(job7(st::running, 2), node(1)));
    BOOST_TEST(!core::repeats_start(job7(st::pending, 1), node(1)));
    BOOST_TEST(!core::repeats_start(job7(st::running, 1), {}));

    core::kept_result const kept{1, 2, 5, st::completed};
    auto const done = job7(st::completed, std::nullopt, 2);
    BOOST_TEST(core::repeats_completion(st::completed, 5, done, kept, node(1, 2)));
    BOOST_TEST(core::repeats_completion(st::completed, 5, done, kept, node(1)));
    BOOST_TEST(!core::repeats_completion(st::failed, 5, done, kept, node(1, 2)));
    BOOST_TEST(!core::repeats_completion(st::completed, 4, done, kept, node(1, 2)));
    BOOST_TEST(!core::repeats_completion(st::completed, 5, done, kept, node(2, 2)));
    BOOST_TEST(!core::repeats_completion(st::completed, 5, done, kept, node(1, 1)));
    BOOST_TEST(!core::repeats_completion(st::completed, 5, done, std::nullopt, node(1, 2)));
    BOOST_TEST(!core::repeats_completion(st::completed, 5, done, kept, {}));

    // A retry is repeated only by the node it was applied for, for the same attempt and run.
    core::applied_retry const retried{1, 2, 5};
    BOOST_TEST(core::repeats_retry(5, retried, node(1, 2)));
    BOOST_TEST(!core::repeats_retry(5, retried, node(1)));
    BOOST_TEST(!core::repeats_retry(5, retried, node(2, 2)));
    BOOST_TEST(!core::repeats_retry(5, retried, node(1, 1)));
    BOOST_TEST(!core::repeats_retry(4, retried, node(1, 2)));
    BOOST_TEST(!core::repeats_retry(5, std::nullopt, node(1, 2)));
    BOOST_TEST(!core::repeats_retry(5, retried, {}));
}

// A job the lease sweep put back on the next attempt is no retry of the lost node's attempt, from
// whichever node the late request comes; a held job answers as check_holder does.
BOOST_AUTO_TEST_CASE(retry_holder)
{
    auto const bumped = job7(st::ready, std::nullopt, 2);
    BOOST_TEST(refusal(core::check_retry_holder(bumped, node(5, 1))) ==
               "409 retry: job 7 is \"ready\" on attempt 2, held by no compute node, not on "
               "attempt 1 of compute node 5");
    BOOST_TEST(refusal(core::check_retry_holder(job7(st::running, 6, 2), node(5, 1))) ==
               "409 retry: job 7 is held by compute node 6 on attempt 2, not by compute node 5");
    BOOST_TEST(refusal(core::check_retry_holder(job7(st::running, 5, 2), node(5, 1))) ==
               "409 retry: job 7 is on attempt 2 (held by compute node 5), not on attempt 1");
    BOOST_TEST(refusal(core::check_retry_holder(job7(st::running, 5, 2), node(5, 2))) ==
               "accepted");
    // A failed or terminated job is held by nobody but keeps its attempt.
    BOOST_TEST(refusal(core::check_retry_holder(job7(st::failed, std::nullopt, 2), node(5, 2))) ==
               "accepted");
    BOOST_TEST(refusal(core::check_retry_holder(job7(st::failed, std::nullopt, 2), node(5))) ==
               "accepted");
    BOOST_TEST(refusal(core::check_retry_holder(bumped, {})) == "accepted");  // Torc v0.10
}

BOOST_AUTO_TEST_CASE(hand_back)
{
    auto back = [](std::optional<core::job_state> job, core::job_fence fence,
                   st to = st::ready, core::run_ids run = same_run) {
        return shown(core::decide_hand_back(7, to, job, run, fence));
    };
    BOOST_TEST(back(job7(st::pending, 1), node(1)) == "-> ready");
    BOOST_TEST(back(job7(st::running, 1, 2), node(1, 2)) == "-> ready");
    BOOST_TEST(back(job7(st::ready, std::nullopt), node(1)) == "stays ready");
    BOOST_TEST(back(job7(st::pending, 2), node(1)) ==
               "409 manage_status_change: job 7 is held by compute node 2 on attempt 1, not by "
               "compute node 1");
    BOOST_TEST(back(job7(st::completed, std::nullopt), node(1)) ==
               "409 manage_status_change: job 7 is \"completed\"; a compute node hands back only "
               "a pending or running job");
    BOOST_TEST(back(job7(st::blocked, std::nullopt), node(1)) ==
               "409 manage_status_change: job 7 is \"blocked\"; a compute node hands back only a "
               "pending or running job");
    BOOST_TEST(back(job7(st::pending, 1), node(1), st::blocked) ==
               "409 manage_status_change: a compute node hands a job back to \"ready\" only, not "
               "to \"blocked\"");
    BOOST_TEST(back(std::nullopt, node(1)) == "404 manage_status_change: no job has id 7");
    BOOST_TEST(back(job7(st::pending, 1), node(1), st::ready, {1, 2}) ==
               "422 manage_status_change: run_id 1 is not the workflow's current run_id 2");
}

BOOST_AUTO_TEST_SUITE_END()
