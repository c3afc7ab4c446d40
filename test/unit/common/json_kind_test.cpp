// How messages name a JSON value's kind ("expected an object, found a string"), as the server's
// request decoding, the worker's reply decoding and the configuration reader all word it.
#include "torcrun/common/json_kind.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace detail = torcrun::api::detail;

namespace {

struct kind_case {
    std::string json;
    std::string name;
};
std::ostream& operator<<(std::ostream& os, kind_case const& c)
{
    return os << c.json;
}

std::vector<kind_case> const kinds = {
    {"null", "null"},          {"true", "a boolean"},      {"-3", "an integer"},
    {"18446744073709551615", "an integer"},                {"1.5", "a number"},
    {"\"x\"", "a string"},    {"[1]", "an array"},        {"{}", "an object"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(json_kind)

BOOST_DATA_TEST_CASE(every_kind_has_its_name, bdata::make(kinds), c)
{
    BOOST_TEST(detail::describe(boost::json::parse(c.json)) == c.name);
}

BOOST_AUTO_TEST_CASE(quoted_puts_text_in_double_quotes)
{
    BOOST_TEST(detail::quoted("poll.interval") == "\"poll.interval\"");
    BOOST_TEST(detail::quoted("") == "\"\"");
}

BOOST_AUTO_TEST_SUITE_END()
