// Log lines: `level component: message key=value`, with values quoted only when they would
// otherwise break the line apart, and levels filtered before formatting.
#include "torcrun/common/io/logger.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace io = torcrun::io;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(logger)

struct line_case {
    io::log_level level;
    std::string value;
    std::string line;
};
std::ostream& operator<<(std::ostream& os, line_case const& c) { return os << c.line; }

std::vector<line_case> const lines{
    {io::log_level::info, "8080", "info http: listening port=8080"},
    {io::log_level::err, "a b", "err http: listening port=\"a b\""},
    {io::log_level::warning, "", "warning http: listening port=\"\""},
    {io::log_level::debug, "k=v", "debug http: listening port=\"k=v\""},
    {io::log_level::info, "say \"hi\"\n", "info http: listening port=\"say \\\"hi\\\"\\n\""},
    {io::log_level::info, std::string("\x01") + "\\", "info http: listening port=\"\\u0001\\\\\""},
};

BOOST_DATA_TEST_CASE(formats_one_line_per_event, bdata::make(lines), c) {
    BOOST_TEST(io::format_log_line(c.level, "http", "listening", {{"port", c.value}}) == c.line);
}

BOOST_AUTO_TEST_CASE(several_fields_in_order) {
    BOOST_TEST(io::format_log_line(io::log_level::info, "http", "stopping",
                                   {{"connections", "2"}, {"parked", "1"}}) ==
               "info http: stopping connections=2 parked=1");
}

struct filter_case {
    io::log_level threshold;
    std::vector<std::string> kept;
};
std::ostream& operator<<(std::ostream& os, filter_case const& c) {
    return os << io::to_string(c.threshold);
}

std::vector<filter_case> const filters{
    {io::log_level::err, {"err c: a"}},
    {io::log_level::warning, {"err c: a", "warning c: b"}},
    {io::log_level::info, {"err c: a", "warning c: b", "info c: c"}},
    {io::log_level::debug, {"err c: a", "warning c: b", "info c: c", "debug c: d"}},
};

BOOST_DATA_TEST_CASE(drops_lines_below_the_level, bdata::make(filters), c) {
    std::vector<std::string> got;
    io::logger log{c.threshold,
                   [&](io::log_level, std::string_view line) { got.emplace_back(line); }};
    log.write(io::log_level::err, "c", "a");
    log.write(io::log_level::warning, "c", "b");
    log.write(io::log_level::info, "c", "c");
    log.write(io::log_level::debug, "c", "d");
    BOOST_TEST(got == c.kept, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_logger_without_sink_is_silent) {
    io::logger log;
    BOOST_TEST(!log.enabled(io::log_level::err));
    log.write(io::log_level::err, "c", "nothing happens");
}

BOOST_AUTO_TEST_SUITE_END()
