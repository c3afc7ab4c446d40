// The worker's results journal: lines round-trip every field, bad lines are named, appends and
// removals survive a reopen, a crash's torn last line is skipped and reported, and a second live
// worker on the same node gets a file of its own.
#include "worker/io/worker_journal.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace io = torcrun::io;
namespace bdata = boost::unit_test::data;
namespace fs = std::filesystem;

namespace torcrun::core {
std::ostream& operator<<(std::ostream& os, job_report const& r)
{
    return os << io::journal_line(r);
}
}  // namespace torcrun::core

BOOST_AUTO_TEST_SUITE(worker_journal)

namespace {

core::job_report report(std::int64_t job, std::uint32_t attempt,
                        core::report_kind kind = core::report_kind::complete,
                        core::result_status status = core::result_status::completed)
{
    core::job_result r{.job_id = job, .workflow_id = 3, .run_id = 1, .attempt_id = attempt,
                       .compute_node_id = 7, .return_code = 0, .exec_time_minutes = 0.25,
                       .completion_time = 1751302800.5, .status = status, .usage = std::nullopt,
                       .gpu_ids = {}, .nodes = "n[1-2]"};
    return {kind, r};
}

struct temp_dir {
    fs::path path = fs::temp_directory_path() /
                    ("torcrun-io-tests-" + std::to_string(::getpid())) /
                    ("journal-" + std::to_string(counter++));
    temp_dir() { fs::create_directories(path); }
    ~temp_dir() { fs::remove_all(path); }
    static inline int counter = 0;
};

std::vector<core::job_report> const round_trips{
    report(1, 1),
    report(2, 3, core::report_kind::record, core::result_status::failed),
    report(3, 1, core::report_kind::complete, core::result_status::terminated),
    report(4, 1, core::report_kind::complete, core::result_status::canceled),
    report(5, 2, core::report_kind::complete, core::result_status::pending_failed),
    [] {
        auto r = report(6, 1);
        r.result.return_code = 137;
        r.result.usage = core::job_usage{1 << 20, 1 << 19, 99.5, 12.25};
        return r;
    }(),
    [] {
        auto r = report(7, 1);
        r.result.gpu_ids = {"0", "3"};
        return r;
    }(),
};

}  // namespace

BOOST_DATA_TEST_CASE(a_line_round_trips, bdata::make(round_trips), r) {
    auto const back = io::parse_journal_line(io::journal_line(r));
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST(*back == r);
}

struct bad_line {
    std::string line;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, bad_line const& b) { return os << b.line; }

std::vector<bad_line> const bad_lines{
    {R"({"kind":"complete","job_id":1)", "journal line: incomplete JSON"},
    {R"({"kind":"later"})", "journal line: kind \"later\" is unknown"},
    {R"([1,2])", "journal line: not an object"},
    {R"({"kind":"record"})", "journal line: no field \"job_id\""},
};

BOOST_DATA_TEST_CASE(a_bad_line_is_named, bdata::make(bad_lines), b) {
    auto const r = io::parse_journal_line(b.line);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message == b.message);
}

BOOST_AUTO_TEST_CASE(an_unknown_status_is_named) {
    auto line = io::journal_line(report(1, 1));
    line.replace(line.find("\"completed\""), 11, "\"lost\"");
    auto const r = io::parse_journal_line(line);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message == "journal line: status \"lost\" is unknown");
}

BOOST_AUTO_TEST_CASE(appends_and_removals_survive_a_reopen) {
    temp_dir dir;
    std::vector<core::job_report> const three{report(1, 1), report(2, 1),
                                              report(2, 1, core::report_kind::record)};
    {
        auto j = io::results_journal::open(dir.path.string(), 3, "node1");
        BOOST_TEST_REQUIRE(j.has_value());
        BOOST_TEST(j->path() == (dir.path / "journal" / "wf3_node1.jsonl").string());
        BOOST_TEST(j->reports().empty());
        BOOST_TEST_REQUIRE(j->append(three).has_value());
        core::worker::report_key const key{core::report_kind::complete, 2, 1};
        BOOST_TEST_REQUIRE(j->remove(std::span(&key, 1)).has_value());
        BOOST_TEST(j->reports() == (std::vector{three[0], three[2]}));
    }
    auto j = io::results_journal::open(dir.path.string(), 3, "node1");
    BOOST_TEST_REQUIRE(j.has_value());
    BOOST_TEST(j->reports() == (std::vector{three[0], three[2]}));
    BOOST_TEST(j->skipped().empty());
    BOOST_TEST(!fs::exists(j->path() + ".tmp"));
    core::worker::report_key const keys[] = {{core::report_kind::complete, 1, 1},
                                             {core::report_kind::record, 2, 1}};
    BOOST_TEST_REQUIRE(j->remove(keys).has_value());
    BOOST_TEST(j->reports().empty());
    BOOST_TEST(fs::file_size(j->path()) == 0u);
}

// The nodes a worker registered outlive it in the journal (beside its reports) until it removes
// them: the next worker in the directory reads them back.
BOOST_AUTO_TEST_CASE(registered_nodes_survive_a_reopen) {
    temp_dir dir;
    {
        auto j = io::results_journal::open(dir.path.string(), 3, "node1");
        BOOST_TEST_REQUIRE(j.has_value());
        BOOST_TEST(j->nodes().empty());
        BOOST_TEST_REQUIRE(j->add_node(7).has_value());
        BOOST_TEST_REQUIRE(j->append(std::vector{report(1, 1)}).has_value());
        BOOST_TEST_REQUIRE(j->add_node(9).has_value());
        BOOST_TEST_REQUIRE(j->add_node(7).has_value());  // once
        BOOST_TEST(j->nodes() == (std::vector<std::int64_t>{7, 9}));
    }
    auto j = io::results_journal::open(dir.path.string(), 3, "node1");
    BOOST_TEST_REQUIRE(j.has_value());
    BOOST_TEST(j->nodes() == (std::vector<std::int64_t>{7, 9}));
    BOOST_TEST(j->reports() == std::vector{report(1, 1)});
    BOOST_TEST(j->skipped().empty());
    BOOST_TEST_REQUIRE(j->remove_node(7).has_value());
    core::worker::report_key const key{core::report_kind::complete, 1, 1};
    BOOST_TEST_REQUIRE(j->remove(std::span(&key, 1)).has_value());  // keeps the nodes
    BOOST_TEST(j->nodes() == (std::vector<std::int64_t>{9}));
    auto again = io::results_journal::open(dir.path.string(), 4, "node1");  // another workflow's
    BOOST_TEST(again->nodes().empty());
    j = std::move(*again);
    auto last = io::results_journal::open(dir.path.string(), 3, "node1");
    BOOST_TEST(last->nodes() == (std::vector<std::int64_t>{9}));
    BOOST_TEST(last->reports().empty());
    BOOST_TEST_REQUIRE(last->remove_node(9).has_value());
    BOOST_TEST(fs::file_size(last->path()) == 0u);
}

BOOST_AUTO_TEST_CASE(a_crash_leaves_a_torn_line_that_is_skipped) {
    temp_dir dir;
    fs::create_directories(dir.path / "journal");
    auto const path = dir.path / "journal" / "wf3_node1.jsonl";
    std::ofstream(path) << io::journal_line(report(1, 1)) << "\n"
                        << io::journal_line(report(2, 1)).substr(0, 20);
    auto j = io::results_journal::open(dir.path.string(), 3, "node1");
    BOOST_TEST_REQUIRE(j.has_value());
    BOOST_TEST(j->reports() == std::vector{report(1, 1)});
    BOOST_TEST_REQUIRE(j->skipped().size() == 1u);
    BOOST_TEST(j->skipped()[0] == path.string() + ":2: journal line: incomplete JSON");
}

BOOST_AUTO_TEST_CASE(a_second_live_worker_gets_its_own_file) {
    temp_dir dir;
    auto first = io::results_journal::open(dir.path.string(), 3, "node1");
    BOOST_TEST_REQUIRE(first.has_value());
    BOOST_TEST_REQUIRE(first->append(std::vector{report(1, 1)}).has_value());
    auto second = io::results_journal::open(dir.path.string(), 3, "node1");
    BOOST_TEST_REQUIRE(second.has_value());
    BOOST_TEST(second->path() == (dir.path / "journal" /
                                  ("wf3_node1_pid" + std::to_string(::getpid()) + ".jsonl"))
                                     .string());
    BOOST_TEST(second->reports().empty());
    first = io::results_journal::open(dir.path.string(), 4, "node1");  // releases wf3's lock
    auto third = io::results_journal::open(dir.path.string(), 3, "node1");
    BOOST_TEST_REQUIRE(third.has_value());
    BOOST_TEST(third->reports() == std::vector{report(1, 1)});
}

BOOST_AUTO_TEST_CASE(an_unwritable_directory_is_named) {
    auto const j = io::results_journal::open("/proc/torcrun-no", 3, "node1");
    BOOST_TEST_REQUIRE(!j.has_value());
    BOOST_TEST(j.error().message.starts_with("journal: create \"/proc/torcrun-no/journal\": "));
}

BOOST_AUTO_TEST_SUITE_END()
