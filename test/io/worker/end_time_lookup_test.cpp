// The allocation end from squeue: its local-time answer read as this machine's zone, the
// answers that are not a time, and a real child (a stand-in squeue script on PATH) that
// answers, fails, or hangs past the timeout.
#include "worker/io/end_time_lookup.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace io = torcrun::io;
namespace asio = boost::asio;
namespace bdata = boost::unit_test::data;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(end_time_lookup)

namespace {

// Runs `body` with TZ set, restoring the old value afterwards.
struct zone {
    explicit zone(char const* tz) { ::setenv("TZ", tz, 1), ::tzset(); }
    ~zone() { ::unsetenv("TZ"), ::tzset(); }
};

struct fake_squeue {
    fs::path dir = fs::temp_directory_path() /
                   ("torcrun-io-tests-" + std::to_string(::getpid())) / "squeue";
    explicit fake_squeue(std::string const& script) {
        fs::create_directories(dir);
        std::ofstream(dir / "squeue") << "#!/bin/sh\n" << script << "\n";
        fs::permissions(dir / "squeue", fs::perms::owner_all);
    }
    ~fake_squeue() { fs::remove_all(dir); }

    core::result<double> run(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
        asio::io_context ioc;
        io::launcher launch(ioc.get_executor());
        auto f = asio::co_spawn(ioc,
                                io::look_up_end_time(launch, "42",
                                                     {{"PATH", dir.string() + ":/bin:/usr/bin"}},
                                                     (dir / "out").string(), timeout),
                                asio::use_future);
        ioc.run();
        return f.get();
    }
};

struct parse_case {
    char const* tz;
    std::string text;
    double unix_seconds;
};
std::ostream& operator<<(std::ostream& os, parse_case const& c)
{
    return os << c.tz << " " << c.text;
}

std::vector<parse_case> const parses{
    {"UTC0", "2025-06-30T17:00:00\n", 1751302800},
    {"EST5EDT,M3.2.0,M11.1.0", "2025-06-30T13:00:00", 1751302800},  // EDT, UTC-4
    {"EST5EDT,M3.2.0,M11.1.0", "2025-01-15T12:00:00", 1736960400},  // EST, UTC-5
    {"CET-1", "2025-06-30T18:00:00", 1751302800},
};

}  // namespace

BOOST_DATA_TEST_CASE(squeue_local_time_is_read_in_the_machine_zone, bdata::make(parses), c) {
    zone z(c.tz);
    auto const t = io::parse_squeue_end_time(c.text);
    BOOST_TEST_REQUIRE(t.has_value());
    BOOST_TEST(*t == c.unix_seconds);
}

BOOST_DATA_TEST_CASE(answers_that_are_no_time_are_quoted,
                     bdata::make({"N/A", "Unknown", "NONE", "", "2025-06-30T17:00:00Z"}), text) {
    auto const t = io::parse_squeue_end_time(text);
    BOOST_TEST_REQUIRE(!t.has_value());
    BOOST_TEST(t.error().message ==
               "squeue: end time \"" + std::string(text) + "\" is not a date-time");
}

BOOST_AUTO_TEST_CASE(a_real_child_answers) {
    zone z("UTC0");
    fake_squeue squeue(R"([ "$*" = "-h -j 42 -o %e" ] && echo 2025-06-30T17:00:00)");
    auto const t = squeue.run();
    BOOST_TEST_REQUIRE(t.has_value(), (t ? "" : t.error().message));
    BOOST_TEST(*t == 1751302800.0);
}

BOOST_AUTO_TEST_CASE(a_failing_squeue_is_named_with_its_stderr) {
    fake_squeue squeue("echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
    auto const t = squeue.run();
    BOOST_TEST_REQUIRE(!t.has_value());
    BOOST_TEST(t.error().message ==
               "squeue: exited with 1: slurm_load_jobs error: Invalid job id specified");
}

BOOST_AUTO_TEST_CASE(a_hanging_squeue_is_killed_at_the_timeout) {
    fake_squeue squeue("exec sleep 30");
    auto const started = std::chrono::steady_clock::now();
    auto const t = squeue.run(std::chrono::milliseconds(200));
    BOOST_TEST((std::chrono::steady_clock::now() - started < std::chrono::seconds(5)));
    BOOST_TEST_REQUIRE(!t.has_value());
    BOOST_TEST(t.error().message == "squeue: killed by SIGKILL (9)");
}

BOOST_AUTO_TEST_CASE(a_missing_squeue_is_named) {
    asio::io_context ioc;
    io::launcher launch(ioc.get_executor());
    auto f = asio::co_spawn(ioc,
                            io::look_up_end_time(launch, "42", {{"PATH", "/nonexistent"}},
                                                 "/dev/null", std::chrono::seconds(1)),
                            asio::use_future);
    ioc.run();
    auto const t = f.get();
    BOOST_TEST_REQUIRE(!t.has_value());
    BOOST_TEST(t.error().message ==
               "squeue: spawn: \"squeue\" was not found in PATH \"/nonexistent\"");
}

BOOST_AUTO_TEST_SUITE_END()
