// The distance behind "did you mean": swaps of neighbours count as one edit, and it is symmetric.
#include "torcrun/common/edit_distance.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace core = torcrun::core;

namespace {

struct distance_case {
    std::string a, b;
    std::size_t distance;
};
std::ostream& operator<<(std::ostream& os, distance_case const& c)
{
    return os << c.a << "/" << c.b;
}

std::vector<distance_case> const distances{
    {"mode", "mode", 0}, {"moed", "mode", 1},       {"mdoe", "mode", 1},
    {"mod", "mode", 1},  {"modes", "mode", 1},      {"", "abc", 3},
    {"ca", "abc", 3},    {"kitten", "sitting", 3}, {"databse", "database", 1},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(edit_distance)

BOOST_DATA_TEST_CASE(edit_distance_counts_swaps_as_one, bdata::make(distances), sample)
{
    BOOST_TEST(core::edit_distance(sample.a, sample.b) == sample.distance);
    BOOST_TEST(core::edit_distance(sample.b, sample.a) == sample.distance);
}

BOOST_AUTO_TEST_SUITE_END()
