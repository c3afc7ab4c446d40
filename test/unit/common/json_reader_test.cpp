// The JSON/JSON5 reader: every accepted form gives the value Boost.JSON gives for its strict
// spelling, every syntax error message verbatim with its line:column, positions of nested
// values, keys and array elements, the depth limit, and Torc's own JSON5 example specs.
#include "torcrun/common/json_reader.hpp"

#include "unit/spec/torc_example_specs.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(json_reader)

struct accepted_case {
    std::string text;
    std::string strict;  // the same value in strict JSON, as Boost.JSON reads it
};
std::ostream& operator<<(std::ostream& os, accepted_case const& c) { return os << c.text; }

std::vector<accepted_case> const accepted{
    {"{}", "{}"},
    {"[]", "[]"},
    {"null", "null"},
    {"true", "true"},
    {"false", "false"},
    {" \t\r\n[1, 2]\n", "[1,2]"},
    {R"({"a": [1, {"b": null}], "c": "d"})", R"({"a":[1,{"b":null}],"c":"d"})"},
    {R"({"": 1})", R"({"":1})"},
    // numbers, with the integer kinds Boost.JSON picks
    {"0", "0"},
    {"-0", "0"},
    {"42", "42"},
    {"-42", "-42"},
    {"9223372036854775807", "9223372036854775807"},
    {"9223372036854775808", "9223372036854775808"},
    {"18446744073709551615", "18446744073709551615"},
    {"18446744073709551616", "1.8446744073709552E19"},
    {"-9223372036854775808", "-9223372036854775808"},
    {"-9223372036854775809", "-9.223372036854776E18"},
    {"1.5", "1.5"},
    {"1e3", "1E3"},
    {"1E-2", "0.01"},
    {"-2.5e+2", "-250.0"},
    {"1e400", "1e400"},
    {"1e-400", "0.0"},
    // JSON5 numbers
    {".5", "0.5"},
    {"5.", "5.0"},
    {"5.e1", "50.0"},
    {"+7", "7"},
    {"-.5e1", "-5.0"},
    {"0x1F", "31"},
    {"0XfF", "255"},
    {"-0x10", "-16"},
    {"+0x10", "16"},
    {"0xFFFFFFFFFFFFFFFF", "18446744073709551615"},
    {"0x10000000000000000", "1.8446744073709552E19"},
    // strings and escapes
    {R"("plain")", R"("plain")"},
    {R"('single')", R"("single")"},
    {R"('say "hi"')", R"("say \"hi\"")"},
    {R"("it's")", R"("it's")"},
    {R"("\"\\\/\b\f\n\r\t")", R"("\"\\/\b\f\n\r\t")"},
    {R"('\'')", R"("'")"},
    {R"("\v\0")", R"("\u000b\u0000")"},
    {R"("\x41\x7e")", R"("A~")"},
    {R"("\u00e9\u00E9")", "\"\xC3\xA9\xC3\xA9\""},
    {R"("\uD83D\uDE00")", "\"\xF0\x9F\x98\x80\""},
    {R"("\a\q\ ")", R"("aq ")"},
    {"\"\\\xC3\xA9\"", "\"\xC3\xA9\""},
    {"\"a\\\nb\"", R"("ab")"},
    {"\"a\\\r\nb\"", R"("ab")"},
    {"\"a\\\rb\"", R"("ab")"},
    {"\"a\\\xE2\x80\xA8" "b\"", R"("ab")"},
    {"\"tab\there\"", R"("tab\there")"},
    {"\"\xE2\x82\xAC\"", "\"\xE2\x82\xAC\""},
    // comments
    {"// c\n1", "1"},
    {"/* c */ 1", "1"},
    {"1 // trailing", "1"},
    {"1 /* a\n * b */", "1"},
    {"[1, /* x */ 2 // y\n]", "[1,2]"},
    {"/**/[/***/]", "[]"},
    // trailing commas
    {"[1, 2, ]", "[1,2]"},
    {R"({"a": 1,})", R"({"a":1})"},
    {"[[],]", "[[]]"},
    // identifier keys
    {"{a: 1}", R"({"a":1})"},
    {"{$a_1: 2, _: 3}", R"({"$a_1":2,"_":3})"},
    {"{null: 1, true: 2, Infinity: 3}", R"({"null":1,"true":2,"Infinity":3})"},
    {"{\xC3\xA9t\xC3\xA9: 1}", "{\"\xC3\xA9t\xC3\xA9\":1}"},
    // JSON5 white space
    {"\xEF\xBB\xBF{}", "{}"},
    {"\xC2\xA0[\xE2\x80\xA8 1\xE2\x80\xA9]\xE3\x80\x80", "[1]"},
    {"[\v1\f]", "[1]"},
};

BOOST_DATA_TEST_CASE(accepted_text_gives_the_strict_value, bdata::make(accepted), sample)
{
    auto const r = core::read_json(sample.text, "t.json");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    auto const expected = boost::json::parse(sample.strict);
    BOOST_TEST(boost::json::serialize(r->root()) == boost::json::serialize(expected));
    BOOST_TEST(static_cast<int>(r->root().kind()) == static_cast<int>(expected.kind()));
}

struct special_case {
    std::string text;
    double value;
};
std::ostream& operator<<(std::ostream& os, special_case const& c) { return os << c.text; }

std::vector<special_case> const specials{
    {"Infinity", INFINITY}, {"+Infinity", INFINITY}, {"-Infinity", -INFINITY},
    {"NaN", NAN},           {"-NaN", NAN},           {"+NaN", NAN},
};

BOOST_DATA_TEST_CASE(infinity_and_nan_are_doubles, bdata::make(specials), sample)
{
    auto const r = core::read_json(sample.text, "t.json");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST_REQUIRE(r->root().is_double());
    double const v = r->root().get_double();
    if (std::isnan(sample.value)) BOOST_TEST(std::isnan(v));
    else BOOST_TEST(v == sample.value);
}

struct rejected_case {
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, rejected_case const& c) { return os << c.text; }

// `{"a":` n times: objects nested n deep, unclosed.
std::string nested_members(std::size_t n)
{
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += R"({"a":)";
    return text;
}

std::string const unpaired = "(a high surrogate must be followed by a low surrogate)";

std::vector<rejected_case> const rejected{
    {"", "t.json:1:1: expected a value, found end of input"},
    {"   \n  // only a comment\n", "t.json:3:1: expected a value, found end of input"},
    {R"({"a": 1 "b": 2})",
     "t.json:1:9: expected ',' or '}' after an object member, found a string"},
    {"[1 2]", "t.json:1:4: expected ',' or ']' after an array element, found a number"},
    {"[1 true]", "t.json:1:4: expected ',' or ']' after an array element, found 'true'"},
    {R"({"a" 1})", "t.json:1:6: expected ':' after an object key, found a number"},
    {"{1: 2}", "t.json:1:2: expected an object key or '}', found a number"},
    {"{,}", "t.json:1:2: expected an object key or '}', found ','"},
    {"{a b}", "t.json:1:4: expected ':' after an object key, found 'b'"},
    {"{a:1,b:[c]}", "t.json:1:9: expected a value, found 'c'"},
    {"[,]", "t.json:1:2: expected a value, found ','"},
    {"[1,,]", "t.json:1:4: expected a value, found ','"},
    {R"({"a": tru})", "t.json:1:7: expected a value, found 'tru'"},
    {"[True]", "t.json:1:2: expected a value, found 'True'"},
    {"[1, /]", "t.json:1:5: expected a value, found '/'"},
    {"@", "t.json:1:1: expected a value, found '@'"},
    {"[\x01]", "t.json:1:2: expected a value, found control character U+0001"},
    {"[abcdefghijklmnopqrstuvwxyz0123456789]",
     "t.json:1:2: expected a value, found 'abcdefghijklmnopqrstuvwxyz012345...'"},
    {"{} {}", "t.json:1:4: expected end of input after the value, found '{'"},
    {"[1,]x", "t.json:1:5: expected end of input after the value, found 'x'"},
    {"1 2", "t.json:1:3: expected end of input after the value, found a number"},
    {"[1", "t.json:1:3: expected ',' or ']' after an array element, found end of input"},
    {"{\"a\": 1", "t.json:1:8: expected ',' or '}' after an object member, found end of input"},
    {"{\"a\":", "t.json:1:6: expected a value, found end of input"},
    // strings
    {R"("abc)", R"(t.json:1:1: expected '"' to close this string, found end of input)"},
    {"['abc\n']", R"(t.json:1:2: expected "'" to close this string, found end of line)"},
    {"\"a\\", "t.json:1:1: expected a closing quote, found end of input"},
    {R"("\1")", R"(t.json:1:2: invalid escape '\1' (octal escapes are not allowed))"},
    {R"("\01")", R"(t.json:1:2: invalid escape '\01' (octal escapes are not allowed))"},
    {R"("ok\xZ1")", R"(t.json:1:4: invalid escape '\xZ1' (expected 2 hex digits))"},
    {R"("\x4")", R"(t.json:1:2: invalid escape '\x4' (expected 2 hex digits))"},
    {R"("\u12")", R"(t.json:1:2: invalid escape '\u12' (expected 4 hex digits))"},
    {R"("\u12G4")", R"(t.json:1:2: invalid escape '\u12G4' (expected 4 hex digits))"},
    {R"("\uDC00")",
     R"(t.json:1:2: invalid escape '\uDC00' (a low surrogate must follow a high surrogate))"},
    {R"("\uD800")", R"(t.json:1:2: invalid escape '\uD800' )" + unpaired},
    {R"("\uD800\u0041")", R"(t.json:1:2: invalid escape '\uD800' )" + unpaired},
    {R"("\uD800\uZZZZ")", R"(t.json:1:8: invalid escape '\uZZZZ' (expected 4 hex digits))"},
    // comments
    {"[1] /* abc", "t.json:1:5: expected '*/' to close this comment, found end of input"},
    {"/*\n\n*/ @", "t.json:3:4: expected a value, found '@'"},
    // numbers
    {"012", "t.json:1:1: invalid number '012' (leading zeros are not allowed)"},
    {"[-007]", "t.json:1:2: invalid number '-007' (leading zeros are not allowed)"},
    {"[1E88888888888]",  // Boost.JSON's own limit (a fuzz finding: it threw)
     "t.json:1:2: invalid number '1E88888888888' (its exponent is out of range)"},
    {"-", "t.json:1:2: expected a digit after '-', found end of input"},
    {"-x", "t.json:1:2: expected a digit after '-', found 'x'"},
    {"+Inf", "t.json:1:2: expected a digit after '+', found 'Inf'"},
    {".", "t.json:1:2: expected a digit after '.', found end of input"},
    {"-.e1", "t.json:1:3: expected a digit after '.', found 'e1'"},
    {"1e", "t.json:1:3: expected a digit in the exponent, found end of input"},
    {"1e+", "t.json:1:4: expected a digit in the exponent, found end of input"},
    {"1.5ex", "t.json:1:5: expected a digit in the exponent, found 'x'"},
    {"0x", "t.json:1:3: expected a hex digit after '0x', found end of input"},
    {"0xG", "t.json:1:3: expected a hex digit after '0x', found 'G'"},
    {"12abc", "t.json:1:3: expected end of input after the value, found 'abc'"},
    // duplicate keys
    {R"({"a": 1, "a": 2})", R"(t.json:1:10: duplicate key "a" (first at 1:2))"},
    {"{\n  mode: 1,\n  'mode': 2\n}", R"(t.json:3:3: duplicate key "mode" (first at 2:3))"},
    // encoding and positions
    {"\"\xFF\"", "t.json:1:2: invalid UTF-8 byte 0xff"},
    {"[\n  1,\n  \"\xC3(\"]", "t.json:3:4: invalid UTF-8 byte 0xc3"},
    {"\"\xED\xA0\x80\"", "t.json:1:2: invalid UTF-8 byte 0xed"},
    {"\"\xC0\xAF\"", "t.json:1:2: invalid UTF-8 byte 0xc0"},
    {"{\r\n  \"a\": 1\r\n  \"b\": 2}",
     "t.json:3:3: expected ',' or '}' after an object member, found a string"},
    {"{\r\"a\" 1}", "t.json:2:5: expected ':' after an object key, found a number"},
    {"{\"\xC3\xA9\xE2\x82\xAC\": 1 2}",
     "t.json:1:10: expected ',' or '}' after an object member, found a number"},
    {"\xEF\xBB\xBF@", "t.json:1:1: expected a value, found '@'"},
    {"[\"a\\\nb\" x]", "t.json:2:4: expected ',' or ']' after an array element, found 'x'"},
    {std::string(257, '['), "t.json:1:257: nesting is deeper than 256 arrays and objects"},
    {nested_members(257), "t.json:1:1281: nesting is deeper than 256 arrays and objects"},
};

BOOST_DATA_TEST_CASE(syntax_errors_are_located_and_named, bdata::make(rejected), sample)
{
    auto const r = core::read_json(sample.text, "t.json");
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message == sample.message);
}

BOOST_AUTO_TEST_CASE(nesting_up_to_the_limit_is_read)
{
    std::string const text = std::string(core::json_max_depth, '[')
        + std::string(core::json_max_depth, ']');
    auto const r = core::read_json(text, "t.json");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    std::string innermost;
    for (std::size_t i = 1; i < core::json_max_depth; ++i) innermost += "/0";
    BOOST_TEST(r->value_position(innermost)->column == core::json_max_depth);
    BOOST_TEST(!r->value_position(innermost + "/0").has_value());
}

// Positions of values and keys by JSON pointer, including escapes (~0, ~1) and array elements.
std::string const positioned = R"({
  // a comment
  "poll": {
    interval_seconds: 5,
    'name': "x"
  },
  "list": [10, [20, 30],
           {"k": true}],
  "a/b": 1,
  "m~n": 2,
  "": 3,
  "é€": "\u00e9"
})";

struct position_case {
    std::string pointer;
    std::optional<core::source_position> value;
    std::optional<core::source_position> key;
};
std::ostream& operator<<(std::ostream& os, position_case const& c) { return os << c.pointer; }

std::vector<position_case> const positions{
    {"", core::source_position{1, 1}, std::nullopt},
    {"/poll", core::source_position{3, 11}, core::source_position{3, 3}},
    {"/poll/interval_seconds", core::source_position{4, 23}, core::source_position{4, 5}},
    {"/poll/name", core::source_position{5, 13}, core::source_position{5, 5}},
    {"/list", core::source_position{7, 11}, core::source_position{7, 3}},
    {"/list/0", core::source_position{7, 12}, std::nullopt},
    {"/list/1", core::source_position{7, 16}, std::nullopt},
    {"/list/1/1", core::source_position{7, 21}, std::nullopt},
    {"/list/2", core::source_position{8, 12}, std::nullopt},
    {"/list/2/k", core::source_position{8, 18}, core::source_position{8, 13}},
    {"/a~1b", core::source_position{9, 10}, core::source_position{9, 3}},
    {"/m~0n", core::source_position{10, 10}, core::source_position{10, 3}},
    {"/", core::source_position{11, 7}, core::source_position{11, 3}},
    {"/é€", core::source_position{12, 9}, core::source_position{12, 3}},
    {"/nope", std::nullopt, std::nullopt},
    {"/list/3", std::nullopt, std::nullopt},
    {"/list/01", std::nullopt, std::nullopt},
    {"/list/-1", std::nullopt, std::nullopt},
    {"/list/x", std::nullopt, std::nullopt},
    {"/poll/interval_seconds/x", std::nullopt, std::nullopt},
    {"poll", std::nullopt, std::nullopt},
    {"/a~2b", std::nullopt, std::nullopt},
    {"/m~n", std::nullopt, std::nullopt},
};

BOOST_DATA_TEST_CASE(values_and_keys_have_positions, bdata::make(positions), sample)
{
    auto const r = core::read_json(positioned, "w.json");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST((r->value_position(sample.pointer) == sample.value));
    BOOST_TEST((r->key_position(sample.pointer) == sample.key));
}

BOOST_AUTO_TEST_CASE(location_names_origin_line_and_column)
{
    auto const r = core::read_json(positioned, "w.json");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(r->origin() == "w.json");
    BOOST_TEST(r->location("/poll/interval_seconds") == "w.json:4:23");
    BOOST_TEST(r->location("/poll/interval_seconds", true) == "w.json:4:5");
    BOOST_TEST(r->location("/list/0", true) == "w.json");
    BOOST_TEST(r->location("/missing") == "w.json");
}

struct pointer_case {
    std::string base;
    std::string key;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, pointer_case const& c) { return os << c.expected; }

std::vector<pointer_case> const pointers{
    {"", "a", "/a"},
    {"/x", "a/b~c", "/x/a~1b~0c"},
    {"", "", "/"},
    {"/~0", "~1", "/~0/~01"},
};

BOOST_DATA_TEST_CASE(pointer_segments_are_escaped, bdata::make(pointers), sample)
{
    BOOST_TEST(core::json_pointer_append(sample.base, sample.key) == sample.expected);
}

BOOST_AUTO_TEST_CASE(pointer_indexes_are_decimal)
{
    BOOST_TEST(core::json_pointer_append("/jobs", std::size_t{12}) == "/jobs/12");
    BOOST_TEST(core::json_pointer_append("", std::size_t{0}) == "/0");
}

BOOST_AUTO_TEST_CASE(torc_example_specs_are_read)
{
    for (char const* text : {torc_examples::diamond_workflow,
                             torc_examples::hundred_jobs_parameterized}) {
        auto const r = core::read_json(text, "example.json5");
        BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
        // Strict JSON plus comments and trailing commas: Boost.JSON reads these too.
        boost::json::parse_options options;
        options.allow_comments = options.allow_trailing_commas = true;
        BOOST_TEST(r->root() == boost::json::parse(text, {}, options));
    }
    auto const r = core::read_json(torc_examples::hyperparameter_sweep_shared_params, "hp.json5");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(r->root().at("parameters").at("optimizer").as_string() == "['adam','sgd']");
    BOOST_TEST(r->root().at("jobs").as_array().size() == 4U);
    BOOST_TEST((r->key_position("/jobs/2/use_parameters") == core::source_position{44, 7}));
}

BOOST_AUTO_TEST_CASE(long_documents_are_read_with_positions)
{
    std::string text = "[";
    for (int i = 0; i < 100000; ++i) text += R"({"name": "job", "cpus": 4},)";
    text += "\n  {\"last\": true}]";
    auto const r = core::read_json(text, "big.json");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(r->root().as_array().size() == 100001U);
    BOOST_TEST((r->value_position("/99999/cpus") == core::source_position{1, 2699999}));
    BOOST_TEST((r->key_position("/100000/last") == core::source_position{2, 4}));
}

BOOST_AUTO_TEST_SUITE_END()
