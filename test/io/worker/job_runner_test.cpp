// The worker's local work with real processes: GPU visibility and the scrubbed environment as
// the job sees them and as the attempt record keeps them, the command recorded, the flat output
// files, the attempt directory only for a failed attempt (or always, by configuration), exit
// statuses, spawn failures with their messages verbatim, memory reports and usage, signals,
// run_commands, recovery scripts, events never delivered inside a call, and kills that leave
// no process behind.
#include "torcrun/worker/io/job_runner.hpp"

#include "runner_fixture.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <filesystem>
#include <ostream>

namespace io = torcrun::io;
namespace core = torcrun::core;
namespace test = torcrun::test;
namespace bdata = boost::unit_test::data;
using namespace std::chrono_literals;
using kind = core::exit_status::kind;

BOOST_AUTO_TEST_SUITE(job_runner)

struct gpu_case {
    std::vector<std::string> gpus;
    std::string visible;  // CUDA_ and ROCR_VISIBLE_DEVICES as the job sees them
};
std::ostream& operator<<(std::ostream& os, gpu_case const& c) { return os << c.visible; }

std::vector<gpu_case> const gpu_cases{{{}, ""}, {{"2"}, "2"}, {{"0", "1"}, "0,1"}};

BOOST_DATA_TEST_CASE(the_reserved_gpus_are_the_visible_ones, bdata::make(gpu_cases), c)
{
    test::runner_fixture f;
    f.make(f.settings());
    auto const action = test::spawn_action(
        42, test::fake_job_command("print-env CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES"),
        c.gpus);
    f.call([&](io::job_runner& r) { r.spawn(action); });
    BOOST_TEST(f.runner->running() == 1u);
    auto const exited = f.wait_for<core::worker::job_exited>(42);
    BOOST_TEST(exited.status.describe() == "exited with 0");
    BOOST_TEST(f.runner->running() == 0u);
    BOOST_TEST(f.all<core::worker::job_spawned>().size() == 1u);
    BOOST_TEST(std::holds_alternative<core::worker::job_spawned>(f.events.front()));
    auto const paths = f.paths(action);
    BOOST_TEST(test::read_file(paths.stdout_file) == "CUDA_VISIBLE_DEVICES=" + c.visible +
                                                         "\nROCR_VISIBLE_DEVICES=" + c.visible +
                                                         "\n");
    auto const recorded = f.recorded(action).environment.value_or("");
    BOOST_TEST(recorded.find("+ CUDA_VISIBLE_DEVICES=" + c.visible + "\n") != std::string::npos);
    BOOST_TEST(recorded.find("+ CUDA_DEVICE_ORDER=PCI_BUS_ID\n") != std::string::npos);
    BOOST_TEST(f.logged("info runner: job started job=42 name=job42 pid="));
    BOOST_TEST(f.logged(" gpus=" + (c.gpus.empty() ? std::string("none") : c.visible) +
                        " stdout=" + paths.stdout_file));
    BOOST_TEST(f.logged("info runner: job exited job=42 name=job42 rc=0 status=\"exited with 0\""));
}

BOOST_AUTO_TEST_CASE(launcher_variables_go_and_the_allocation_stays)
{
    test::runner_fixture f;
    auto s = f.settings();
    s.worker_env.insert({{"PMI_RANK", "3"},
                         {"PMIX_NAMESPACE", "slurm.pmix.77.0"},
                         {"SLURM_STEP_ID", "0"},
                         {"SLURM_JOB_ID", "77"},
                         {"TORC_RETURN_CODE", "9"}});
    f.make(s);
    auto const action = test::spawn_action(
        7, test::fake_job_command(
               "print-env PMI_RANK PMIX_NAMESPACE SLURM_STEP_ID SLURM_JOB_ID TORC_RETURN_CODE "
               "TORC_JOB_ID TORC_WORKFLOW_ID TORC_OUTPUT_DIR"));
    f.call([&](io::job_runner& r) { r.spawn(action); });
    f.wait_for<core::worker::job_exited>(7);
    auto const paths = f.paths(action);
    BOOST_TEST(test::read_file(paths.stdout_file) ==
               "PMI_RANK unset\nPMIX_NAMESPACE unset\nSLURM_STEP_ID unset\nSLURM_JOB_ID=77\n"
               "TORC_RETURN_CODE unset\nTORC_JOB_ID=7\nTORC_WORKFLOW_ID=5\nTORC_OUTPUT_DIR=" +
                   f.output_dir() + "\n");
    auto const recorded = f.recorded(action).environment.value_or("");
    for (auto const* line : {"- PMIX_NAMESPACE\n", "- PMI_RANK\n", "- SLURM_STEP_ID\n",
                             "- TORC_RETURN_CODE\n", "+ TORC_JOB_ID=7\n"})
        BOOST_TEST(recorded.find(line) != std::string::npos, line);
    BOOST_TEST(recorded.find("SLURM_JOB_ID") == std::string::npos);
}

// A job that exits with 0: its two stdio files, named as Torc names them, and its command and
// environment in the record; no attempt directory.
BOOST_AUTO_TEST_CASE(a_successful_attempt_leaves_its_two_files_and_its_record)
{
    test::runner_fixture f;
    f.make(f.settings());
    auto action = test::spawn_action(3, test::fake_job_command("write 'to out' 'to err'"));
    action.job.attempt_id = 2;
    action.run_id = 4;
    f.call([&](io::job_runner& r) { r.spawn(action); });
    f.wait_for<core::worker::job_exited>(3);
    auto const paths = f.paths(action);
    BOOST_TEST(paths.stdout_file == f.output_dir() + "/job_stdio/job_wf5_j3_r4_a2.o");
    BOOST_TEST(test::read_file(paths.stdout_file) == "to out\n");
    BOOST_TEST(test::read_file(paths.stderr_file) == "to err\n");
    auto const recorded = f.recorded(action);
    BOOST_TEST(recorded.command.value_or("") ==
               core::render_command_line({"bash", "-c", action.job.command}) + "\n");
    BOOST_TEST(recorded.environment.value_or("").find("+ TORC_JOB_ID=3\n") != std::string::npos);
    std::error_code ec;
    BOOST_TEST(!std::filesystem::exists(paths.dir, ec));
    BOOST_TEST(!std::filesystem::exists(f.output_dir() + "/jobs", ec));
    std::size_t entries = 0;
    for ([[maybe_unused]] auto const& e :
         std::filesystem::directory_iterator(f.output_dir() + "/job_stdio"))
        ++entries;
    BOOST_TEST(entries == 2u);
}

// A job that fails gets its attempt directory as before: command.txt, environment.txt and its
// streams, linked under their old names.
BOOST_AUTO_TEST_CASE(a_failed_attempt_gets_its_directory)
{
    test::runner_fixture f;
    f.make(f.settings());
    auto action = test::spawn_action(3, test::fake_job_command("write 'to out' 'to err'") + "; exit 4");
    f.call([&](io::job_runner& r) { r.spawn(action); });
    auto const exited = f.wait_for<core::worker::job_exited>(3);
    BOOST_TEST(exited.status.describe() == "exited with 4");
    auto const paths = f.paths(action);
    BOOST_TEST(paths.dir == f.output_dir() + "/jobs/wf5_j3/r1_a1");
    BOOST_TEST(test::read_file(paths.command_file) ==
               core::render_command_line({"bash", "-c", action.job.command}) + "\n");
    BOOST_TEST(test::read_file(paths.command_file).starts_with("bash -c '"));
    BOOST_TEST(test::read_file(paths.environment_file).find("+ TORC_JOB_ID=3\n") !=
               std::string::npos);
    BOOST_TEST(test::read_file(paths.dir + "/stdout") == "to out\n");
    BOOST_TEST(test::read_file(paths.dir + "/stderr") == "to err\n");
    BOOST_TEST(test::read_file(paths.stdout_file) == "to out\n");
}

// attempt_directory: always: every attempt gets its directory, written before the job runs.
BOOST_AUTO_TEST_CASE(attempt_directory_always_writes_it_for_every_attempt)
{
    test::runner_fixture f;
    auto s = f.settings();
    s.config.attempt_directory = core::attempt_directory_use::always;
    f.make(s);
    auto action = test::spawn_action(3, test::fake_job_command("write 'to out' 'to err'"));
    f.call([&](io::job_runner& r) { r.spawn(action); });
    f.wait_for<core::worker::job_exited>(3);
    auto const paths = f.paths(action);
    BOOST_TEST(test::read_file(paths.command_file) ==
               core::render_command_line({"bash", "-c", action.job.command}) + "\n");
    BOOST_TEST(test::read_file(paths.dir + "/stdout") == "to out\n");
    BOOST_TEST(test::read_file(paths.dir + "/stderr") == "to err\n");
    BOOST_TEST(f.recorded(action).command.has_value());
}

struct exit_case {
    std::string command;
    core::exit_status status;
};
std::ostream& operator<<(std::ostream& os, exit_case const& c) { return os << c.command; }

std::vector<exit_case> const exit_cases{
    {"true", {kind::exited, 0, 0, false}},
    {"exit 3", {kind::exited, 3, 0, false}},
    {"kill -TERM $$", {kind::signaled, 0, SIGTERM, false}},
    {"kill -KILL $$", {kind::signaled, 0, SIGKILL, false}},
};

BOOST_DATA_TEST_CASE(exit_codes_and_signals_come_back, bdata::make(exit_cases), c)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([&](io::job_runner& r) { r.spawn(test::spawn_action(9, c.command)); });
    auto const exited = f.wait_for<core::worker::job_exited>(9);
    BOOST_TEST(exited.status.describe() == c.status.describe());
    BOOST_TEST(exited.usage.has_value());
}

BOOST_AUTO_TEST_CASE(a_signal_reaches_the_job)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([&](io::job_runner& r) { r.spawn(test::spawn_action(1, "exec sleep 30")); });
    f.wait_for<core::worker::job_spawned>(1);
    f.call([&](io::job_runner& r) { r.signal({1, SIGTERM}); });
    auto const exited = f.wait_for<core::worker::job_exited>(1);
    BOOST_TEST(exited.status.return_code() == 128 + SIGTERM);
    f.call([&](io::job_runner& r) { r.signal({1, SIGTERM}); });  // gone by now: only a warning
    BOOST_TEST(f.logged("warning runner: signal for a job that is not running job=1 signal=15"));
}

struct failure_case {
    std::string name;
    std::function<void(io::job_runner_settings&, core::worker::spawn&)> change;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, failure_case const& c) { return os << c.name; }

std::vector<failure_case> const failure_cases{
    {"bad working directory",
     [](auto& s, auto&) { s.working_dir = "/nonexistent-torcrun"; },
     R"(spawn: working directory "/nonexistent-torcrun": No such file or directory)"},
    {"no bash on the PATH", [](auto& s, auto&) { s.worker_env["PATH"] = "/nonexistent-torcrun"; },
     R"(spawn: "bash" was not found in PATH "/nonexistent-torcrun")"},
    {"no node reserved", [](auto&, auto& a) { a.placement.nodes.clear(); },
     "launch: job 12: no node was reserved"},
    {"output directory is a file", [](auto& s, auto&) { s.config.output_dir = "/dev/null"; },
     R"(spawn: stdio directory "/dev/null/job_stdio": Not a directory)"},
};

BOOST_DATA_TEST_CASE(a_failed_spawn_is_reported_verbatim, bdata::make(failure_cases), c)
{
    test::runner_fixture f;
    auto s = f.settings();
    auto action = test::spawn_action(12, "true");
    c.change(s, action);
    f.make(s);
    f.call([&](io::job_runner& r) { r.spawn(action); });
    auto const failed = f.wait_for<core::worker::spawn_failed>(12);
    BOOST_TEST(failed.message == c.message);
    BOOST_TEST(f.events.size() == 1u);
    BOOST_TEST(f.runner->running() == 0u);
    BOOST_TEST(!f.delivered_inside);
    BOOST_TEST(f.logged("warning runner: job spawn failed job=12 error="));
}

// A launch that fails says why in the attempt's stderr, the file `torcrun logs` shows, and the
// attempt gets its directory (command.txt, the stderr linked).
BOOST_AUTO_TEST_CASE(a_failed_launch_says_why_in_the_attempt_stderr)
{
    test::runner_fixture f;
    auto s = f.settings();
    s.worker_env["PATH"] = "/nonexistent-torcrun";
    auto const action = test::spawn_action(12, "true");
    f.make(s);
    f.call([&](io::job_runner& r) { r.spawn(action); });
    f.wait_for<core::worker::spawn_failed>(12);
    BOOST_TEST(test::read_file(f.paths(action).stderr_file) ==
               "torcrun: the job's process could not start: spawn: \"bash\" was not found in PATH "
               "\"/nonexistent-torcrun\"\n");
    auto const paths = f.paths(action);
    BOOST_TEST(test::read_file(paths.dir + "/stderr") == test::read_file(paths.stderr_file));
    BOOST_TEST(test::read_file(paths.command_file) == "bash -c true\n");
}

BOOST_AUTO_TEST_CASE(memory_is_reported_only_when_enforced)
{
    for (bool const enforce : {true, false}) {
        BOOST_TEST_CONTEXT("enforce_memory " << enforce)
        {
            test::runner_fixture f;
            auto s = f.settings();
            s.config.limits.enforce_memory = enforce;
            f.make(s);
            f.call([&](io::job_runner& r) {
                r.spawn(test::spawn_action(5, test::fake_job_command("alloc 64 400")));
            });
            auto const exited = f.wait_for<core::worker::job_exited>(5);
            auto const reports = f.all<core::worker::memory_used>();
            BOOST_TEST(reports.empty() == !enforce);
            std::uint64_t peak = 0;
            for (auto const& m : reports) peak = std::max(peak, m.used_bytes);
            if (enforce) BOOST_TEST(peak >= 64u << 20);
            BOOST_TEST_REQUIRE(exited.usage.has_value());
            BOOST_TEST(exited.usage->peak_memory_bytes >= 64u << 20);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_memory_report_can_kill_the_job)
{
    test::runner_fixture f;
    auto s = f.settings();
    s.config.limits.enforce_memory = true;
    f.make(s);
    f.call([&](io::job_runner& r) {
        r.spawn(test::spawn_action(6, test::fake_job_command("alloc 32 30000")));
    });
    BOOST_TEST_REQUIRE(test::run_until(f.ioc, [&] {
        for (auto const& m : f.all<core::worker::memory_used>())
            if (m.used_bytes >= 32u << 20) return true;
        return false;
    }, 20s));
    f.call([&](io::job_runner& r) { r.signal({6, SIGKILL}); });
    auto const exited = f.wait_for<core::worker::job_exited>(6);
    BOOST_TEST(exited.status.return_code() == 137);
}

BOOST_AUTO_TEST_CASE(a_cpu_burning_job_reports_its_usage)
{
    test::runner_fixture f;
    f.make(f.settings());
    f.call([&](io::job_runner& r) {
        r.spawn(test::spawn_action(8, test::fake_job_command("spin 400 2")));
    });
    auto const exited = f.wait_for<core::worker::job_exited>(8);
    BOOST_TEST_REQUIRE(exited.usage.has_value());
    BOOST_TEST(exited.usage->avg_cpu_percent > 5.0);
    BOOST_TEST(exited.usage->peak_cpu_percent >= exited.usage->avg_cpu_percent * 0.5);
    BOOST_TEST(exited.usage->peak_memory_bytes > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
