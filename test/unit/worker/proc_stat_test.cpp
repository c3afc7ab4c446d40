// /proc/<pid>/stat parsing against lines captured on Debian 12 (kernel 6.x): a name with spaces
// and parentheses, init, a kernel thread, zombies, a process that reaped a child; every error
// verbatim; and the per-session sums and member lists built from parsed tables.
#include "torcrun/worker/proc_stat.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

namespace torcrun::core {
std::ostream& operator<<(std::ostream& os, tree_usage const& u)
{
    return os << "{rss " << u.rss_pages << ", cpu " << u.cpu_ticks << ", " << u.processes << "}";
}
}  // namespace torcrun::core

BOOST_AUTO_TEST_SUITE(proc_stat)

struct parse_case {
    std::string text;
    core::proc_stat expected;
};
std::ostream& operator<<(std::ostream& os, parse_case const& c) { return os << c.expected.pid; }

// A stat line with every field this parser does not read set to a plausible value.
std::string line(int pid, std::string const& comm, char state, int ppid, int pgrp, int session,
                 int utime, int stime, int cutime, int cstime, int rss)
{
    auto n = [](auto v) { return std::to_string(v); };
    return n(pid) + " (" + comm + ") " + state + " " + n(ppid) + " " + n(pgrp) + " " + n(session) +
           " 34816 " + n(pgrp) + " 4194304 120 0 0 0 " + n(utime) + " " + n(stime) + " " +
           n(cutime) + " " + n(cstime) + " 20 0 1 0 273569 2990080 " + n(rss) +
           " 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
}

std::vector<parse_case> const accepted{
    // A copy of sleep(1) named "we(ird) n", as the kernel wrote it.
    {"22837 (we(ird) n) S 22836 22833 9873 0 -1 4194304 134 0 0 0 0 0 0 0 20 0 1 0 273569 "
     "2990080 396 18446744073709551615 94370446835712 94370446853641 140736265944544 0 0 0 0 6 "
     "0 1 0 0 17 0 0 0 0 0 0 94370446867728 94370446868992 94370491006976 140736265947587 "
     "140736265947604 140736265947604 140736265949161 0\n",
     {22837, "we(ird) n", 'S', 22836, 22833, 9873, 0, 0, 0, 0, 396}},
    {"1 (process_api) S 0 0 0 0 -1 4194560 55219 63337092 0 1661 183 859 180616 18211 10 -10 13 "
     "0 25 46596096 3662 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 0 0 0 0 0 0 0 0 0 "
     "0 0 0 0 0",
     {1, "process_api", 'S', 0, 0, 0, 183, 859, 180616, 18211, 3662}},
    {"2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 25 0 0 18446744073709551615 0 "
     "0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0",
     {2, "kthreadd", 'S', 0, 0, 0, 0, 0, 0, 0, 0}},
    // Zombies keep their own and their reaped children's times, but no memory.
    {"22323 (cmake) Z 1 22285 19188 0 -1 4228108 859 339109 0 0 0 0 1029 101 20 0 1 0 270953 0 "
     "0 18446744073709551615 0 0 0 0 0 0 2 0 65538 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 15",
     {22323, "cmake", 'Z', 1, 22285, 19188, 0, 0, 1029, 101, 0}},
    {"22979 (cc1plus) Z 1 22977 19188 0 -1 4228108 40753 0 0 0 87 10 0 0 20 0 1 0 273919 0 0 "
     "18446744073709551615 0 0 0 0 0 0 0 0 1256 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 15",
     {22979, "cc1plus", 'Z', 1, 22977, 19188, 87, 10, 0, 0, 0}},
    // python3 right after reaping a child that spun for 0.5 s: the child's time is in cutime.
    {"23141 (python3) R 23121 23121 9873 0 -1 4194304 3000 6863 0 0 2 0 28 0 20 0 1 0 274421 "
     "16965632 3344 18446744073709551615 94306275893248 94306275893589 140721656961184 0 0 0 0 "
     "16781312 2 0 0 0 17 1 0 0 0 0 0 94306275904944 94306275905560 94306868518912 "
     "140721656968964 140721656969230 140721656969230 140721656971215 0\n",
     {23141, "python3", 'R', 23121, 23121, 9873, 2, 0, 28, 0, 3344}},
    {line(42, "a) b", 'S', 1, 42, 42, 5, 6, 7, 8, 9), {42, "a) b", 'S', 1, 42, 42, 5, 6, 7, 8, 9}},
    {line(43, ") (", 'R', 1, 43, 43, 1, 2, 3, 4, 5), {43, ") (", 'R', 1, 43, 43, 1, 2, 3, 4, 5}},
    {line(44, "two\nlines", 'D', 1, 44, 44, 0, 0, 0, 0, 1),
     {44, "two\nlines", 'D', 1, 44, 44, 0, 0, 0, 0, 1}},
    {line(45, "", 'I', 2, 0, 0, 0, 0, 0, 0, 0), {45, "", 'I', 2, 0, 0, 0, 0, 0, 0, 0}},
    {line(46, "big", 'S', 1, 46, 46, 0, 0, 0, 0, 0).replace(0, 2, "4194303"),
     {4194303, "big", 'S', 1, 46, 46, 0, 0, 0, 0, 0}},
};

BOOST_DATA_TEST_CASE(captured_and_odd_lines_are_read, bdata::make(accepted), sample)
{
    auto const parsed = core::parse_proc_stat(sample.text);
    BOOST_TEST_REQUIRE(parsed.has_value(), parsed.error().message);
    auto const& p = *parsed;
    auto const& e = sample.expected;
    BOOST_TEST(p.pid == e.pid);
    BOOST_TEST(p.comm == e.comm);
    BOOST_TEST(p.state == e.state);
    BOOST_TEST(p.ppid == e.ppid);
    BOOST_TEST(p.pgrp == e.pgrp);
    BOOST_TEST(p.session == e.session);
    BOOST_TEST(p.utime_ticks == e.utime_ticks);
    BOOST_TEST(p.stime_ticks == e.stime_ticks);
    BOOST_TEST(p.cutime_ticks == e.cutime_ticks);
    BOOST_TEST(p.cstime_ticks == e.cstime_ticks);
    BOOST_TEST(p.rss_pages == e.rss_pages);
    BOOST_TEST((p == e));
}

struct failure_case {
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, failure_case const& c) { return os << c.message; }

std::string const fields_22 = " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21";

std::vector<failure_case> const rejected{
    {"", R"m(proc stat: "" has no command name in parentheses)m"},
    {"\n", R"m(proc stat: "" has no command name in parentheses)m"},
    {"42 cat S 1", R"m(proc stat: "42 cat S 1" has no command name in parentheses)m"},
    {"42 (cat S 1", R"m(proc stat: "42 (cat S 1" has no command name in parentheses)m"},
    {"42 )cat( S 1", R"m(proc stat: "42 )cat( S 1" has no command name in parentheses)m"},
    {"x (cat) S 1", R"m(proc stat: "x (cat) S 1" does not start with a process id)m"},
    {"0 (cat) S 1", R"m(proc stat: "0 (cat) S 1" does not start with a process id)m"},
    {"-3 (cat) S 1", R"m(proc stat: "-3 (cat) S 1" does not start with a process id)m"},
    {" 42 (cat) S 1", R"m(proc stat: " 42 (cat) S 1" does not start with a process id)m"},
    {"42 (cat)",
     R"m(proc stat: "42 (cat)" has 0 fields after the command name, expected at least 22)m"},
    {"42 (cat) S 1 2 3",
     "proc stat: \"42 (cat) S 1 2 3\" has 4 fields after the command name, expected at least "
     "22"},
    {"42 (cat)S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
     "proc stat: \"42 (cat)S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21\" has 0 "
     "fields after the command name, expected at least 22"},
    {"42 (cat) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
     R"m(proc stat of pid 42: state (field 3) "SS" is not a single letter)m"},
    {"42 (cat) S 1 2 3 4 5 6 7 8 9 10 x 12 13 14 15 16 17 18 19 20 21",
     R"m(proc stat of pid 42: utime (field 14) "x" is not a non-negative integer)m"},
    {"42 (cat) S 1 2 3 4 5 6 7 8 9 10 11 12 -13 14 15 16 17 18 19 20 21",
     R"m(proc stat of pid 42: cutime (field 16) "-13" is not a non-negative integer)m"},
    {"42 (cat) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 -1",
     R"m(proc stat of pid 42: rss (field 24) "-1" is not a non-negative integer)m"},
    {"42 (cat) S x 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
     R"m(proc stat of pid 42: ppid (field 4) "x" is not a non-negative integer)m"},
    {"42 (cat) S 1  3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22",
     R"m(proc stat of pid 42: pgrp (field 5) "" is not a non-negative integer)m"},
    {"42 (cat) S 1 2 3s 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
     R"m(proc stat of pid 42: session (field 6) "3s" is not a non-negative integer)m"},
    {"42 (cat) S 1 2 3 4 5 6 7 8 9 10 11 12 13 99999999999999999999 15 16 17 18 19 20 21",
     "proc stat of pid 42: cstime (field 17) \"99999999999999999999\" is not a non-negative "
     "integer"},
    {"42 (cat) S 1 2 3 4 5 6 7 8 9 10 11 1.5 13 14 15 16 17 18 19 20 21",
     R"m(proc stat of pid 42: stime (field 15) "1.5" is not a non-negative integer)m"},
};

BOOST_DATA_TEST_CASE(malformed_lines_are_rejected_verbatim, bdata::make(rejected), sample)
{
    auto const parsed = core::parse_proc_stat(sample.text);
    BOOST_TEST_REQUIRE(parsed.has_error());
    BOOST_TEST(parsed.error().message == sample.message);
}

BOOST_AUTO_TEST_CASE(twenty_two_fields_are_enough)
{
    auto const parsed = core::parse_proc_stat("42 (cat)" + fields_22);
    BOOST_TEST_REQUIRE(parsed.has_value(), parsed.error().message);
    BOOST_TEST(parsed->utime_ticks == 11u);
    BOOST_TEST(parsed->rss_pages == 21u);
}

core::proc_stat parsed(std::string const& text) { return core::parse_proc_stat(text).value(); }

// Session 100: leader, a child, a grandchild in its own group, a zombie. Session 200: one
// process. Session 300 is asked for but has none; init and a stranger are in neither.
std::vector<core::proc_stat> const table{
    parsed(line(100, "bash", 'S', 50, 100, 100, 10, 5, 30, 2, 400)),
    parsed(line(101, "worker", 'R', 100, 100, 100, 200, 20, 0, 0, 25000)),
    parsed(line(102, "own group", 'S', 101, 102, 100, 1, 1, 0, 0, 100)),
    parsed(line(103, "done", 'Z', 100, 100, 100, 7, 3, 0, 0, 0)),
    parsed(line(200, "sleep", 'S', 50, 200, 200, 0, 0, 0, 0, 90)),
    parsed(line(1, "init", 'S', 0, 1, 1, 5000, 5000, 9000, 9000, 3000)),
    parsed(line(77, "stranger", 'R', 1, 77, 77, 900, 900, 0, 0, 700)),
};

struct usage_case {
    std::vector<int> sessions;
    std::map<int, core::tree_usage> expected;
};
std::ostream& operator<<(std::ostream& os, usage_case const& c)
{
    return os << c.sessions.size() << " sessions";
}

std::vector<usage_case> const usages{
    {{100}, {{100, {400 + 25000 + 100, 10 + 5 + 30 + 2 + 200 + 20 + 1 + 1 + 7 + 3, 3}}}},
    {{200}, {{200, {90, 0, 1}}}},
    {{100, 200, 300}, {{100, {25500, 279, 3}}, {200, {90, 0, 1}}}},
    {{300}, {}},
    {{}, {}},
};

BOOST_DATA_TEST_CASE(usage_is_summed_per_session, bdata::make(usages), sample)
{
    auto const sums = core::usage_by_session(table, sample.sessions);
    BOOST_TEST(sums.size() == sample.expected.size());
    for (auto const& [session, expected] : sample.expected) {
        BOOST_TEST_REQUIRE(sums.contains(session));
        BOOST_TEST(sums.at(session) == expected);
    }
}

BOOST_AUTO_TEST_CASE(a_session_of_zombies_counts_time_but_no_process)
{
    std::vector<core::proc_stat> const zombies{parsed(line(5, "z", 'Z', 1, 5, 5, 3, 4, 0, 0, 0)),
                                               parsed(line(6, "x", 'X', 1, 5, 5, 1, 0, 0, 0, 0))};
    auto const sums = core::usage_by_session(zombies, std::vector<int>{5});
    BOOST_TEST((sums.at(5) == core::tree_usage{0, 8, 0}));
}

struct members_case {
    int session;
    std::vector<int> expected;
};
std::ostream& operator<<(std::ostream& os, members_case const& c) { return os << c.session; }

std::vector<members_case> const members{
    {100, {101, 102}},  // not the leader, not the zombie
    {200, {}},
    {300, {}},
    {77, {}},
};

BOOST_DATA_TEST_CASE(session_members_are_the_living_non_leaders, bdata::make(members), sample)
{
    BOOST_TEST(core::session_members(table, sample.session) == sample.expected,
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
