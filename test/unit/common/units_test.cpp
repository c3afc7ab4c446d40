// Memory strings and ISO-8601 durations: every accepted form, every error message verbatim, and
// the round trips the launcher relies on (format -> parse gives the same value back).
#include "torcrun/common/units.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(units)

constexpr std::uint64_t kib = 1ULL << 10, mib = 1ULL << 20, gib = 1ULL << 30, tib = 1ULL << 40;
constexpr auto uint64_max = std::numeric_limits<std::uint64_t>::max();

struct memory_case {
    std::string text;
    std::uint64_t bytes;
};
std::ostream& operator<<(std::ostream& os, memory_case const& c)
{
    return os << '"' << c.text << '"';
}

struct failure_case {
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, failure_case const& c)
{
    return os << '"' << c.text << '"';
}

struct duration_case {
    std::string text;
    double seconds;
};
std::ostream& operator<<(std::ostream& os, duration_case const& c)
{
    return os << '"' << c.text << '"';
}

std::vector<memory_case> const memory_accepted{
    {"0", 0},
    {"100", 100},
    {"007", 7},
    {"1k", kib},
    {"1K", kib},
    {"512m", 512 * mib},
    {"512M", 512 * mib},
    {"2g", 2 * gib},
    {"2G", 2 * gib},
    {"1t", tib},
    {"1T", tib},
    {" \t4g\n", 4 * gib},
    {"0g", 0},
    {"16777215t", 16777215 * tib},
    {"18446744073709551615", uint64_max},
};

BOOST_DATA_TEST_CASE(memory_is_parsed, bdata::make(memory_accepted), sample)
{
    auto const r = core::parse_memory(sample.text);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(*r == sample.bytes);
}

std::string const not_integer = "\" is not an integer followed by an optional k, m, g or t";
std::string const too_big = "\" is too large (more than 18446744073709551615 bytes)";

std::vector<failure_case> const memory_rejected{
    {"", R"(memory: "" is empty)"},
    {"  ", R"(memory: "  " is empty)"},
    {"-1", R"(memory: "-1" is negative)"},
    {" -5g", R"(memory: " -5g" is negative)"},
    {"1.5g", "memory: \"1.5g" + not_integer},
    {"+10", "memory: \"+10" + not_integer},
    {"g", "memory: \"g" + not_integer},
    {"1 0", "memory: \"1 0" + not_integer},
    {"10 g", "memory: \"10 g" + not_integer},
    {"1e3", "memory: \"1e3" + not_integer},
    {"10GB", R"(memory: "10GB" has a multi-letter unit "GB"; use one of k, m, g or t)"},
    {"10gb", R"(memory: "10gb" has a multi-letter unit "gb"; use one of k, m, g or t)"},
    {"10GiB", R"(memory: "10GiB" has a multi-letter unit "GiB"; use one of k, m, g or t)"},
    {"10x", R"(memory: "10x" has an unknown unit "x"; use one of k, m, g or t)"},
    {"10B", R"(memory: "10B" has an unknown unit "B"; use one of k, m, g or t)"},
    {"18446744073709551616", "memory: \"18446744073709551616" + too_big},
    {"99999999999999999999k", "memory: \"99999999999999999999k" + too_big},
    {"16777216t", "memory: \"16777216t" + too_big},
};

BOOST_DATA_TEST_CASE(bad_memory_is_rejected, bdata::make(memory_rejected), sample)
{
    auto const r = core::parse_memory(sample.text);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == sample.message);
}

std::vector<memory_case> const memory_formatted{
    {"0", 0},
    {"100", 100},
    {"1025", 1025},
    {"1k", kib},
    {"1536m", 1536 * mib},
    {"1025m", gib + mib},
    {"4g", 4 * gib},
    {"1t", tib},
    {"3t", 3 * tib},
    {"18446744073709551615", uint64_max},
};

BOOST_DATA_TEST_CASE(memory_formats_to_shortest_exact_form_and_back, bdata::make(memory_formatted),
                     sample)
{
    BOOST_TEST(core::format_memory(sample.bytes) == sample.text);
    auto const back = core::parse_memory(core::format_memory(sample.bytes));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(*back == sample.bytes);
}

BOOST_AUTO_TEST_CASE(memory_megabytes_round_down)
{
    BOOST_TEST(core::memory_megabytes(0) == 0U);
    BOOST_TEST(core::memory_megabytes(mib - 1) == 0U);
    BOOST_TEST(core::memory_megabytes(mib) == 1U);
    BOOST_TEST(core::memory_megabytes(3 * mib + 5) == 3U);
    BOOST_TEST(core::memory_megabytes(4 * gib) == 4096U);
}

std::vector<duration_case> const durations_accepted{
    {"PT30M", 1800},   {"PT2H", 7200},     {"P1D", 86400},     {"P1DT12H", 129600},
    {"P0DT1M", 60},    {"P2W", 1209600},   {"PT1.5S", 1.5},    {"PT0.25H", 900},
    {"PT0,5S", 0.5},   {"P1Y", 31557600},  {"P1M", 2629800},   {"PT1M", 60},
    {"P0.5D", 43200},  {"PT36H", 129600},  {" PT30M\n", 1800}, {"PT0S", 0},
    {"P1W1D", 691200}, {"PT1H0.5M", 3630}, {"PT1.0H", 3600},   {"P1Y2M3W4DT5H6M7S", 38995567},
};

BOOST_DATA_TEST_CASE(duration_is_parsed, bdata::make(durations_accepted), sample)
{
    auto const r = core::parse_duration(sample.text);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(*r == sample.seconds);
}

std::string const order = " out of order or repeated (expected order: Y M W D T H M S)";
std::string const huge = "\" is too large (more than 9007199254740992 seconds)";

std::vector<failure_case> const durations_rejected{
    {"", R"(duration: "" is empty)"},
    {" ", R"(duration: " " is empty)"},
    {"30M", R"(duration: "30M" does not start with P (e.g. PT30M, P1DT12H))"},
    {"pt30m", R"(duration: "pt30m" does not start with P (e.g. PT30M, P1DT12H))"},
    {"-PT1M", R"(duration: "-PT1M" is negative)"},
    {"P-1D", R"(duration: "P-1D" has a negative number)"},
    {"PT-5M", R"(duration: "PT-5M" has a negative number)"},
    {"P", R"(duration: "P" has no components)"},
    {"PT", R"(duration: "PT" has no components after T)"},
    {"P1DT", R"(duration: "P1DT" has no components after T)"},
    {"P2H", R"(duration: "P2H" needs T before hours, minutes or seconds (e.g. PT2H))"},
    {"P30S", R"(duration: "P30S" needs T before hours, minutes or seconds (e.g. PT2H))"},
    {"P1X", R"(duration: "P1X" has unknown designator "X")"},
    {"PT30m", R"(duration: "PT30m" has unknown designator "m")"},
    {"PT1D", R"(duration: "PT1D" has "D")" + order},
    {"P1D1Y", R"(duration: "P1D1Y" has "Y")" + order},
    {"PT1M2H", R"(duration: "PT1M2H" has "H")" + order},
    {"P1Y1Y", R"(duration: "P1Y1Y" has "Y")" + order},
    {"PT1.5H30M",
     R"(duration: "PT1.5H30M" has a fraction on "H", but only the last component may have one)"},
    {"P0.5DT1H",
     R"(duration: "P0.5DT1H" has a fraction on "D", but only the last component may have one)"},
    {"PT30", R"(duration: "PT30" ends with a number without a designator)"},
    {"P1D2", R"(duration: "P1D2" ends with a number without a designator)"},
    {"PT1.", R"(duration: "PT1." ends with a number without a designator)"},
    {"PT30Mx", R"(duration: "PT30Mx" has unexpected "x" after "PT30M")"},
    {"PT1HT2M", R"(duration: "PT1HT2M" has unexpected "T" after "PT1H")"},
    {"PT1.S", R"(duration: "PT1.S" has unexpected "S" after "PT1.")"},
    {"PT1.5.5S", R"(duration: "PT1.5.5S" has unexpected "." after "PT1.5")"},
    {"PT1 H", R"(duration: "PT1 H" has unexpected " " after "PT1")"},
    {"PTM", R"(duration: "PTM" has designator "M" without a number)"},
    {"P285616415Y", "duration: \"P285616415Y" + huge},
    {"PT" + std::string(400, '9') + "S", "duration: \"PT" + std::string(400, '9') + "S" + huge},
};

BOOST_DATA_TEST_CASE(bad_duration_is_rejected, bdata::make(durations_rejected), sample)
{
    auto const r = core::parse_duration(sample.text);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == sample.message);
}

std::vector<duration_case> const durations_formatted{
    {"PT0M", 0},
    {"PT0M", 59.9},
    {"PT0M", -5},
    {"PT1M", 60},
    {"PT1M", 119.9},
    {"PT1H", 3600},
    {"PT1H30M", 5400},
    {"PT24H", 86400},
    {"PT36H1M", 129660},
    {"PT168H1M", 604860},
    {"PT0M", std::nan("")},
    {"PT2501999792983H36M", std::numeric_limits<double>::infinity()},
};

BOOST_DATA_TEST_CASE(duration_is_formatted_in_whole_minutes, bdata::make(durations_formatted),
                     sample)
{
    BOOST_TEST(core::format_duration(sample.seconds) == sample.text);
}

BOOST_DATA_TEST_CASE(whole_minutes_survive_a_round_trip,
                     bdata::make(std::vector<double>{0, 60, 1800, 3600, 5400, 86400, 129660, 604860,
                                                     31557600}),
                     seconds)
{
    auto const back = core::parse_duration(core::format_duration(seconds));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(*back == seconds);
}

BOOST_AUTO_TEST_SUITE_END()
