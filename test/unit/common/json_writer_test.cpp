// The JSON writer: shortest-form numbers, indentation, escaping, and JSON5's non-finite words.
#include "torcrun/common/json_writer.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(json_writer)

struct number_case {
    double value;
    std::string text;
};
std::ostream& operator<<(std::ostream& os, number_case const& c) { return os << c.text; }

std::vector<number_case> const numbers{
    {5, "5"},
    {0.5, "0.5"},
    {0.1, "0.1"},
    {-2.25, "-2.25"},
    {0, "0"},
    {-0.0, "-0"},
    {1e6, "1000000"},
    {9007199254740991.0, "9007199254740991"},
    {9007199254740992.0, "9007199254740992"},
    {1e300, "1e+300"},
    {1.5e-7, "1.5e-07"},
    {NAN, "NaN"},
    {INFINITY, "Infinity"},
    {-INFINITY, "-Infinity"},
};

BOOST_DATA_TEST_CASE(numbers_take_their_shortest_form, bdata::make(numbers), sample)
{
    BOOST_TEST(core::format_number(sample.value) == sample.text);
}

struct document_case {
    std::string json;
    std::size_t indent;
    std::string text;
};
std::ostream& operator<<(std::ostream& os, document_case const& c) { return os << c.json; }

std::vector<document_case> const documents{
    {"{}", 4, "{}"},
    {"[]", 4, "[]"},
    {"null", 4, "null"},
    {R"("a\"b\n")", 4, R"("a\"b\n")"},
    {"[1,2.5,true]", 4, "[\n    1,\n    2.5,\n    true\n]"},
    {R"({"a":{"b":[]},"c":[{}]})", 2,
     "{\n  \"a\": {\n    \"b\": []\n  },\n  \"c\": [\n    {}\n  ]\n}"},
    {R"({"a":[1,"x"],"b":{"c":null}})", 0, R"({"a": [1, "x"], "b": {"c": null}})"},
    {"[18446744073709551615,-9223372036854775808]", 0,
     "[18446744073709551615, -9223372036854775808]"},
};

BOOST_DATA_TEST_CASE(documents_are_indented, bdata::make(documents), sample)
{
    BOOST_TEST(core::write_json(boost::json::parse(sample.json), sample.indent) == sample.text);
}

BOOST_AUTO_TEST_SUITE_END()
