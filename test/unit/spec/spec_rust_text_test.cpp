// Rust's text rules as Torc sees them: trim, integer and float parsing, float printing.
#include "torcrun/spec/rust_text.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace rust = torcrun::core::spec::rust;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct trim_case {
    std::string text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, trim_case const& c)
{
    return os << '"' << c.text << '"';
}

std::vector<trim_case> const trim_cases{
    {"  a b  ", "a b"},
    {"\t\n\v\f\r x \r\n", "x"},
    {"\u00A0x\u3000", "x"},
    {"\u2028\u2029\u202F\u205F\u1680\u0085x\u2000\u200A", "x"},
    {"\u200Bx\uFEFF", "\u200Bx\uFEFF"},  // zero-width space and BOM are not White_Space
    {"", ""},
    {" \u00A0 ", ""},
    {"\xC2", "\xC2"},  // truncated sequence: not trimmed, not read past
    {"\xE0\x80\xA0x\xE0\x80\xA0", "\xE0\x80\xA0x\xE0\x80\xA0"},  // overlong U+0020
    {"\u00E9 ", "\u00E9"},
};

BOOST_AUTO_TEST_SUITE(spec_rust_text)

BOOST_DATA_TEST_CASE(trim_strips_unicode_white_space, bdata::make(trim_cases), c)
{
    BOOST_TEST(std::string(rust::trim(c.text)) == c.expected);
}

struct i64_case {
    std::string text;
    std::optional<std::int64_t> expected;
};
std::ostream& operator<<(std::ostream& os, i64_case const& c) { return os << '"' << c.text << '"'; }

std::vector<i64_case> const i64_cases{
    {"007", 7},
    {"+5", 5},
    {"-0", 0},
    {"-9223372036854775808", std::numeric_limits<std::int64_t>::min()},
    {"9223372036854775808", std::nullopt},
    {"+", std::nullopt},
    {"-", std::nullopt},
    {"", std::nullopt},
    {"+-1", std::nullopt},
    {"1.0", std::nullopt},
    {" 1", std::nullopt},
    {"0x10", std::nullopt},
    {"1e3", std::nullopt},
};

BOOST_DATA_TEST_CASE(parse_i64_follows_rust, bdata::make(i64_cases), c)
{
    BOOST_TEST((rust::parse_i64(c.text) == c.expected));
}

struct usize_case {
    std::string text;
    std::optional<std::uint64_t> expected;
};
std::ostream& operator<<(std::ostream& os, usize_case const& c)
{
    return os << '"' << c.text << '"';
}

std::vector<usize_case> const usize_cases{
    {"3", 3},
    {"+3", 3},
    {"003", 3},
    {"-0", std::nullopt},
    {"", std::nullopt},
    {"18446744073709551615", std::numeric_limits<std::uint64_t>::max()},
    {"18446744073709551616", std::nullopt},
};

BOOST_DATA_TEST_CASE(parse_usize_follows_rust, bdata::make(usize_cases), c)
{
    BOOST_TEST((rust::parse_usize(c.text) == c.expected));
}

// Expected value as Display prints it, or "none" for a parse failure.
struct f64_case {
    std::string text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, f64_case const& c) { return os << '"' << c.text << '"'; }

std::vector<f64_case> const f64_cases{
    {"1e3", "1000"},      {".5", "0.5"},
    {"5.", "5"},          {"-.5e1", "-5"},
    {"+1.5", "1.5"},      {"2.5E-3", "0.0025"},
    {"INF", "inf"},       {"-Infinity", "-inf"},
    {"nAn", "NaN"},       {"-nan", "NaN"},
    {"infinit", "none"},  {"e3", "none"},
    {".", "none"},        {"1e", "none"},
    {"1e+", "none"},      {"0x1p3", "none"},
    {"nan(1)", "none"},   {"1e400", "inf"},
    {"-1e400", "-inf"},   {"1e-400", "0"},
    {"-1e-400", "-0"},    {"1e99999999999999999999", "inf"},
    {"0.000e99999", "0"}, {"1_000", "none"},
    {" 1", "none"},       {"1,5", "none"},
    {"", "none"},         {"++1", "none"},
    {"0.1", "0.1"},
};

BOOST_DATA_TEST_CASE(parse_f64_follows_rust, bdata::make(f64_cases), c)
{
    auto const parsed = rust::parse_f64(c.text);
    BOOST_TEST((parsed ? rust::display_f64(*parsed) : std::string("none")) == c.expected);
}

BOOST_AUTO_TEST_CASE(parse_f64_keeps_the_smallest_subnormal)
{
    auto const parsed = rust::parse_f64("5e-324");
    BOOST_REQUIRE(parsed.has_value());
    BOOST_TEST(*parsed == std::numeric_limits<double>::denorm_min());
    BOOST_TEST(rust::display_f64(*parsed) == std::string("0.").append(323, '0').append("5"));
}

struct display_case {
    double value;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, display_case const& c) { return os << c.expected; }

std::vector<display_case> const display_cases{
    {1.0, "1"},
    {0.1, "0.1"},
    {0.1 + 0.2, "0.30000000000000004"},
    {-0.0, "-0"},
    {1e-7, "0.0000001"},
    {1e21, "1000000000000000000000"},
    {nan, "NaN"},
    {inf, "inf"},
    {-inf, "-inf"},
    {123456789.125, "123456789.125"},
    {-2.5, "-2.5"},
    {1.7976931348623157e308, std::string("17976931348623157").append(292, '0')},
    {1e23, "100000000000000000000000"},  // the double is 99999999999999991611392
    {123e-20, "0.00000000000000000123"},
    {-1.5e-5, "-0.000015"},
    {0.0, "0"},
    {9007199254740993.0, "9007199254740992"},
};

BOOST_DATA_TEST_CASE(display_f64_is_shortest_fixed, bdata::make(display_cases), c)
{
    BOOST_TEST(rust::display_f64(c.value) == c.expected);
}

struct fixed_case {
    double value;
    std::size_t precision;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, fixed_case const& c) { return os << c.expected; }

std::vector<fixed_case> const fixed_cases{
    {0.125, 2, "0.12"},
    {0.375, 2, "0.38"},
    {2.5, 0, "2"},
    {3.5, 0, "4"},
    {0.0001, 4, "0.0001"},
    {0.1, 2, "0.10"},
    {0.1 + 0.2, 2, "0.30"},
    {-0.0, 2, "-0.00"},
    {-0.001, 2, "-0.00"},
    {nan, 2, "NaN"},
    {inf, 3, "inf"},
    {-inf, 1, "-inf"},
    {1.0, 0, "1"},
    {3.14159, 2, "3.14"},
    {0.1, 20, "0.10000000000000000555"},
    {1e23, 0, "99999999999999991611392"},  // {:.N} prints exact digits, unlike Display
};

BOOST_DATA_TEST_CASE(fixed_f64_rounds_the_exact_binary_value, bdata::make(fixed_cases), c)
{
    BOOST_TEST(rust::fixed_f64(c.value, c.precision) == c.expected);
}

struct pad_case {
    std::int64_t value;
    std::size_t width;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, pad_case const& c) { return os << c.expected; }

std::vector<pad_case> const pad_cases{
    {7, 3, "007"},       {-5, 3, "-05"},
    {12345, 3, "12345"}, {0, 0, "0"},
    {-5, 1, "-5"},       {std::numeric_limits<std::int64_t>::min(), 21, "-09223372036854775808"},
};

BOOST_DATA_TEST_CASE(zero_padded_i64_keeps_the_sign_inside, bdata::make(pad_cases), c)
{
    BOOST_TEST(rust::zero_padded_i64(c.value, c.width) == c.expected);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
