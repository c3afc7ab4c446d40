// Parameter value strings (docs/TORC-COMPATIBILITY.md §4.4): every result Torc's real code gave
// (below), the grammar's edges, every error message and the float-range warning (§4.10 item 4).
#include "torcrun/spec/parameter_values.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace spec = torcrun::core::spec;

namespace {

// "i:7", "f:0.5", "s:abc": the type and the plain form, so NaN compares and 2 != 2.0.
std::string describe(spec::parameter_value const& v)
{
    char const* const tag = std::holds_alternative<std::int64_t>(v.v) ? "i:"
                            : std::holds_alternative<double>(v.v)     ? "f:"
                                                                      : "s:";
    return tag + spec::plain_form(v);
}

std::vector<std::string> describe_all(std::vector<spec::parameter_value> const& values)
{
    std::vector<std::string> out;
    for (auto const& v : values) out.push_back(describe(v));
    return out;
}

struct values_case {
    std::string text;
    std::vector<std::string> expected;
};
std::ostream& operator<<(std::ostream& os, values_case const& c)
{
    return os << '"' << c.text << '"';
}

// What Torc 0.10's `parse_parameter_value`, compiled and run on its own, returned, row by row.
std::vector<values_case> const spec_table{
    {"1:5", {"i:1", "i:2", "i:3", "i:4", "i:5"}},
    {"1:10:3", {"i:1", "i:4", "i:7", "i:10"}},
    {"10:1:-3", {"i:10", "i:7", "i:4", "i:1"}},
    {"10:1", {}},
    {"0.0:1.0:0.1",
     {"f:0", "f:0.1", "f:0.2", "f:0.30000000000000004", "f:0.4", "f:0.5", "f:0.6", "f:0.7",
      "f:0.7999999999999999", "f:0.8999999999999999", "f:0.9999999999999999"}},
    {"0.1:1.0:0.1",
     {"f:0.1", "f:0.2", "f:0.30000000000000004", "f:0.4", "f:0.5", "f:0.6", "f:0.7",
      "f:0.7999999999999999", "f:0.8999999999999999", "f:0.9999999999999999"}},
    {"1.5:3", {"f:1.5", "f:2.5"}},
    {"0.0001:0.01:10", {"f:0.0001"}},
    {"[1, 2.0, 'a', \"b\", nan, inf, 1e3]",
     {"i:1", "f:2", "s:a", "s:b", "f:NaN", "f:inf", "f:1000"}},
    {"[]", {}},
    {"{1:5}", {"i:1", "i:2", "i:3", "i:4", "i:5"}},
    {"abc", {"s:abc"}},
    {" 5 ", {"i:5"}},
};

// The grammar's corners, each following Torc's code.
std::vector<values_case> const grammar_edges{
    {"{ 1:3 }", {"i:1", "i:2", "i:3"}},
    {"{1,2}", {"s:{1,2}"}},  // a comma keeps the braces, and no colon makes it a scalar
    {"{abc}", {"s:abc"}},
    {"{}", {"s:"}},
    {"", {"s:"}},
    {"[[1, 2]]", {"i:1", "i:2"}},
    {"[1,,2]", {"i:1", "s:", "i:2"}},
    {"['a,b']", {"s:a", "s:b"}},  // quotes do not protect commas
    {"[' x ']", {"s: x "}},
    {"[\"'q'\"]", {"s:'q'"}},  // single quotes are stripped first, then double
    {"['\"q\"']", {"s:q"}},
    {"[ 007 , -0 , +3 ]", {"i:7", "i:0", "i:3"}},
    {"[1.0, -0.0, .5, 5.]", {"f:1", "f:-0", "f:0.5", "f:5"}},
    {"[9223372036854775808]", {"f:9223372036854776000"}},  // shortest digits, zero-padded
    {"\u00A0[1]\u3000", {"i:1"}},
    {"[1,2", {"s:[1,2"}},
    {"1:5:", {"i:1", "i:2", "i:3", "i:4", "i:5"}},  // an empty step is the default
    {" 1 : 3 ", {"i:1", "i:2", "i:3"}},
    {"+1:+3:+1", {"i:1", "i:2", "i:3"}},
    {"-3:-1", {"i:-3", "i:-2", "i:-1"}},
    {"5:5", {"i:5"}},
    {"1:5:-1", {}},
    {"5:1:1", {}},
    {"1:100:1000", {"i:1"}},
    {"9223372036854775806:9223372036854775807",
     {"i:9223372036854775806", "i:9223372036854775807"}},  // Torc's i64 would overflow here
    {"9223372036854775807:-9223372036854775808:-9223372036854775808",
     {"i:9223372036854775807", "i:-1"}},
    {"1.0:2", {"f:1", "f:2"}},
    {"1:2.5", {"f:1", "f:2"}},
    {"1.0:0.0:-0.5", {"f:1", "f:0.5", "f:0"}},
    {"0.1:0.3:0.1", {"f:0.1", "f:0.2", "f:0.30000000000000004"}},
    {"1e0:3e0", {"f:1", "f:2", "f:3"}},
    {"1.0:1.0:0.5", {"f:1"}},
    {"0.5:0.1:1.0", {}},
    {"nan:1", {}},
    {"0.0:1.0:nan", {}},  // a NaN step takes the descending branch, which fails at once
    {"1.0:0.0:nan", {"f:1"}},
    {"1e3", {"f:1000"}},
    {"-0", {"i:0"}},
    {"-0.0", {"f:-0"}},
    {"NaN", {"f:NaN"}},
    {"'a'", {"s:'a'"}},  // quotes are stripped in lists only
    {"a b", {"s:a b"}},
};

struct error_case {
    std::string name;
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << '"' << c.text << '"';
}

std::vector<error_case> const error_cases{
    {"lr", "0:1:0.25",
     "parameter \"lr\": \"0:1:0.25\" is an integer range with a non-integer step \"0.25\""},
    {"n", "1:2:x", "parameter \"n\": \"1:2:x\" is an integer range with a non-integer step \"x\""},
    {"n", "1:5:0", "parameter \"n\": \"1:5:0\" has a zero step"},
    {"f", " @values.txt", "parameter \"f\": \" @values.txt\" is a file-backed list (newer Torc "
                          "reads one value per line of the file after '@'), which torcrun does "
                          "not read yet; write the values as a list or a range, or use "
                          "parameters_file"},
    {"t", "12:30:00", "parameter \"t\": \"12:30:00\" has a zero step"},
    {"x", "0.0:1.0:0.0", "parameter \"x\": \"0.0:1.0:0.0\" has a zero step"},
    {"x", "0.0:1.0:-0", "parameter \"x\": \"0.0:1.0:-0\" has a zero step"},
    {"x", " {1:5:0} ", "parameter \"x\": \" {1:5:0} \" has a zero step"},
    {"x", "0.0:1.0:abc",
     "parameter \"x\": \"0.0:1.0:abc\" is a float range with a non-numeric step \"abc\""},
    {"t", "1:2:3:4",
     "parameter \"t\": \"1:2:3:4\" has 4 parts; a range is start:end or start:end:step"},
    {"x", "a:b", "parameter \"x\": \"a:b\" is a range whose start and end are not numbers"},
    {"x", "1:", "parameter \"x\": \"1:\" is a range whose start and end are not numbers"},
    {"url", "http://x",
     "parameter \"url\": \"http://x\" is a range whose start and end are not numbers"},
    {"m", "{a:1,b:2}",
     "parameter \"m\": \"{a:1,b:2}\" is a range whose start and end are not numbers"},
    {"x", "0:inf", "parameter \"x\": \"0:inf\" yields more than 1000000 values"},
    {"x", "1.0:2.0:1e-20", "parameter \"x\": \"1.0:2.0:1e-20\" yields more than 1000000 values"},
    {"x", "0:1:nan",
     "parameter \"x\": \"0:1:nan\" is an integer range with a non-integer step \"nan\""},
    {"x", "0:1000000", "parameter \"x\": \"0:1000000\" yields more than 1000000 values"},
    {"x", "-9223372036854775808:9223372036854775807",
     "parameter \"x\": \"-9223372036854775808:9223372036854775807\" yields more than 1000000 "
     "values"},
};

struct warning_case {
    std::string name;
    std::string text;
    std::vector<std::string> warnings;
};
std::ostream& operator<<(std::ostream& os, warning_case const& c)
{
    return os << '"' << c.text << '"';
}

std::vector<warning_case> const warning_cases{
    {"lr",
     "0.0001:0.01:10",
     {"parameter \"lr\": \"0.0001:0.01:10\" yields the single value 0.0001: its step 10 exceeds "
      "the span, and steps are added, not multiplied"}},
    {"x",
     "0.0:-1.0:-5",
     {"parameter \"x\": \"0.0:-1.0:-5\" yields the single value 0: its step -5 exceeds the "
      "span, and steps are added, not multiplied"}},
    {"x", "1.0:1.0:0.5", {}},  // a one-point range asks for one value
    {"x", "1:100:1000", {}},   // integer ranges are not item 4
    {"x", "1.5:3", {}},
    {"x", "0.0:1.0:-2", {}},  // zero values, not one
    {"x", "[0.5]", {}},
};

struct plain_case {
    spec::parameter_value value;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, plain_case const& c) { return os << c.expected; }

std::vector<plain_case> const plain_cases{
    {{std::int64_t{-42}}, "-42"},
    {{std::numeric_limits<std::int64_t>::min()}, "-9223372036854775808"},
    {{std::string("{i}")}, "{i}"},
    {{std::string("")}, ""},
    {{1.0}, "1"},
    {{0.1 + 0.2}, "0.30000000000000004"},
    {{-0.0}, "-0"},
    {{1e-7}, "0.0000001"},
    {{std::numeric_limits<double>::quiet_NaN()}, "NaN"},
    {{-std::numeric_limits<double>::infinity()}, "-inf"},
};

BOOST_AUTO_TEST_SUITE(spec_parameter_values)

BOOST_DATA_TEST_CASE(spec_table_rows, bdata::make(spec_table), c)
{
    auto const r = spec::parse_parameter_values(c.text, "p");
    BOOST_REQUIRE(r.has_value());
    BOOST_TEST(describe_all(r->values) == c.expected, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(grammar_edges_follow_torc, bdata::make(grammar_edges), c)
{
    auto const r = spec::parse_parameter_values(c.text, "p");
    BOOST_REQUIRE(r.has_value());
    BOOST_TEST(describe_all(r->values) == c.expected, boost::test_tools::per_element());
    BOOST_TEST(r->warnings.empty());
}

BOOST_DATA_TEST_CASE(errors_name_the_parameter_and_quote_the_text, bdata::make(error_cases), c)
{
    auto const r = spec::parse_parameter_values(c.text, c.name);
    BOOST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_DATA_TEST_CASE(float_range_with_a_step_past_the_span_warns, bdata::make(warning_cases), c)
{
    auto const r = spec::parse_parameter_values(c.text, c.name);
    BOOST_REQUIRE(r.has_value());
    BOOST_TEST(r->warnings == c.warnings, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(plain_form_is_rust_display, bdata::make(plain_cases), c)
{
    BOOST_TEST(spec::plain_form(c.value) == c.expected);
}

BOOST_AUTO_TEST_CASE(the_largest_range_allowed_is_max_parameter_values)
{
    auto const r = spec::parse_parameter_values("1:1000000", "n");
    BOOST_REQUIRE(r.has_value());
    BOOST_TEST(r->values.size() == spec::max_parameter_values);
    BOOST_TEST(describe(r->values.back()) == "i:1000000");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
