// Which failed jobs `watch --recover` runs again, and with what.
#include "torcrun/cli/job_recovery.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

namespace {

core::failed_job job(std::int64_t id, int rc, std::uint64_t memory = 200ull << 20, double runtime = 60)
{
    core::requirement_values r;
    r.id = 3;
    r.name = "small";
    r.memory_bytes = memory;
    r.runtime_seconds = runtime;
    return {id, "j" + std::to_string(id), rc, r};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(job_recovery)

BOOST_AUTO_TEST_CASE(out_of_memory_gets_multiplied_memory)
{
    core::recovery_policy p;
    p.memory_multiplier = 2;
    auto const d = core::decide_recovery({job(5, 137)}, p, {});
    BOOST_TEST_REQUIRE(d.retry.size() == 1u);
    auto const& r = d.retry[0];
    BOOST_TEST((r.kind == core::failure_kind::out_of_memory));
    BOOST_TEST_REQUIRE(r.new_requirement.has_value());
    BOOST_TEST(r.new_requirement->memory_bytes == 400ull << 20);
    BOOST_TEST(r.new_requirement->runtime_seconds == 60);
    BOOST_TEST(r.new_requirement->name == "small_recovered_j5_1");
    BOOST_TEST(r.line == "job 5 \"j5\" (rc 137): out of memory; memory 200m -> 400m (new resource "
                         "requirement \"small_recovered_j5_1\"); run again (recovery 1)");
}

BOOST_AUTO_TEST_CASE(out_of_time_gets_multiplied_runtime_in_whole_minutes)
{
    core::recovery_policy p;  // 1.5
    auto const d = core::decide_recovery({job(6, 152, 0, 100)}, p, {});
    BOOST_TEST_REQUIRE(d.retry.size() == 1u);
    BOOST_TEST(d.retry[0].new_requirement->runtime_seconds == 180);
    BOOST_TEST(d.retry[0].line.find("out of time; runtime 100 s -> 180 s") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(other_failures_only_with_retry_unknown)
{
    core::recovery_policy p;
    auto const skipped = core::decide_recovery({job(7, 1)}, p, {});
    BOOST_TEST(skipped.retry.empty());
    BOOST_TEST(skipped.left.at(0).find("--retry-unknown") != std::string::npos);
    p.retry_unknown = true;
    auto const again = core::decide_recovery({job(7, 1)}, p, {});
    BOOST_TEST_REQUIRE(again.retry.size() == 1u);
    BOOST_TEST(!again.retry[0].new_requirement.has_value());
}

BOOST_AUTO_TEST_CASE(at_most_max_retries)
{
    core::recovery_policy p;
    p.max_retries = 2;
    BOOST_TEST(core::decide_recovery({job(5, 137)}, p, {{5, 1}}).retry.size() == 1u);
    auto const d = core::decide_recovery({job(5, 137)}, p, {{5, 2}});
    BOOST_TEST(d.retry.empty());
    BOOST_TEST(d.left.at(0) == "job 5 \"j5\" (rc 137): run again 2 times already (--max-retries 2)");
}

BOOST_AUTO_TEST_CASE(nothing_to_multiply_is_said)
{
    core::recovery_policy p;
    BOOST_TEST(core::decide_recovery({job(5, 137, 0)}, p, {}).left.at(0).find("no memory") != std::string::npos);
    auto bare = job(5, 152);
    bare.requirement.reset();
    BOOST_TEST(core::decide_recovery({bare}, p, {}).left.at(0).find("no resource requirement") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
