// Signal names both ways: every name the CLI documents, its number, and the fallback wording for
// numbers without a standard name.
#include "torcrun/common/signal_names.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(signal_names)

struct signal_case {
    std::string name;  // canonical, without SIG
    int number;
};
std::ostream& operator<<(std::ostream& os, signal_case const& c) { return os << c.name; }

std::vector<signal_case> const canonical{
    {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},     {"ILL", SIGILL},
    {"ABRT", SIGABRT}, {"FPE", SIGFPE},   {"KILL", SIGKILL},     {"SEGV", SIGSEGV},
    {"PIPE", SIGPIPE}, {"ALRM", SIGALRM}, {"TERM", SIGTERM},     {"USR1", SIGUSR1},
    {"USR2", SIGUSR2}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT},     {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"BUS", SIGBUS},
    {"PROF", SIGPROF}, {"SYS", SIGSYS},   {"TRAP", SIGTRAP},     {"URG", SIGURG},
    {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"WINCH", SIGWINCH},
    {"IO", SIGIO},     {"PWR", SIGPWR},   {"STKFLT", SIGSTKFLT},
};

// Each name in every accepted spelling, its number, and the way back.
BOOST_DATA_TEST_CASE(every_name_round_trips, bdata::make(canonical), sample)
{
    std::string lower;
    for (char c : sample.name)
        lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    for (auto const& text :
         {"SIG" + sample.name, sample.name, lower, "sig" + lower, std::to_string(sample.number)}) {
        auto const r = core::parse_signal(text);
        BOOST_TEST_REQUIRE(r.has_value(), text);
        BOOST_TEST(*r == sample.number, text);
    }
    BOOST_TEST(core::signal_name(sample.number) == "SIG" + sample.name);
}

struct parse_case {
    std::string text;
    int number;
};
std::ostream& operator<<(std::ostream& os, parse_case const& c)
{
    return os << '"' << c.text << '"';
}

std::vector<parse_case> const other_spellings{
    {"SigTerm", SIGTERM}, {" TERM\n", SIGTERM}, {"015", 15}, {"1", 1},   {"IOT", SIGABRT},
    {"cld", SIGCHLD},     {"SIGPOLL", SIGIO},   {"64", 64},  {"40", 40},
};

BOOST_DATA_TEST_CASE(aliases_and_numbers_are_accepted, bdata::make(other_spellings), sample)
{
    auto const r = core::parse_signal(sample.text);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(*r == sample.number);
}

BOOST_DATA_TEST_CASE(anything_else_is_rejected,
                     bdata::make(std::vector<std::string>{"SIGFOO", "", "SIG", "0", "65", "-15",
                                                          "+15", "15x", "TERM1", "SIGTERMX",
                                                          "SIG TERM", "99999999999999999999"}),
                     text)
{
    auto const r = core::parse_signal(text);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message ==
               "signal: \"" + text +
                   "\" is not a signal name or number (examples: SIGTERM, TERM, 15)");
}

BOOST_AUTO_TEST_CASE(error_message_quotes_the_input_verbatim)
{
    BOOST_TEST(core::parse_signal("SIGFOO").error().message ==
               R"(signal: "SIGFOO" is not a signal name or number (examples: SIGTERM, TERM, 15))");
}

std::vector<parse_case> const names{
    {"SIGTERM", 15},      {"SIGKILL", 9},   {"SIGABRT", SIGABRT},
    {"SIGCHLD", SIGCHLD}, {"SIGIO", SIGIO}, {"signal 99", 99},
    {"signal 40", 40},    {"signal 0", 0},  {"signal -1", -1},
};

BOOST_DATA_TEST_CASE(names_of_numbers, bdata::make(names), sample)
{
    BOOST_TEST(core::signal_name(sample.number) == sample.text);
}

BOOST_AUTO_TEST_SUITE_END()
