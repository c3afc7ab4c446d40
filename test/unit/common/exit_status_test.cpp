// Wait-status classification. Raw statuses are built with the Linux layout (exit code in bits
// 8-15, terminating signal in bits 0-6, core flag 0x80, 0x7f = stopped, 0xffff = continued);
// the static_asserts pin that layout to the <sys/wait.h> macros the code uses.
#include "torcrun/common/exit_status.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <csignal>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

static_assert(WIFEXITED(3 << 8) && WEXITSTATUS(3 << 8) == 3);
static_assert(WIFSIGNALED(9) && WTERMSIG(9) == 9 && !WCOREDUMP(9));
static_assert(WIFSIGNALED(11 | 0x80) && WTERMSIG(11 | 0x80) == 11 && WCOREDUMP(11 | 0x80));
static_assert(WIFSTOPPED(0x057f) && WSTOPSIG(0x057f) == 5 && !WIFSIGNALED(0x057f));
static_assert(WIFCONTINUED(0xffff) && !WIFSIGNALED(0xffff) && !WIFSTOPPED(0xffff));

BOOST_AUTO_TEST_SUITE(exit_status)

using kind = core::exit_status::kind;

struct termination_case {
    int raw;
    core::exit_status expected;
    int return_code;
    std::string description;
};
std::ostream& operator<<(std::ostream& os, termination_case const& c) { return os << c.raw; }

std::vector<termination_case> const terminations{
    {0, {kind::exited, 0, 0, false}, 0, "exited with 0"},
    {1 << 8, {kind::exited, 1, 0, false}, 1, "exited with 1"},
    {3 << 8, {kind::exited, 3, 0, false}, 3, "exited with 3"},
    {15 << 8, {kind::exited, 15, 0, false}, 15, "exited with 15"},
    {255 << 8, {kind::exited, 255, 0, false}, 255, "exited with 255"},
    {SIGKILL, {kind::signaled, 0, 9, false}, 137, "killed by SIGKILL (9)"},
    {SIGTERM, {kind::signaled, 0, 15, false}, 143, "killed by SIGTERM (15)"},
    {SIGINT, {kind::signaled, 0, 2, false}, 130, "killed by SIGINT (2)"},
    {SIGHUP, {kind::signaled, 0, 1, false}, 129, "killed by SIGHUP (1)"},
    {SIGSEGV | 0x80, {kind::signaled, 0, 11, true}, 139, "killed by SIGSEGV (11), core dumped"},
    {SIGABRT | 0x80, {kind::signaled, 0, 6, true}, 134, "killed by SIGABRT (6), core dumped"},
    {SIGUSR1,
     {kind::signaled, 0, SIGUSR1, false},
     128 + SIGUSR1,
     "killed by SIGUSR1 (" + std::to_string(SIGUSR1) + ")"},
    {40, {kind::signaled, 0, 40, false}, 168, "killed by signal 40"},
};

BOOST_DATA_TEST_CASE(terminations_are_classified, bdata::make(terminations), sample)
{
    auto const r = core::classify_wait_status(sample.raw);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST((*r == sample.expected));
    BOOST_TEST(r->return_code() == sample.return_code);
    BOOST_TEST(r->describe() == sample.description);
}

// Exit 15 and SIGTERM share exit_code() == 15 in Process v2; classification keeps them apart.
BOOST_AUTO_TEST_CASE(exit_15_is_not_sigterm)
{
    auto const exited = core::classify_wait_status(15 << 8);
    auto const killed = core::classify_wait_status(SIGTERM);
    BOOST_TEST_REQUIRE((exited.has_value() && killed.has_value()));
    BOOST_TEST((*exited != *killed));
    BOOST_TEST(exited->return_code() != killed->return_code());
}

struct rejection_case {
    int raw;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, rejection_case const& c) { return os << c.raw; }

std::vector<rejection_case> const rejections{
    {0x057f, "wait status: 0x057f is not a termination (stopped by SIGTRAP (5))"},
    {(SIGSTOP << 8) | 0x7f, "wait status: 0x137f is not a termination (stopped by SIGSTOP (19))"},
    // Process v2's "still active" initial value.
    {0x017f, "wait status: 0x017f is not a termination (stopped by SIGHUP (1))"},
    {0xffff, "wait status: 0xffff is not a termination (continued)"},
    {0x01ff, "wait status: 0x01ff is not a valid wait status"},
    {0x10000, "wait status: 0x10000 is not a valid wait status"},
    {-1, "wait status: 0xffffffff is not a valid wait status"},
};

BOOST_DATA_TEST_CASE(non_terminations_are_errors, bdata::make(rejections), sample)
{
    auto const r = core::classify_wait_status(sample.raw);
    BOOST_TEST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == sample.message);
}

BOOST_AUTO_TEST_SUITE_END()
