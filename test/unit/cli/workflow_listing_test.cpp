// The state word of each workflow in `torcrun workflows` (canceled before complete, failures
// only once complete, held jobs make it running) and the table's layout.
#include "torcrun/cli/workflow_listing.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <utility>
#include <vector>

namespace core = torcrun::core;
using st = core::job_status;

namespace {

core::workflow_line line(std::vector<std::pair<st, std::int64_t>> const& jobs,
                         bool complete = false, bool canceled = false)
{
    core::workflow_line w{1, "w", "ann", complete, canceled, {}};
    for (auto const& [s, n] : jobs) w.jobs[s] += n;
    return w;
}

std::string state(core::workflow_line const& w) { return std::string(core::workflow_state(w)); }

}  // namespace

BOOST_AUTO_TEST_SUITE(workflow_listing)

BOOST_AUTO_TEST_CASE(state_words)
{
    BOOST_TEST(state(line({{st::running, 1}, {st::canceled, 2}}, true, true)) == "canceled");
    BOOST_TEST(state(line({}, true)) == "empty");
    BOOST_TEST(state(line({{st::completed, 3}}, true)) == "completed");
    BOOST_TEST(state(line({{st::completed, 2}, {st::failed, 1}}, true)) == "failed");
    BOOST_TEST(state(line({{st::completed, 2}, {st::canceled, 1}}, true)) == "failed");
    BOOST_TEST(state(line({{st::pending, 1}, {st::blocked, 2}})) == "running");
    BOOST_TEST(state(line({{st::running, 1}, {st::failed, 1}})) == "running");
    BOOST_TEST(state(line({{st::uninitialized, 2}, {st::disabled, 1}})) == "uninitialized");
    BOOST_TEST(state(line({{st::ready, 1}, {st::blocked, 2}})) == "waiting");
    BOOST_TEST(state(line({{st::completed, 1}, {st::pending_failed, 1}})) == "waiting");
}

BOOST_AUTO_TEST_CASE(table)
{
    auto a = line({{st::completed, 3}, {st::failed, 1}}, true);
    auto b = line({{st::running, 2}, {st::ready, 10}});
    b.id = 12;
    b.name = "sweep";
    b.user = "bo";
    BOOST_TEST(core::format_workflow_table({a, b}) ==
               "ID  NAME   USER  STATUS   COMPLETED\n"
               "1   w      ann   failed   3/4\n"
               "12  sweep  bo    running  0/12\n");
    BOOST_TEST(core::format_workflow_table({}) == "ID  NAME  USER  STATUS  COMPLETED\n");
}

BOOST_AUTO_TEST_SUITE_END()
