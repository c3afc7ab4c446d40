// RFC 3339 date-times: accepted spellings with their Unix seconds, every rejection verbatim, and
// formatting back to UTC.
#include "torcrun/common/date_time.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(date_time)

struct accepted_case {
    std::string text;
    double seconds;
};
std::ostream& operator<<(std::ostream& os, accepted_case const& c) { return os << c.text; }

std::vector<accepted_case> const accepted{
    {"1970-01-01T00:00:00Z", 0},
    {"2025-06-30T17:00:00Z", 1751302800},
    {"2025-06-30t12:00:00-05:00", 1751302800},
    {"2025-06-30 17:00:00+00:00", 1751302800},
    {"2025-07-01T02:30:00+09:30", 1751302800},
    {"2025-06-30T17:00:00z", 1751302800},
    {"2025-06-30T17:00:00.5Z", 1751302800.5},
    {"2025-06-30T17:00:00.250000Z", 1751302800.25},
    {"2024-02-29T00:00:00Z", 1709164800},
    {"2016-12-31T23:59:60Z", 1483228800},
    {"9999-12-31T23:59:59Z", 253402300799},
};

BOOST_DATA_TEST_CASE(date_times_become_unix_seconds, bdata::make(accepted), sample)
{
    auto const r = core::parse_date_time(sample.text);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(*r == sample.seconds);
}

std::vector<std::string> const rejected{
    "2025-06-30T17:00:00",        // no time zone
    "2025-02-29T00:00:00Z",       // not a leap year
    "2025-13-01T00:00:00Z",       //
    "2025-06-31T00:00:00Z",       //
    "1969-12-31T23:59:59Z",       // before 1970
    "2025-06-30T24:00:00Z",       //
    "2025-06-30T17:60:00Z",       //
    "2025-06-30T17:00:61Z",       //
    "2025-06-30T17:00Z",          // no seconds
    "2025-06-30T17:00:00.Z",      // empty fraction
    "2025-06-30T17:00:00+5:00",   // short offset
    "2025-06-30T17:00:00+24:00",  //
    "2025-06-30T17:00:00Zjunk",   //
    "2025-06-30X17:00:00Z",       //
    "25-06-30T17:00:00Z",         //
    "",
    "now",
};

BOOST_DATA_TEST_CASE(other_text_is_rejected, bdata::make(rejected), text)
{
    auto const r = core::parse_date_time(text);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message
               == "date-time: \"" + text
                   + "\" is not an RFC 3339 date-time with a time zone (like "
                     "2025-06-30T17:00:00Z or 2025-06-30T12:00:00-05:00)");
}

struct format_case {
    double seconds;
    std::string text;
};
std::ostream& operator<<(std::ostream& os, format_case const& c) { return os << c.text; }

std::vector<format_case> const formatted{
    {0, "1970-01-01T00:00:00Z"},
    {1751302800, "2025-06-30T17:00:00Z"},
    {1751302800.25, "2025-06-30T17:00:00.25Z"},
    {1751302800.000001, "2025-06-30T17:00:00.000001Z"},
    {1751302800.9999999, "2025-06-30T17:00:01Z"},
    {1709164800 + 86399, "2024-02-29T23:59:59Z"},
    {253402300799, "9999-12-31T23:59:59Z"},
};

BOOST_DATA_TEST_CASE(unix_seconds_format_as_utc, bdata::make(formatted), sample)
{
    BOOST_TEST(core::format_date_time(sample.seconds) == sample.text);
    auto const back = core::parse_date_time(sample.text);
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(std::abs(*back - sample.seconds) < 1e-6);
}

BOOST_AUTO_TEST_CASE(torc_times_always_carry_milliseconds)
{
    BOOST_TEST(core::format_torc_time(1751302800) == "2025-06-30T17:00:00.000Z");
    BOOST_TEST(core::format_torc_time(1751302800.0071) == "2025-06-30T17:00:00.007Z");
    BOOST_TEST(core::format_torc_time(1751302800.9996) == "2025-06-30T17:00:01.000Z");
    BOOST_TEST(core::format_torc_time(-5) == "1970-01-01T00:00:00.000Z");
}

BOOST_AUTO_TEST_SUITE_END()
