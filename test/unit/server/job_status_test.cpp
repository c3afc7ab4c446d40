// Job statuses: every status's integer, name and set memberships in one table (the sets are
// the ones docs/TORC-COMPATIBILITY.md §1 lists), and the parse errors verbatim.
#include "torcrun/server/job_status.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using st = core::job_status;

namespace {

struct status_row {
    st status;
    int number;
    std::string name;
    bool terminal_for_complete_job;
    bool complete;
    bool releases_dependents;
    bool blocking_failure;
};
std::ostream& operator<<(std::ostream& os, status_row const& r) { return os << r.name; }

std::vector<status_row> const rows{
    {st::uninitialized, 0, "uninitialized", false, false, false, false},
    {st::blocked, 1, "blocked", false, false, false, false},
    {st::ready, 2, "ready", false, false, false, false},
    {st::pending, 3, "pending", false, false, false, false},
    {st::running, 4, "running", false, false, false, false},
    {st::completed, 5, "completed", true, true, true, false},
    {st::failed, 6, "failed", true, true, true, true},
    {st::canceled, 7, "canceled", true, true, true, true},
    {st::terminated, 8, "terminated", true, true, true, true},
    {st::disabled, 9, "disabled", false, true, false, false},
    {st::pending_failed, 10, "pending_failed", true, false, false, false},
};

std::string const names = "uninitialized, blocked, ready, pending, running, completed, failed, "
                          "canceled, terminated, disabled or pending_failed";

struct bad_text {
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, bad_text const& b) { return os << '"' << b.text << '"'; }

std::vector<bad_text> const bad_texts{
    {"Completed", "job status: \"Completed\" is not one of " + names},
    {"", "job status: \"\" is not one of " + names},
    {" ready", "job status: \" ready\" is not one of " + names},
    {"done", "job status: \"done\" is not one of " + names},
    {"pending-failed", "job status: \"pending-failed\" is not one of " + names},
    {"submitted_pending", "job status: \"submitted_pending\" is not one of " + names},
};

struct bad_number {
    std::int64_t value;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, bad_number const& b) { return os << b.value; }

std::vector<bad_number> const bad_numbers{
    {-1, "job status: -1 is not an integer from 0 to 10"},
    {11, "job status: 11 is not an integer from 0 to 10"},
    {4294967298, "job status: 4294967298 is not an integer from 0 to 10"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(job_status)

BOOST_DATA_TEST_CASE(every_status_round_trips_with_its_sets, bdata::make(rows), r)
{
    BOOST_TEST(core::to_int(r.status) == r.number);
    BOOST_TEST(core::to_string(r.status) == r.name);
    BOOST_TEST(core::all_job_statuses.at(static_cast<std::size_t>(r.number)) == r.status);
    auto const parsed = core::parse_job_status(r.name);
    BOOST_TEST_REQUIRE(parsed.has_value());
    BOOST_TEST(*parsed == r.status);
    auto const from_int = core::job_status_from_int(r.number);
    BOOST_TEST_REQUIRE(from_int.has_value());
    BOOST_TEST(*from_int == r.status);
    BOOST_TEST(core::is_terminal_for_complete_job(r.status) == r.terminal_for_complete_job);
    BOOST_TEST(core::counts_as_complete(r.status) == r.complete);
    BOOST_TEST(core::satisfies_dependency(r.status) == r.releases_dependents);
    BOOST_TEST(core::is_blocking_failure(r.status) == r.blocking_failure);
}

BOOST_DATA_TEST_CASE(unknown_names_are_refused_verbatim, bdata::make(bad_texts), b)
{
    auto const parsed = core::parse_job_status(b.text);
    BOOST_TEST_REQUIRE(parsed.has_error());
    BOOST_TEST(parsed.error().message == b.message);
}

BOOST_DATA_TEST_CASE(integers_outside_the_enum_are_refused, bdata::make(bad_numbers), b)
{
    auto const parsed = core::job_status_from_int(b.value);
    BOOST_TEST_REQUIRE(parsed.has_error());
    BOOST_TEST(parsed.error().message == b.message);
}

BOOST_AUTO_TEST_SUITE_END()
