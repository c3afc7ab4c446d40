// Reading what each partition holds from sinfo's node listing.
#include "torcrun/slurm/partition_limits.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(partition_limits)

BOOST_AUTO_TEST_CASE(nodes_of_a_partition_are_summed_and_the_smallest_counts)
{
    auto const listing = "gpu|g1|64|512000|gpu:a100:4(S:0-1)|2-00:00:00|1-8\n"
                         "debug*|n1|8|8000|gpu:4|infinite|1-infinite\n"
                         "debug*|n2|6|7000|(null)|infinite|1-infinite\n"
                         "gpu|g2|64|512000|gpu:a100:4(S:0-1)|2-00:00:00|1-8\n";
    auto const p = core::parse_partition_listing(listing);
    BOOST_TEST_REQUIRE(p.has_value(), p.error().message);
    BOOST_TEST_REQUIRE(p->size() == 2u);
    auto const& d = (*p)[0];
    BOOST_TEST(d.name == "debug");
    BOOST_TEST(d.is_default);
    BOOST_TEST(d.nodes == 2u);
    BOOST_TEST(d.cpus_per_node == 6u);
    BOOST_TEST(d.memory_per_node == 7000ull * 1024 * 1024);
    BOOST_TEST(d.gpus_per_node == 0u);
    BOOST_TEST(!d.max_time_seconds.has_value());
    BOOST_TEST(!d.max_job_nodes.has_value());
    BOOST_TEST(d.allocation_nodes() == 2u);
    auto const& g = (*p)[1];
    BOOST_TEST(g.name == "gpu");
    BOOST_TEST(g.gpus_per_node == 4u);
    BOOST_TEST(g.max_time_seconds.value_or(0) == 2 * 86400);
    BOOST_TEST(g.max_job_nodes.value_or(0) == 8u);
    BOOST_TEST(g.allocation_nodes() == 2u);  // 8 allowed, 2 there
}

BOOST_AUTO_TEST_CASE(gres_counts_only_gpus)
{
    BOOST_TEST(core::gres_gpu_count("(null)").value() == 0u);
    BOOST_TEST(core::gres_gpu_count("gpu:2,nvme:1").value() == 2u);
    BOOST_TEST(core::gres_gpu_count("gpu:a100:2(S:0),gpu:v100:1").value() == 3u);
    BOOST_TEST(!core::gres_gpu_count("gpu:lots").has_value());
}

BOOST_AUTO_TEST_CASE(bad_lines_are_named)
{
    auto const few = core::parse_partition_listing("debug*|n1|8\n");
    BOOST_TEST_REQUIRE(!few.has_value());
    BOOST_TEST(few.error().message.find("sinfo line 1: expected 7") == 0u, few.error().message);
    auto const cpus = core::parse_partition_listing("\ndebug*|n1|x|8000|(null)|infinite|1-infinite\n");
    BOOST_TEST_REQUIRE(!cpus.has_value());
    BOOST_TEST(cpus.error().message == "sinfo line 2: CPUs \"x\" is not a count");
    auto const time = core::parse_partition_listing("debug|n1|8|8000|(null)|1h|1-infinite");
    BOOST_TEST_REQUIRE(!time.has_value());
    BOOST_TEST(time.error().message == "sinfo line 1: time limit \"1h\" is not a Slurm time");
    BOOST_TEST(core::parse_partition_listing("").value().empty());
}

BOOST_AUTO_TEST_SUITE_END()
