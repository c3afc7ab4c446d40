// Finding a step by its name in squeue's step list.
#include "torcrun/slurm/step_list.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(step_list)

BOOST_AUTO_TEST_CASE(finds_the_step_of_that_name)
{
    auto const lines = "   12.0 wf1_j2_r1_a1\n   12.1 wf1_j7_r1_a1\n12.extern extern\n";
    BOOST_TEST(core::step_id_named(lines, "wf1_j7_r1_a1").value_or("-") == "12.1");
    BOOST_TEST(core::step_id_named(lines, "wf1_j2_r1_a1").value_or("-") == "12.0");
}

BOOST_AUTO_TEST_CASE(a_prefix_of_a_name_is_not_that_name)
{
    auto const lines = "12.4 wf1_j7_r1_a11\n12.5 wf1_j7_r1_a1 \r\n";
    BOOST_TEST(core::step_id_named(lines, "wf1_j7_r1_a1").value_or("-") == "12.5");
    BOOST_TEST(!core::step_id_named(lines, "wf1_j7_r1_a").has_value());
}

BOOST_AUTO_TEST_CASE(no_step_and_odd_lines_give_nothing)
{
    BOOST_TEST(!core::step_id_named("", "wf1_j7_r1_a1").has_value());
    BOOST_TEST(!core::step_id_named("12.extern wf1_j7_r1_a1\n", "wf1_j7_r1_a1").has_value());
    BOOST_TEST(!core::step_id_named("wf1_j7_r1_a1\n.3 wf1_j7_r1_a1\n12. wf1_j7_r1_a1",
                                    "wf1_j7_r1_a1")
                    .has_value());
    BOOST_TEST(!core::step_id_named("squeue: error: Invalid job id specified\n", "job")
                    .has_value());
}

BOOST_AUTO_TEST_SUITE_END()
