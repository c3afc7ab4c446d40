// The allocator's decisions: what to allocate for which ready jobs, what to cancel, what to name.
#include "torcrun/cli/auto_schedule.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

namespace {

constexpr std::uint64_t gib = 1024ull * 1024 * 1024;

// The lab: 2 nodes of 8 CPUs, 8 GiB and 4 GPUs, no time limit.
core::partition_limits lab()
{
    return {"debug", true, 2, std::nullopt, 8, 8 * gib, 4, std::nullopt};
}

std::vector<core::waiting_job> jobs(std::int64_t first, int n, std::uint32_t cpus,
                                    std::uint32_t gpus = 0, std::uint32_t nodes = 1,
                                    std::int64_t runtime = 60, std::uint64_t memory = gib / 8)
{
    std::vector<core::waiting_job> out;
    for (int i = 0; i < n; ++i) {
        out.push_back({first + i, "j" + std::to_string(first + i),
                       {cpus, gpus, nodes, memory}, runtime});
    }
    return out;
}

core::auto_schedule_policy fresh() { return {}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(auto_schedule)

BOOST_AUTO_TEST_CASE(forty_one_cpu_jobs_fill_both_nodes_for_three_rounds)
{
    auto const d = core::decide_allocations(jobs(1, 40, 1), {}, {lab()}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 1u);
    auto const& a = d.submit[0];
    BOOST_TEST(a.nodes == 2u);
    BOOST_TEST(a.gpus_per_node == 0u);
    BOOST_TEST(a.partition == "debug");
    BOOST_TEST(a.job_ids.size() == 40u);
    // 16 at once: 3 rounds of 60 s, plus 10% and 60 s headroom.
    BOOST_TEST(a.walltime_seconds == 180 + 18 + 60);
    BOOST_TEST(d.cancel.empty());
    BOOST_TEST(d.never_fits.empty());
}

BOOST_AUTO_TEST_CASE(a_few_jobs_get_only_the_nodes_they_fill)
{
    auto const d = core::decide_allocations(jobs(1, 3, 2), {}, {lab()}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 1u);
    BOOST_TEST(d.submit[0].nodes == 1u);
    BOOST_TEST(d.submit[0].walltime_seconds == 60 + 6 + 60);
}

BOOST_AUTO_TEST_CASE(gpu_jobs_ask_for_the_partitions_gpus)
{
    auto const d = core::decide_allocations(jobs(41, 16, 1, 1), {}, {lab()}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 1u);
    BOOST_TEST(d.submit[0].nodes == 2u);
    BOOST_TEST(d.submit[0].gpus_per_node == 4u);
    BOOST_TEST(d.submit[0].job_ids.size() == 16u);  // 8 at once, two rounds
}

BOOST_AUTO_TEST_CASE(a_two_node_job_gets_two_nodes)
{
    auto const d = core::decide_allocations(jobs(57, 1, 1, 0, 2), {}, {lab()}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 1u);
    BOOST_TEST(d.submit[0].nodes == 2u);
    BOOST_TEST(d.submit[0].job_ids == std::vector<std::int64_t>{57});
}

BOOST_AUTO_TEST_CASE(shapes_are_grouped_and_each_gets_its_allocation)
{
    auto ready = jobs(1, 4, 1);
    auto const gpu = jobs(10, 2, 1, 1);
    ready.insert(ready.end(), gpu.begin(), gpu.end());
    auto const d = core::decide_allocations(ready, {}, {lab()}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 2u);
    BOOST_TEST(d.submit[0].job_ids == (std::vector<std::int64_t>{1, 2, 3, 4}));
    BOOST_TEST(d.submit[0].gpus_per_node == 0u);
    BOOST_TEST(d.submit[1].job_ids == (std::vector<std::int64_t>{10, 11}));
    BOOST_TEST(d.submit[1].gpus_per_node == 4u);
}

BOOST_AUTO_TEST_CASE(nothing_ready_nothing_allocated)
{
    auto const d = core::decide_allocations({}, {}, {lab()}, fresh(), 0);
    BOOST_TEST(d.submit.empty());
    BOOST_TEST(d.cancel.empty());
}

BOOST_AUTO_TEST_CASE(a_running_allocation_that_holds_the_jobs_means_no_new_one)
{
    core::live_allocation const running{7, false, 2, 8, 8 * gib, 0, 600};
    auto const d = core::decide_allocations(jobs(1, 40, 1), {running}, {lab()}, fresh(), 0);
    BOOST_TEST(d.submit.empty());
}

BOOST_AUTO_TEST_CASE(a_running_allocation_without_gpus_does_not_count_for_gpu_jobs)
{
    core::live_allocation const running{7, false, 2, 8, 8 * gib, 0, 600};
    auto const d = core::decide_allocations(jobs(41, 16, 1, 1), {running}, {lab()}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 1u);
    BOOST_TEST(d.submit[0].gpus_per_node == 4u);
}

BOOST_AUTO_TEST_CASE(too_short_an_allocation_does_not_count)
{
    core::live_allocation const running{7, false, 2, 8, 8 * gib, 0, 120};
    auto const d = core::decide_allocations(jobs(1, 2, 1, 0, 1, 3600), {running}, {lab()}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 1u);
}

BOOST_AUTO_TEST_CASE(more_for_a_shape_a_live_allocation_runs_follows_threshold_and_cooldown)
{
    // 1 node for 60 s: holds 8 of the 40.
    core::live_allocation const small{7, false, 1, 8, 8 * gib, 0, 60};
    auto const ready = jobs(1, 40, 1);
    auto early = core::decide_allocations(ready, {small}, {lab()}, fresh(), 100);
    BOOST_TEST(early.submit.empty());
    BOOST_TEST_REQUIRE(early.waiting.size() == 1u);
    BOOST_TEST(early.waiting[0].find("32 jobs (job 9") == 0u, early.waiting[0]);
    auto const late = core::decide_allocations(ready, {small}, {lab()}, fresh(), 1800);
    BOOST_TEST_REQUIRE(late.submit.size() == 1u);
    BOOST_TEST(late.submit[0].job_ids.front() == 9);
    auto few = jobs(1, 10, 1);
    auto const below = core::decide_allocations(few, {small}, {lab()}, fresh(), 1800);
    BOOST_TEST(below.submit.empty());  // 2 left, threshold 5
    auto const stranded = core::decide_allocations(few, {small}, {lab()}, fresh(), 7200);
    BOOST_TEST(stranded.submit.size() == 1u);
    auto never = fresh();
    never.stranded_timeout_seconds = 0;
    BOOST_TEST(core::decide_allocations(few, {small}, {lab()}, never, 1e6).submit.empty());
}

BOOST_AUTO_TEST_CASE(queued_allocations_with_no_work_are_cancelled_and_others_kept)
{
    core::live_allocation const cpu{11, true, 2, 8, 8 * gib, 0, 600};
    core::live_allocation const gpu{12, true, 2, 8, 8 * gib, 4, 600};
    core::live_allocation hand{13, true, 1, 8, 8 * gib, 0, 600};
    hand.automatic = false;
    auto const d = core::decide_allocations(jobs(41, 4, 1, 1), {cpu, gpu, hand}, {lab()}, fresh(), 0);
    BOOST_TEST(d.submit.empty());
    BOOST_TEST(d.cancel == std::vector<std::int64_t>{11});
    // Nothing ready at all: every automatic queued one goes.
    auto const none = core::decide_allocations({}, {cpu, gpu, hand}, {lab()}, fresh(), 0);
    BOOST_TEST(none.cancel == (std::vector<std::int64_t>{11, 12}));
}

BOOST_AUTO_TEST_CASE(max_queued_caps_what_waits)
{
    core::live_allocation const q1{11, true, 1, 8, 8 * gib, 0, 600};
    auto policy = fresh();
    policy.max_queued = 1;
    auto ready = jobs(1, 2, 1);
    auto const gpu = jobs(10, 2, 1, 1);
    ready.insert(ready.end(), gpu.begin(), gpu.end());
    auto const d = core::decide_allocations(ready, {q1}, {lab()}, policy, 0);
    BOOST_TEST(d.submit.empty());
    BOOST_TEST_REQUIRE(d.waiting.size() == 1u);
    BOOST_TEST(d.waiting[0].find("max_queued 1") != std::string::npos, d.waiting[0]);
    policy.max_queued = 2;
    BOOST_TEST(core::decide_allocations(ready, {q1}, {lab()}, policy, 0).submit.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_job_no_partition_holds_is_named_with_the_limit)
{
    auto const wide = core::decide_allocations(jobs(5, 1, 16), {}, {lab()}, fresh(), 0);
    BOOST_TEST(wide.submit.empty());
    BOOST_TEST_REQUIRE(wide.never_fits.size() == 1u);
    BOOST_TEST(wide.never_fit_ids == std::vector<std::int64_t>{5});
    BOOST_TEST(wide.never_fits[0] ==
               "job 5 \"j5\" fits no partition: it needs 16 CPUs per node; partition \"debug\" has 8");
    auto const nodes = core::decide_allocations(jobs(6, 1, 1, 0, 3), {}, {lab()}, fresh(), 0);
    BOOST_TEST(nodes.never_fits.at(0) ==
               "job 6 \"j6\" fits no partition: it needs 3 nodes; partition \"debug\" allows 2 nodes per allocation");
    auto const gpus = core::decide_allocations(jobs(7, 1, 1, 5), {}, {lab()}, fresh(), 0);
    BOOST_TEST(gpus.never_fits.at(0).find("needs 5 GPUs per node; partition \"debug\" has 4") != std::string::npos);
    auto const memory = core::decide_allocations(jobs(8, 1, 1, 0, 1, 60, 9 * gib), {}, {lab()}, fresh(), 0);
    BOOST_TEST(memory.never_fits.at(0).find("needs 9.0 GiB of memory per node; partition \"debug\" has 8.0 GiB") != std::string::npos, memory.never_fits.at(0));
    auto limited = lab();
    limited.max_time_seconds = 3600;
    auto const time = core::decide_allocations(jobs(9, 1, 1, 0, 1, 7200), {}, {limited}, fresh(), 0);
    BOOST_TEST(time.never_fits.at(0).find("needs a runtime of 7200 s; partition \"debug\" allows 3600 s") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_first_partition_that_holds_the_shape_is_taken)
{
    auto big = lab();
    big.name = "big";
    big.is_default = false;
    big.cpus_per_node = 64;
    auto const d = core::decide_allocations(jobs(1, 1, 32), {}, {lab(), big}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() == 1u);
    BOOST_TEST(d.submit[0].partition == "big");
    auto only = fresh();
    only.partition = "debug";
    auto const refused = core::decide_allocations(jobs(1, 1, 32), {}, {lab(), big}, only, 0);
    BOOST_TEST(refused.submit.empty());
    BOOST_TEST(refused.never_fits.size() == 1u);
    only.partition = "nope";
    auto const unknown = core::decide_allocations(jobs(1, 1, 1), {}, {lab()}, only, 0);
    BOOST_TEST(unknown.never_fits.at(0).find("partition \"nope\" is not in sinfo's list") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(walltime_stays_within_the_partition_limit)
{
    auto limited = lab();
    limited.max_time_seconds = 200;
    auto const d = core::decide_allocations(jobs(1, 40, 1, 0, 1, 120), {}, {limited}, fresh(), 0);
    BOOST_TEST_REQUIRE(d.submit.size() >= 1u);
    BOOST_TEST(d.submit[0].walltime_seconds == 200);
    BOOST_TEST(d.submit[0].job_ids.size() == 16u);  // one round fits in 200 s
}

BOOST_AUTO_TEST_CASE(max_nodes_caps_an_allocation)
{
    auto policy = fresh();
    policy.max_nodes = 1;
    auto const d = core::decide_allocations(jobs(1, 40, 1), {}, {lab()}, policy, 0);
    BOOST_TEST_REQUIRE(!d.submit.empty());
    BOOST_TEST(d.submit[0].nodes == 1u);
}

BOOST_AUTO_TEST_CASE(retry_waits_grow_and_times_are_slurms)
{
    BOOST_TEST(core::sbatch_retry_delay(1) == 10);
    BOOST_TEST(core::sbatch_retry_delay(2) == 20);
    BOOST_TEST(core::sbatch_retry_delay(3) == 40);
    BOOST_TEST(core::sbatch_retry_delay(30) == 600);
    BOOST_TEST(core::slurm_time(258) == "00:04:18");
    BOOST_TEST(core::slurm_time(5) == "00:01:00");
    BOOST_TEST(core::slurm_time(90061) == "1-01:01:01");
}

BOOST_AUTO_TEST_SUITE_END()
