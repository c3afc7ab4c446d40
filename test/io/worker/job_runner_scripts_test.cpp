// run_commands actions (in order, in the output directory, stopping at the first failure, logs
// under actions/action_<id>/) and failure-rule recovery scripts (the TORC_* variables of
// docs/TORC-COMPATIBILITY.md §3.3, the failed attempt's log paths, output in its attempt directory,
// the exit only logged).
#include "torcrun/worker/io/job_runner.hpp"

#include "runner_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>

namespace io = torcrun::io;
namespace core = torcrun::core;
namespace test = torcrun::test;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(job_runner_scripts)

BOOST_AUTO_TEST_CASE(commands_run_in_order_in_the_output_directory)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([](io::job_runner& r) {
        r.run_commands({7, {"echo one > a.txt", "cat a.txt; echo two; echo err >&2",
                            "echo $TORC_WORKFLOW_ID"}});
    });
    auto const done = f.wait_for<core::worker::action_finished>(7);
    BOOST_TEST(done.succeeded);
    BOOST_TEST(done.detail == "3 commands exited with 0");
    BOOST_TEST(!f.delivered_inside);
    auto const logs = f.output_dir() + "/actions/action_7/";
    BOOST_TEST(test::read_file(logs + "command_2.stdout") == "one\ntwo\n");
    BOOST_TEST(test::read_file(logs + "command_2.stderr") == "err\n");
    BOOST_TEST(test::read_file(logs + "command_3.stdout") == "5\n");
    BOOST_TEST(f.logged("info runner: action commands succeeded action=7"));
}

BOOST_AUTO_TEST_CASE(the_first_failing_command_stops_the_action)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([](io::job_runner& r) { r.run_commands({8, {"true", "exit 4", "touch never"}}); });
    auto const done = f.wait_for<core::worker::action_finished>(8);
    BOOST_TEST(!done.succeeded);
    BOOST_TEST(done.detail == R"(command 2 "exit 4": exited with 4)");
    BOOST_TEST(!fs::exists(f.output_dir() + "/never"));
    BOOST_TEST(!fs::exists(f.output_dir() + "/actions/action_8/command_3.stdout"));
    BOOST_TEST(f.logged(R"(warning runner: action commands failed action=8 detail="command 2)"));
}

BOOST_AUTO_TEST_CASE(a_command_that_cannot_start_fails_the_action)
{
    test::runner_fixture f;
    auto s = f.settings();
    s.worker_env["PATH"] = "/nonexistent-torcrun";
    f.make(s);
    f.call([](io::job_runner& r) { r.run_commands({9, {"true"}}); });
    auto const done = f.wait_for<core::worker::action_finished>(9);
    BOOST_TEST(!done.succeeded);
    BOOST_TEST(done.detail ==
               R"(command 1 "true": spawn: "bash" was not found in PATH "/nonexistent-torcrun")");
}

BOOST_AUTO_TEST_CASE(an_empty_action_succeeds)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([](io::job_runner& r) { r.run_commands({10, {}}); });
    auto const done = f.wait_for<core::worker::action_finished>(10);
    BOOST_TEST(done.succeeded);
    BOOST_TEST(done.detail == "0 commands exited with 0");
}

// Runs the job to its failure, then its recovery script; returns the attempt's paths.
core::attempt_paths fail_then_recover(test::runner_fixture& f, std::string script)
{
    auto action = test::spawn_action(42, "exit 3");
    action.run_id = 2;
    f.call([&](io::job_runner& r) { r.spawn(action); });
    f.wait_for<core::worker::job_exited>(42);
    f.call([&](io::job_runner& r) { r.run_recovery({42, "job42", 1, 3, script}); });
    BOOST_TEST_REQUIRE(test::run_until(f.ioc, [&] { return f.logged("runner: recovery"); }, 20s));
    return f.paths(action);
}

BOOST_AUTO_TEST_CASE(a_recovery_script_sees_the_documented_variables)
{
    test::runner_fixture f;
    f.make(f.settings());
    auto const paths = fail_then_recover(f, "env | grep -E '^TORC_' | sort");
    BOOST_TEST(test::read_file(paths.dir + "/recovery.stdout") ==
               "TORC_API_URL=http://127.0.0.1:9/torc-service/v1\n"
               "TORC_ATTEMPT_ID=1\n"
               "TORC_JOB_ID=42\n"
               "TORC_JOB_NAME=job42\n"
               "TORC_JOB_STDERR=" + paths.stderr_file + "\n"
               "TORC_JOB_STDOUT=" + paths.stdout_file + "\n"
               "TORC_OUTPUT_DIR=" + f.output_dir() + "\n"
               "TORC_RETURN_CODE=3\n"
               "TORC_RUN_ID=2\n"
               "TORC_WORKFLOW_ID=5\n");
    BOOST_TEST(f.logged("info runner: recovery script succeeded job=42 rc=0"));
    BOOST_TEST(f.events.size() == 2u);  // job_spawned, job_exited: nothing for the script
}

BOOST_AUTO_TEST_CASE(a_failing_recovery_script_is_a_warning)
{
    test::runner_fixture f;
    f.make(f.settings());
    auto const paths = fail_then_recover(f, "echo trying >&2; exit 2");
    BOOST_TEST(test::read_file(paths.dir + "/recovery.stderr") == "trying\n");
    BOOST_TEST(f.logged("warning runner: recovery script failed job=42 rc=2 "
                        "status=\"exited with 2\" dir=" + paths.dir));
    BOOST_TEST(f.events.size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
