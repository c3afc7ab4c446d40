// Launch plans: the direct and slurm argv verbatim for single-GPU, CPU-only, 0-memory and
// 2-node x 4-GPU jobs, tasks per node, the srun --time from the time left, srun settings of
// the config, the refusals verbatim, and a whole plan (environment, record, paths).
#include "torcrun/worker/launch_plan.hpp"

#include "env_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace fixtures;

BOOST_AUTO_TEST_SUITE(launch_plan)

namespace {

using mode = core::execution_mode;
using argv_t = std::vector<std::string>;

constexpr std::uint64_t mib = 1ull << 20;

core::node_share share(std::size_t index, std::string name, std::uint32_t cpus,
                       std::uint64_t memory, std::vector<std::string> gpus)
{
    return {index, std::move(name), cpus, memory, std::move(gpus)};
}

core::reservation one_gpu()
{
    return {core::reservation_id{42}, false, {share(1, "n2", 4, 2048 * mib, {"1"})}};
}

core::reservation cpu_only()
{
    return {core::reservation_id{42}, false, {share(0, "n1", 2, 512 * mib, {})}};
}

core::reservation memory(std::uint64_t bytes)
{
    return {core::reservation_id{42}, false, {share(0, "n1", 1, bytes, {})}};
}

core::reservation two_by_four()
{
    std::vector<std::string> const gpus{"0", "1", "2", "3"};
    return {core::reservation_id{42},
            true,
            {share(0, "n1", 8, 4000 * mib, gpus), share(1, "n2", 8, 4000 * mib, gpus)}};
}

core::launch_request request(mode m, core::reservation placement)
{
    core::launch_request r;
    r.mode = m;
    r.identity = {5, 42, "train_3", 1, 2, std::nullopt};
    r.command = "python train.py --lr 0.1";
    r.placement = std::move(placement);
    r.working_dir = "/scratch/wd";
    r.slurm_job_id = "6";
    return r;
}

core::result<core::launch_plan> plan(core::launch_request const& r,
                                     core::worker_config const& config = lab_config())
{
    return core::plan_launch(r, config, lab_worker());
}

argv_t srun_head(std::string nodes, std::string ntasks)
{
    return {"srun", "--jobid=6", "--exact", "--cpu-bind=none", "--nodes=" + nodes,
            "--ntasks=" + ntasks};
}

argv_t cat(std::initializer_list<argv_t> parts)
{
    argv_t out;
    for (auto const& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

argv_t const tail{"--job-name=wf5_j42_r1_a2", "--kill-on-bad-exit=1", "bash", "-c",
                  "python train.py --lr 0.1"};

struct argv_case {
    std::string desc;
    core::launch_request req;
    argv_t argv;
    core::worker_config config = lab_config();
};

std::ostream& operator<<(std::ostream& os, argv_case const& c)
{
    return os << c.desc;
}

core::launch_request with_tasks(core::launch_request r, std::uint32_t per_node)
{
    r.tasks_per_node = per_node;
    return r;
}

core::launch_request with_script(core::launch_request r, std::string script)
{
    r.invocation_script = std::move(script);
    return r;
}

core::worker_config srun_settings()
{
    auto config = lab_config();
    config.srun.signal = "TERM@120";
    config.srun.extra_args = {"--mpi=pmix", "--cpu-bind=none"};
    return config;
}

// Torc's sample_workflow.json.
std::string const validate_script =
    "#!/bin/bash\nset -e\nexport PYTHONPATH=/opt/validation:$PYTHONPATH\n";

std::vector<argv_case> const argv_cases{
    {"direct", request(mode::direct, one_gpu()), {"bash", "-c", "python train.py --lr 0.1"}},
    {"direct, CPU-only", request(mode::direct, cpu_only()),
     {"bash", "-c", "python train.py --lr 0.1"}},
    {"direct, invocation script of lines",
     with_script(request(mode::direct, one_gpu()), validate_script),
     {"bash", "-c", validate_script + " python train.py --lr 0.1"}},
    {"direct, invocation script as a wrapper",
     with_script(request(mode::direct, one_gpu()), "bash wrap.sh"),
     {"bash", "-c", "bash wrap.sh python train.py --lr 0.1"}},
    {"direct, empty invocation script", with_script(request(mode::direct, one_gpu()), ""),
     {"bash", "-c", "python train.py --lr 0.1"}},
    {"direct, tasks_per_node has no effect", with_tasks(request(mode::direct, cpu_only()), 4),
     {"bash", "-c", "python train.py --lr 0.1"}},
    {"slurm, single GPU", request(mode::slurm, one_gpu()),
     cat({srun_head("1", "1"),
          {"--cpus-per-task=4", "--mem=2048M", "--gpus-per-node=1", "--nodelist=n2"},
          tail})},
    {"slurm, CPU-only", request(mode::slurm, cpu_only()),
     cat({srun_head("1", "1"), {"--cpus-per-task=2", "--mem=512M", "--gres=none", "--nodelist=n1"},
          tail})},
    {"slurm, 0 memory", request(mode::slurm, memory(0)),
     cat({srun_head("1", "1"), {"--cpus-per-task=1", "--gres=none", "--nodelist=n1"}, tail})},
    {"slurm, under 1 MiB of memory", request(mode::slurm, memory(mib - 1)),
     cat({srun_head("1", "1"), {"--cpus-per-task=1", "--gres=none", "--nodelist=n1"}, tail})},
    {"slurm, 1.5 MiB rounds down", request(mode::slurm, memory(mib + mib / 2)),
     cat({srun_head("1", "1"), {"--cpus-per-task=1", "--mem=1M", "--gres=none", "--nodelist=n1"},
          tail})},
    {"slurm, 2 nodes x 4 GPUs: one task, as Torc", request(mode::slurm, two_by_four()),
     cat({srun_head("2", "1"),
          {"--cpus-per-task=8", "--mem=4000M", "--gpus-per-node=4", "--nodelist=n[1-2]"},
          tail})},
    {"slurm, 2 nodes, tasks_per_node 1: a task on each node",
     with_tasks(request(mode::slurm, two_by_four()), 1),
     cat({srun_head("2", "2"),
          {"--ntasks-per-node=1", "--cpus-per-task=8", "--mem=4000M", "--gpus-per-node=4",
           "--nodelist=n[1-2]"},
          tail})},
    {"slurm, 2 nodes x 4 tasks", with_tasks(request(mode::slurm, two_by_four()), 4),
     cat({srun_head("2", "8"),
          {"--ntasks-per-node=4", "--cpus-per-task=2", "--mem=4000M", "--gpus-per-node=4",
           "--nodelist=n[1-2]"},
          tail})},
    {"slurm, 3 tasks on 4 CPUs", with_tasks(request(mode::slurm, one_gpu()), 3),
     cat({srun_head("1", "3"),
          {"--cpus-per-task=1", "--mem=2048M", "--gpus-per-node=1", "--nodelist=n2"}, tail})},
    {"slurm, signal and extra args", request(mode::slurm, cpu_only()),
     cat({srun_head("1", "1"),
          {"--cpus-per-task=2", "--mem=512M", "--gres=none", "--nodelist=n1",
           "--job-name=wf5_j42_r1_a2", "--kill-on-bad-exit=1", "--signal=TERM@120", "--mpi=pmix",
           "--cpu-bind=none", "bash", "-c", "python train.py --lr 0.1"}}),
     srun_settings()},
    {"slurm, srun.cpu_bind leaves the binding to Slurm", request(mode::slurm, cpu_only()),
     {"srun", "--jobid=6", "--exact", "--nodes=1", "--ntasks=1", "--cpus-per-task=2", "--mem=512M",
      "--gres=none", "--nodelist=n1", "--job-name=wf5_j42_r1_a2", "--kill-on-bad-exit=1", "bash",
      "-c", "python train.py --lr 0.1"},
     [] {
         auto c = lab_config();
         c.srun.cpu_bind = true;
         return c;
     }()},
    {"slurm, invocation script", with_script(request(mode::slurm, cpu_only()), "bash wrap.sh"),
     cat({srun_head("1", "1"),
          {"--cpus-per-task=2", "--mem=512M", "--gres=none", "--nodelist=n1",
           "--job-name=wf5_j42_r1_a2", "--kill-on-bad-exit=1", "bash", "-c",
           "bash wrap.sh python train.py --lr 0.1"}})},
};

}  // namespace

BOOST_DATA_TEST_CASE(argv_verbatim, bdata::make(argv_cases), c)
{
    auto const p = plan(c.req, c.config);
    BOOST_TEST_REQUIRE(p.has_value(), p.error().message);
    BOOST_TEST((p->argv == c.argv), core::render_command_line(p->argv)
                                        << "\n  differs from\n"
                                        << core::render_command_line(c.argv));
}

namespace {

// The headroom (Torc's sigkill_headroom_seconds) is termination.drain_buffer_seconds minus
// termination.grace_seconds; the grace alone does not shorten the step.
struct time_case {
    double seconds_left;
    double grace;
    double drain_buffer;
    std::string expected;  // the --time flag, or the error message after "launch: job 42: "
};

std::ostream& operator<<(std::ostream& os, time_case const& c)
{
    return os << c.seconds_left << " s left, " << c.grace << " s grace, " << c.drain_buffer
              << " s drain buffer";
}

std::vector<time_case> const time_cases{
    {3600, 30, 60, "--time=59"},
    {3690, 30, 60, "--time=61"},
    {90, 30, 60, "--time=1"},
    {60, 0, 0, "--time=1"},
    {2 * 86400, 30, 60, "--time=2879"},
    {3600, 5, 185, "--time=57"},  // headroom 180: 3420 s usable
    {3600, 300, 310, "--time=59"},  // headroom 10
    {3600, 60, 30, "--time=60"},    // a drain buffer under the grace: no headroom
    {89.9, 30, 60, "89.9 s left in the allocation, less than the 30 s headroom plus one minute"},
    {59, 0, 0, "59 s left in the allocation, less than the 0 s headroom plus one minute"},
    {-5, 30, 60, "-5 s left in the allocation, less than the 30 s headroom plus one minute"},
    {100, 0, 45.5, "100 s left in the allocation, less than the 45.5 s headroom plus one minute"},
};

}  // namespace

BOOST_DATA_TEST_CASE(time_limit_from_the_time_left, bdata::make(time_cases), c)
{
    auto config = lab_config();
    config.termination.grace_seconds = c.grace;
    config.termination.drain_buffer_seconds = c.drain_buffer;
    auto req = request(mode::slurm, cpu_only());
    req.seconds_left = c.seconds_left;
    auto const p = plan(req, config);
    // The runner asks before planning: a step too late is handed back, never failed with 126.
    BOOST_TEST(core::too_late_for_a_step(c.seconds_left, config) ==
               !c.expected.starts_with("--time="));
    if (!c.expected.starts_with("--time=")) {
        BOOST_TEST_REQUIRE(!p.has_value());
        BOOST_TEST(p.error().message == "launch: job 42: " + c.expected);
        return;
    }
    BOOST_TEST_REQUIRE(p.has_value(), p.error().message);
    BOOST_TEST(p->argv.at(10) == "--job-name=wf5_j42_r1_a2");
    BOOST_TEST(p->argv.at(11) == c.expected);
    BOOST_TEST(p->argv.at(12) == "--kill-on-bad-exit=1");
}

BOOST_AUTO_TEST_CASE(no_time_left_known_is_never_too_late)
{
    BOOST_TEST(!core::too_late_for_a_step(std::nullopt, lab_config()));
}

BOOST_AUTO_TEST_CASE(no_time_limit_in_direct_mode)
{
    auto req = request(mode::direct, cpu_only());
    req.seconds_left = 10;
    auto const p = plan(req);
    BOOST_TEST_REQUIRE(p.has_value(), p.error().message);
    BOOST_TEST((p->argv == argv_t{"bash", "-c", "python train.py --lr 0.1"}));
}

namespace {

struct refusal_case {
    std::string desc;
    core::launch_request req;
    std::string message;
};

std::ostream& operator<<(std::ostream& os, refusal_case const& c)
{
    return os << c.desc;
}

core::launch_request changed(core::launch_request r, auto change)
{
    change(r);
    return r;
}

std::vector<refusal_case> const refusal_cases{
    {"no node", request(mode::slurm, {}), "launch: job 42: no node was reserved"},
    {"direct on two nodes", request(mode::direct, two_by_four()),
     "launch: job 42: direct mode runs a job on one node, the reservation has 2 (n[1-2])"},
    {"slurm without a job id",
     changed(request(mode::slurm, one_gpu()), [](auto& r) { r.slurm_job_id.clear(); }),
     "launch: job 42: slurm mode needs the Slurm job id"},
    {"zero tasks per node", with_tasks(request(mode::slurm, one_gpu()), 0),
     "launch: job 42: tasks_per_node must be at least 1"},
    {"more tasks than CPUs", with_tasks(request(mode::slurm, cpu_only()), 4),
     "launch: job 42: 4 tasks per node need at least 4 CPUs per node, the job has 2"},
    {"NUL in the command",
     changed(request(mode::direct, one_gpu()),
             [](auto& r) { r.command = std::string("echo a\0b", 8); }),
     "launch: job 42: the command contains NUL"},
    {"NUL in the invocation script",
     with_script(request(mode::slurm, one_gpu()), std::string("set -e\0", 7)),
     "launch: job 42: the invocation script contains NUL"},
    {"environment error",
     changed(request(mode::direct, one_gpu()), [](auto& r) { r.job_env = {{"A=B", "1"}}; }),
     "launch: job 42: job env: \"A=B\" is not a valid variable name"},
};

}  // namespace

BOOST_DATA_TEST_CASE(refusals_verbatim, bdata::make(refusal_cases), c)
{
    auto const p = plan(c.req);
    BOOST_TEST_REQUIRE(!p.has_value());
    BOOST_TEST(p.error().message == c.message);
}

BOOST_AUTO_TEST_CASE(direct_plan_gives_the_reserved_gpu)
{
    auto const p = plan(request(mode::direct, one_gpu()));
    BOOST_TEST_REQUIRE(p.has_value(), p.error().message);
    BOOST_TEST(p->working_dir == "/scratch/wd");
    BOOST_TEST(value_or_unset(p->env, "CUDA_VISIBLE_DEVICES") == "1");
    BOOST_TEST(value_or_unset(p->env, "PMIX_RANK") == "<unset>");
    BOOST_TEST(value_or_unset(p->env, "TORC_JOB_ID") == "42");
    BOOST_TEST(p->paths.dir == "/scratch/out/jobs/wf5_j42/r1_a2");
}

BOOST_AUTO_TEST_CASE(slurm_plan_from_the_batch_step_change_record_verbatim)
{
    auto req = request(mode::slurm, cpu_only());
    auto const p = core::plan_launch(req, lab_config(), batch_step());
    BOOST_TEST_REQUIRE(p.has_value(), p.error().message);
    BOOST_TEST(core::render_env_change(p->env_changes) ==
               "- CUDA_VISIBLE_DEVICES\n"
               "- ROCR_VISIBLE_DEVICES\n"
               "- SLURM_CPUS_PER_TASK\n"
               "- SLURM_GPUS_ON_NODE\n"
               "- SLURM_GPUS_PER_NODE\n"
               "- SLURM_GTIDS\n"
               "- SLURM_LOCALID\n"
               "- SLURM_MEM_PER_NODE\n"
               "- SLURM_NODEID\n"
               "- SLURM_NPROCS\n"
               "- SLURM_NTASKS\n"
               "- SLURM_NTASKS_PER_NODE\n"
               "- SLURM_PROCID\n"
               "- SLURM_TASKS_PER_NODE\n"
               "- SLURM_TASK_PID\n"
               "- ZE_AFFINITY_MASK\n"
               "# torcrun\n"
               "+ CUDA_DEVICE_ORDER=PCI_BUS_ID\n"
               "+ TORC_API_URL=http://127.0.0.1:8080/torc-service/v1\n"
               "+ TORC_ATTEMPT_ID=2\n"
               "+ TORC_JOB_ID=42\n"
               "+ TORC_JOB_NAME=train_3\n"
               "+ TORC_OUTPUT_DIR=/scratch/out\n"
               "+ TORC_RUN_ID=1\n"
               "+ TORC_WORKFLOW_ID=5\n");
    BOOST_TEST(value_or_unset(p->env, "SLURM_JOB_ID") == "6");
    BOOST_TEST(value_or_unset(p->env, "GPU_DEVICE_ORDINAL") == "0,1,2,3");
}

// The stdio modes: which files an attempt writes, by the workflow's stdio and the per-job
// overrides (keyed by job name, replacing stdio whole). The streams are flat files named as Torc
// names them (job_stdio/job_wf<W>_j<J>_r<R>_a<A>.o, .e, .log); the attempt directory keeps the
// other files and, linked, the streams under their old names.
BOOST_AUTO_TEST_CASE(stdio_modes_name_the_files)
{
    core::torc_job_identity const id{5, 42, "train_3", 1, 2, std::nullopt};
    auto const dir = std::string("/o/jobs/wf5_j42/r1_a2/");
    auto const stem = std::string("/o/job_stdio/job_wf5_j42_r1_a2");
    auto const paths = [&](core::stdio_mode m) { return core::attempt_log_paths("/o", id, m); };
    using sm = core::stdio_mode;
    using links = std::vector<std::pair<std::string, std::string>>;
    BOOST_TEST(paths(sm::separate).stdout_file == stem + ".o");
    BOOST_TEST(paths(sm::separate).stderr_file == stem + ".e");
    BOOST_TEST(paths(sm::combined).stdout_file == stem + ".log");
    BOOST_TEST(paths(sm::combined).stderr_file == stem + ".log");
    BOOST_TEST(paths(sm::no_stdout).stdout_file == "");
    BOOST_TEST(paths(sm::no_stdout).stderr_file == stem + ".e");
    BOOST_TEST(paths(sm::no_stderr).stdout_file == stem + ".o");
    BOOST_TEST(paths(sm::no_stderr).stderr_file == "");
    BOOST_TEST(paths(sm::none).stdout_file == "");
    BOOST_TEST(paths(sm::none).stderr_file == "");
    BOOST_TEST((core::stdio_files(paths(sm::separate)) ==
                std::vector<std::string>{stem + ".o", stem + ".e"}));
    BOOST_TEST((core::stdio_files(paths(sm::combined)) == std::vector<std::string>{stem + ".log"}));
    BOOST_TEST(core::stdio_files(paths(sm::none)).empty());
    BOOST_TEST((core::stdio_links(paths(sm::separate)) ==
                links{{stem + ".o", dir + "stdout"}, {stem + ".e", dir + "stderr"}}));
    BOOST_TEST((core::stdio_links(paths(sm::combined)) == links{{stem + ".log", dir + "output"}}));
    BOOST_TEST((core::stdio_links(paths(sm::no_stdout)) == links{{stem + ".e", dir + "stderr"}}));
    BOOST_TEST(core::stdio_links(paths(sm::none)).empty());
    BOOST_TEST(core::job_stdio_dir("/o") == "/o/job_stdio");
    BOOST_TEST(core::attempt_record_dir("/o") == "/o/job_records");
    for (auto m : {sm::separate, sm::combined, sm::none}) {
        BOOST_TEST(paths(m).dir + "/" == dir);
        BOOST_TEST(paths(m).command_file == dir + "command.txt");
        BOOST_TEST(paths(m).result_file == dir + "result.json");
    }

    auto config = lab_config();
    config.stdio.mode = sm::none;
    config.job_stdio["train_3"] = {sm::combined, true};
    auto const mine = plan(request(mode::direct, one_gpu()), config);
    BOOST_TEST_REQUIRE(mine.has_value(), mine.error().message);
    BOOST_TEST(mine->paths.stdout_file == "/scratch/out/job_stdio/job_wf5_j42_r1_a2.log");
    config.job_stdio.clear();
    auto const all = plan(request(mode::direct, one_gpu()), config);
    BOOST_TEST_REQUIRE(all.has_value(), all.error().message);
    BOOST_TEST(all->paths.stdout_file.empty());
    BOOST_TEST(all->paths.stderr_file.empty());
}

BOOST_AUTO_TEST_SUITE_END()

