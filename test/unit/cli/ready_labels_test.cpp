// ready_labels.hpp: the ready jobs counted by label and the lines `torcrun status` prints.
#include "torcrun/cli/ready_labels.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

#include <vector>

namespace apps = torcrun::apps;

namespace {

std::vector<boost::json::value> jobs(char const* text)
{
    auto const list = boost::json::parse(text).as_array();
    return {list.begin(), list.end()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ready_labels)

BOOST_AUTO_TEST_CASE(counts_per_label_then_the_unlabelled)
{
    auto const ready = jobs(R"([{"id":1},{"id":2,"label":"gpu"},{"id":3,"label":"big"},)"
                            R"({"id":4,"label":"gpu"},{"id":5,"label":null}])");
    auto const counts = apps::ready_labels(ready);
    BOOST_TEST_REQUIRE(counts.has_value());
    BOOST_TEST(boost::json::serialize(*counts) == R"({"big":1,"gpu":2,"":2})");
    BOOST_TEST(apps::ready_label_lines(*counts) ==
               "    label \"big\": 1\n    label \"gpu\": 2\n    no label: 2\n");
}

BOOST_AUTO_TEST_CASE(only_labelled_jobs_print_no_unlabelled_line)
{
    auto const counts = apps::ready_labels(jobs(R"([{"label":"gpu"}])"));
    BOOST_TEST_REQUIRE(counts.has_value());
    BOOST_TEST(apps::ready_label_lines(*counts) == "    label \"gpu\": 1\n");
}

BOOST_AUTO_TEST_CASE(no_labels_nothing_to_tell)
{
    BOOST_TEST(!apps::ready_labels(jobs(R"([{"id":1},{"id":2}])")).has_value());
    BOOST_TEST(!apps::ready_labels({}).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
