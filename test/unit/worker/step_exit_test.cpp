// Step exit classification with the lines srun and slurmstepd print (Slurm 22.05's format strings,
// filled as they appeared on the emulated cluster of scripts/slurm-cluster.sh and in site reports),
// plus job output that merely looks like them.
#include "torcrun/worker/step_exit.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(step_exit)

using kind = core::exit_status::kind;
using rs = core::result_status;
using cause = core::step_cause;

core::exit_status exited(int code) { return {kind::exited, code, 0, false}; }
core::exit_status signaled(int sig) { return {kind::signaled, 0, sig, false}; }

std::string const time_limit_line =
    "slurmstepd: error: *** STEP 12.3 ON n1 CANCELLED AT 2026-11-29T17:13:31 DUE TO TIME LIMIT ***";
std::string const job_time_limit_line =
    "slurmstepd: error: *** JOB 12 ON n1 CANCELLED AT 2026-11-29T17:13:31 DUE TO TIME LIMIT ***";
std::string const cancel_line =
    "slurmstepd: error: *** STEP 17.0 ON n1 CANCELLED AT 2026-11-29T17:13:31 ***";
std::string const job_cancel_line =
    "slurmstepd: error: *** JOB 17 ON n1 CANCELLED AT 2026-11-29T17:13:31 ***";
std::string const preempt_line =
    "slurmstepd: error: *** STEP 17.0 ON n1 CANCELLED AT 2026-11-29T17:13:31 DUE TO PREEMPTION ***";
std::string const oom_v1_line =
    "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=12.0. Some of your processes may "
    "have been killed by the cgroup out-of-memory handler.";
std::string const oom_v2_line =
    "slurmstepd: error: Detected 1 oom_kill event in StepId=12.0. Some of the step tasks have been "
    "OOM Killed.";
std::string const oom_gather_line =
    "slurmstepd: error: StepId=12.0 exceeded memory limit (2097152 > 1048576), being killed";
std::string const oom_srun_line = "srun: error: n1: task 0: Out Of Memory";
std::string const busy_line =
    "srun: Job 12 step creation temporarily disabled, retrying (Requested nodes are busy)";
std::string const still_busy_line =
    "srun: Job 12 step creation still disabled, retrying (Requested nodes are busy)";

struct step_case {
    std::string name;
    core::exit_status srun;
    std::string tail;
    core::step_exit expected;
};
std::ostream& operator<<(std::ostream& os, step_case const& c) { return os << c.name; }

std::vector<step_case> const cases{
    {"clean exit", exited(0), "hello\n", {0, rs::completed, cause::exited, false, ""}},
    {"plain failure", exited(3), "srun: error: n1: task 0: Exited with exit code 3\n",
     {3, rs::failed, cause::exited, false, ""}},
    {"srun killed by a signal", signaled(9), "", {137, rs::failed, cause::exited, false, ""}},
    {"time limit, killed", exited(143),
     time_limit_line + "\nsrun: error: n1: task 0: Exited with exit code 143\n",
     {152, rs::terminated, cause::time_limit, false, time_limit_line}},
    {"time limit, job handled the signal", exited(0), time_limit_line + "\n",
     {0, rs::completed, cause::time_limit, false, time_limit_line}},
    {"whole job time limit", exited(1), job_time_limit_line,
     {152, rs::terminated, cause::time_limit, false, job_time_limit_line}},
    {"oom, cgroup v1", exited(1), "partial line\n" + oom_v1_line + "\n",
     {137, rs::failed, cause::out_of_memory, false, oom_v1_line}},
    {"oom, cgroup v2", exited(0), oom_v2_line + "\r\n",
     {137, rs::failed, cause::out_of_memory, false, oom_v2_line}},
    {"oom, jobacct_gather", exited(1), oom_gather_line,
     {137, rs::failed, cause::out_of_memory, false, oom_gather_line}},
    {"oom, srun task report", exited(1), oom_srun_line + "\n",
     {137, rs::failed, cause::out_of_memory, false, oom_srun_line}},
    {"oom wins over the time limit", exited(143), time_limit_line + "\n" + oom_v1_line + "\n",
     {137, rs::failed, cause::out_of_memory, false, oom_v1_line}},
    {"step waited, then ran", exited(0), busy_line + "\nsrun: Step created for job 12\n",
     {0, rs::completed, cause::exited, true, ""}},
    {"step still waiting when cancelled", exited(1),
     still_busy_line + "\nsrun: Cancelled pending job step with signal 15\n",
     {1, rs::failed, cause::exited, true, ""}},
    {"throttled is not killed", exited(0),
     "slurmstepd: error: StepId=12.0 hit memory limit at least once during execution. This may "
     "or may not result in some failure.\n",
     {0, rs::completed, cause::exited, false, ""}},
    {"scancel: terminated with the job's own code", exited(143), cancel_line + "\n",
     {143, rs::terminated, cause::canceled, false, cancel_line}},
    {"scancel of the allocation", exited(15), job_cancel_line + "\n",
     {15, rs::terminated, cause::canceled, false, job_cancel_line}},
    {"scancel, job handled the signal", exited(0), cancel_line + "\n",
     {0, rs::completed, cause::canceled, false, cancel_line}},
    {"preempted is a cancel", exited(143), preempt_line + "\n",
     {143, rs::terminated, cause::canceled, false, preempt_line}},
    {"time limit wins over a cancel", exited(143), cancel_line + "\n" + time_limit_line + "\n",
     {152, rs::terminated, cause::time_limit, false, time_limit_line}},
    {"oom wins over a cancel", exited(143), cancel_line + "\n" + oom_srun_line + "\n",
     {137, rs::failed, cause::out_of_memory, false, oom_srun_line}},
    {"time limit, exit 2 in the grace", exited(2), time_limit_line + "\n",
     {152, rs::terminated, cause::time_limit, false, time_limit_line}},
    {"job output that looks like a cancel", exited(143), "echo " + cancel_line + "\n",
     {143, rs::failed, cause::exited, false, ""}},
    {"job output that looks like slurm", exited(2),
     "my job: exceeded memory limit\n  " + time_limit_line + "\necho " + busy_line + "\n",
     {2, rs::failed, cause::exited, false, ""}},
    {"slurmstepd with a node suffix", exited(1),
     "slurmstepd-n2: error: Detected 2 oom-kill event(s) in StepId=3.0.",
     {137, rs::failed, cause::out_of_memory, false,
      "slurmstepd-n2: error: Detected 2 oom-kill event(s) in StepId=3.0."}},
};

BOOST_DATA_TEST_CASE(steps_are_classified, bdata::make(cases), sample)
{
    auto const got = core::classify_step_exit(sample.srun, sample.tail);
    BOOST_TEST(got.return_code == sample.expected.return_code);
    BOOST_TEST(core::to_string(got.status) == core::to_string(sample.expected.status));
    BOOST_TEST(static_cast<int>(got.cause) == static_cast<int>(sample.expected.cause));
    BOOST_TEST(got.waited_for_resources == sample.expected.waited_for_resources);
    BOOST_TEST(got.evidence == sample.expected.evidence);
}

BOOST_AUTO_TEST_SUITE_END()
