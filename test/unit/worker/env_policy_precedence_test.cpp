// The order of the job environment's stages (env_policy.hpp): worker, scrub, environment.set,
// workflow env, job env, TORC_*, GPU visibility, srun input variables; torcrun's own names;
// the srun input variables slurm mode clears whatever set them; the rejected names verbatim.
#include "torcrun/worker/env_policy.hpp"

#include "env_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace fixtures;

BOOST_AUTO_TEST_SUITE(env_policy_precedence)

namespace {

using mode = core::execution_mode;

struct precedence_case {
    std::string desc;
    env_map worker;
    std::map<std::string, std::string> config_set;
    env_map workflow;
    env_map job;
    std::string name;
    std::string expected;
    mode m = mode::direct;
    std::vector<std::string> gpu_ids = {};
    bool hide = true;
};

std::ostream& operator<<(std::ostream& os, precedence_case const& c)
{
    return os << c.desc;
}

std::vector<precedence_case> const precedence_cases{
    {"worker only", {{"FOO", "worker"}}, {}, {}, {}, "FOO", "worker"},
    {"set over worker", {{"FOO", "worker"}}, {{"FOO", "set"}}, {}, {}, "FOO", "set"},
    {"workflow over set", {{"FOO", "worker"}}, {{"FOO", "set"}}, {{"FOO", "workflow"}}, {}, "FOO",
     "workflow"},
    {"job over workflow", {{"FOO", "worker"}}, {{"FOO", "set"}}, {{"FOO", "workflow"}},
     {{"FOO", "job"}}, "FOO", "job"},
    {"job over workflow, no worker value", {}, {}, {{"FOO", "workflow"}}, {{"FOO", "job"}}, "FOO",
     "job"},
    {"values are literal", {}, {}, {}, {{"FOO", "$HOME ~ `x`"}}, "FOO", "$HOME ~ `x`"},
    {"set brings back a scrubbed name", {{"OMPI_MCA_btl", "vader"}},
     {{"OMPI_MCA_btl", "self,tcp"}}, {}, {}, "OMPI_MCA_btl", "self,tcp"},
    {"scrubbed and not set again", {{"OMPI_MCA_btl", "vader"}}, {}, {}, {}, "OMPI_MCA_btl",
     "<unset>"},
    {"TORC_JOB_ID over the job's", {}, {}, {}, {{"TORC_JOB_ID", "99"}}, "TORC_JOB_ID", "42"},
    {"TORC_RUN_ID over set", {}, {{"TORC_RUN_ID", "9"}}, {}, {}, "TORC_RUN_ID", "1"},
    {"GPU ids over the job's", {}, {}, {}, {{"CUDA_VISIBLE_DEVICES", "0,1,2,3"}},
     "CUDA_VISIBLE_DEVICES", "2", mode::direct, {"2"}},
    {"hidden over the job's", {}, {}, {}, {{"CUDA_VISIBLE_DEVICES", "1"}},
     "CUDA_VISIBLE_DEVICES", ""},
    {"not hidden: the job's stays", {{"CUDA_VISIBLE_DEVICES", "0,1"}}, {}, {},
     {{"CUDA_VISIBLE_DEVICES", "1"}}, "CUDA_VISIBLE_DEVICES", "1", mode::direct, {}, false},
    {"device order over the job's", {}, {}, {}, {{"CUDA_DEVICE_ORDER", "FASTEST_FIRST"}},
     "CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
    {"direct: the job's srun input stays", {}, {}, {}, {{"SLURM_CPUS_PER_TASK", "4"}},
     "SLURM_CPUS_PER_TASK", "4"},
    {"slurm: the job's srun input goes", {}, {}, {}, {{"SLURM_CPUS_PER_TASK", "4"}},
     "SLURM_CPUS_PER_TASK", "<unset>", mode::slurm},
    {"slurm: a set srun input goes", {}, {{"SLURM_MPI_TYPE", "pmix"}}, {}, {}, "SLURM_MPI_TYPE",
     "<unset>", mode::slurm},
    {"slurm: the job's GPU list goes", {}, {}, {}, {{"CUDA_VISIBLE_DEVICES", "1"}},
     "CUDA_VISIBLE_DEVICES", "<unset>", mode::slurm, {"0"}},
    {"an unknown submission dir may come from the job", {}, {}, {},
     {{"TORC_WORKFLOW_SUBMISSION_DIR", "/x"}}, "TORC_WORKFLOW_SUBMISSION_DIR", "/x"},
};

}  // namespace

BOOST_DATA_TEST_CASE(later_stages_win, bdata::make(precedence_cases), c)
{
    auto config = lab_config();
    config.environment.set = c.config_set;
    config.gpu.hide_from_cpu_jobs = c.hide;
    auto request = gpu_job(c.gpu_ids, c.m);
    request.workflow_env = c.workflow;
    request.job_env = c.job;
    auto const job = make(c.worker, config, request);
    BOOST_TEST(value_or_unset(job.env, c.name) == c.expected);
}

// environment.txt says where each value came from: the stage that set it last.
BOOST_AUTO_TEST_CASE(each_set_value_names_its_source)
{
    auto config = lab_config();
    config.environment.set = {{"SITE", "1"}, {"LEVEL", "site"}};
    auto request = gpu_job({}, mode::direct);
    request.workflow_env = {{"DATA", "/d"}, {"LEVEL", "workflow"}, {"MODE", "wf"}};
    request.job_env = {{"MODE", "job"}, {"TORC_JOB_ID", "99"}};
    auto const job = make({{"HOME", "/h"}}, config, request);
    auto const& s = job.changes.sources;
    BOOST_TEST(s.at("SITE") == "environment.set");
    BOOST_TEST(s.at("LEVEL") == "workflow env");
    BOOST_TEST(s.at("DATA") == "workflow env");
    BOOST_TEST(s.at("MODE") == "job env");
    BOOST_TEST(s.at("TORC_JOB_ID") == "torcrun");  // torcrun's own stage wins over the job
    BOOST_TEST(value_or_unset(job.env, "TORC_JOB_ID") == "42");
    BOOST_TEST(!s.contains("HOME"));  // unchanged: not in the record
    auto const text = core::render_env_change(job.changes);
    BOOST_TEST(text.find("# environment.set\n+ SITE=1\n# workflow env\n+ DATA=/d\n+ LEVEL=workflow\n"
                         "# job env\n+ MODE=job\n# torcrun\n") == 0u, text);
}

namespace {

env_map torc_variables(env_map const& env)
{
    env_map out;
    for (auto const& [name, value] : env)
        if (name.starts_with("TORC_")) out.emplace(name, value);
    return out;
}

// What a worker running inside another torcrun job inherits.
env_map const nested_worker{{"TORC_JOB_ID", "7"},
                            {"TORC_RETURN_CODE", "1"},
                            {"TORC_WORKFLOW_SUBMISSION_DIR", "/old"},
                            {"TORC_PASSWORD", "secret"},
                            {"TORC_COOKIE_HEADER", "session=abc"}};

}  // namespace

BOOST_AUTO_TEST_CASE(torc_variables_without_a_submission_dir)
{
    auto const job = make(nested_worker, lab_config(), gpu_job());
    BOOST_TEST((torc_variables(job.env) ==
                env_map{{"TORC_API_URL", "http://127.0.0.1:8080/torc-service/v1"},
                        {"TORC_ATTEMPT_ID", "2"},
                        {"TORC_JOB_ID", "42"},
                        {"TORC_JOB_NAME", "train_3"},
                        {"TORC_OUTPUT_DIR", "/scratch/out"},
                        {"TORC_RUN_ID", "1"},
                        {"TORC_WORKFLOW_ID", "5"}}));
    BOOST_TEST((job.changes.removed ==
                std::vector<std::string>{"TORC_COOKIE_HEADER", "TORC_PASSWORD",
                                         "TORC_RETURN_CODE", "TORC_WORKFLOW_SUBMISSION_DIR"}));
    auto const record = core::render_env_change(job.changes);
    BOOST_TEST(record.find("- TORC_PASSWORD\n") != std::string::npos, record);
    BOOST_TEST(record.find("secret") == std::string::npos, record);
}

// The worker's credentials go whatever environment.scrub says; a password the workflow itself
// puts in its env is the workflow's choice, and stays.
BOOST_AUTO_TEST_CASE(client_credentials_never_reach_a_job)
{
    auto config = lab_config();
    config.environment.scrub = false;
    env_map const worker{{"TORC_PASSWORD", "secret"}, {"TORC_USERNAME", "alice"}};
    auto const job = make(worker, config, gpu_job());
    BOOST_TEST(!job.env.contains("TORC_PASSWORD"));
    BOOST_TEST(job.env.at("TORC_USERNAME") == "alice");
    auto request = gpu_job();
    request.workflow_env = {{"TORC_PASSWORD", "the workflow's own"}};
    auto const own = make(worker, config, request);
    BOOST_TEST(own.env.at("TORC_PASSWORD") == "the workflow's own");
}

BOOST_AUTO_TEST_CASE(torc_variables_with_a_submission_dir)
{
    auto config = lab_config();
    config.server.url = "https://torc.example.org/torc-service/v1";
    auto request = gpu_job();
    request.identity = {12, 3456, "sweep a=1 b=\"x\"", 3, 1, "/home/u/wf"};
    auto const job = make({}, config, request);
    BOOST_TEST((torc_variables(job.env) ==
                env_map{{"TORC_API_URL", "https://torc.example.org/torc-service/v1"},
                        {"TORC_ATTEMPT_ID", "1"},
                        {"TORC_JOB_ID", "3456"},
                        {"TORC_JOB_NAME", "sweep a=1 b=\"x\""},
                        {"TORC_OUTPUT_DIR", "/scratch/out"},
                        {"TORC_RUN_ID", "3"},
                        {"TORC_WORKFLOW_ID", "12"},
                        {"TORC_WORKFLOW_SUBMISSION_DIR", "/home/u/wf"}}));
}

namespace {

struct srun_case {
    std::string name;
    bool cleared;
};

std::ostream& operator<<(std::ostream& os, srun_case const& c)
{
    return os << c.name;
}

std::vector<srun_case> const srun_cases{
    {"SLURM_GPUS_PER_NODE", true},  // inherited, a --gpus=1 step got all 4 GPUs (Slurm 22.05)
    {"SLURM_GPUS", true},
    {"SLURM_GPUS_PER_TASK", true},
    {"SLURM_CPUS_PER_GPU", true},
    {"SLURM_CPUS_PER_TASK", true},
    {"SRUN_CPUS_PER_TASK", true},
    {"SLURM_TRES_PER_TASK", true},
    {"SLURM_MEM_PER_NODE", true},
    {"SLURM_MEM_PER_CPU", true},
    {"SLURM_MEM_PER_GPU", true},
    {"SLURM_NTASKS", true},
    {"SLURM_NTASKS_PER_NODE", true},
    {"SLURM_NPROCS", true},
    {"SLURM_CPU_BIND", true},
    {"SLURM_CPU_BIND_LIST", true},
    {"SLURM_DISTRIBUTION", true},
    {"SLURM_EXACT", true},
    {"SLURM_OVERLAP", true},
    {"SLURM_GRES", true},
    {"SLURM_STEP_GRES", true},
    {"SLURM_EXPORT_ENV", true},  // --export=NONE would drop the job's environment
    {"SLURM_WORKING_DIR", true},
    {"SLURM_STDOUTMODE", true},
    {"SLURM_LABELIO", true},
    {"SLURM_SRUN_MULTI", true},
    {"SLURM_TIMELIMIT", true},
    {"SLURM_SIGNAL", true},
    {"SLURM_MPI_TYPE", true},
    {"SLURM_GPUS_PER_NODE_HET_GROUP_0", true},
    {"SLURM_JOB_ID", false},
    {"SLURM_JOBID", false},
    {"SLURM_JOB_NODELIST", false},
    {"SLURM_JOB_NUM_NODES", false},
    {"SLURM_CONF", false},
    {"SLURM_ACCOUNT", false},
    {"SLURMD_NODENAME", false},
};

}  // namespace

// Keep "*" and scrub off: only the slurm-mode stage can remove a name here.
BOOST_DATA_TEST_CASE(slurm_mode_clears_srun_inputs_whatever_keep_says, bdata::make(srun_cases), c)
{
    auto config = lab_config();
    config.environment.scrub = false;
    config.environment.keep_patterns = {"*"};
    env_map const worker{{c.name, "1"}};
    auto const slurm = make(worker, config, gpu_job({}, mode::slurm));
    auto const direct = make(worker, config, gpu_job({}, mode::direct));
    BOOST_TEST(value_or_unset(slurm.env, c.name) == (c.cleared ? "<unset>" : "1"));
    BOOST_TEST(value_or_unset(direct.env, c.name) == "1");
}

BOOST_AUTO_TEST_CASE(slurm_mode_srun_environment_of_the_salloc_shell)
{
    auto const job = make(salloc_shell(), lab_config(), gpu_job({}, mode::slurm));
    BOOST_TEST((job.changes.removed ==
                std::vector<std::string>{"SLURM_CPUS_PER_TASK", "SLURM_GPUS_PER_NODE",
                                         "SLURM_MEM_PER_NODE", "SLURM_NPROCS", "SLURM_NTASKS",
                                         "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}));
}

namespace {

struct error_case {
    std::string desc;
    std::map<std::string, std::string> config_set;
    env_map workflow;
    env_map job;
    std::string message;
};

std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << c.desc;
}

std::vector<error_case> const error_cases{
    {"'=' in a job name", {}, {}, {{"A=B", "1"}}, "job env: \"A=B\" is not a valid variable name"},
    {"empty workflow name", {}, {{"", "1"}}, {}, "workflow env: \"\" is not a valid variable name"},
    {"NUL in a set name",
     {{std::string("X\0Y", 3), "1"}},
     {},
     {},
     "environment.set: \"X\\0Y\" is not a valid variable name"},
    {"NUL in a job value", {}, {}, {{"X", std::string("a\0b", 3)}},
     "job env: the value of \"X\" contains NUL"},
    {"set is checked first", {{"", "1"}}, {}, {{"A=B", "1"}},
     "environment.set: \"\" is not a valid variable name"},
};

}  // namespace

BOOST_DATA_TEST_CASE(invalid_names_and_values, bdata::make(error_cases), c)
{
    auto config = lab_config();
    config.environment.set = c.config_set;
    auto request = gpu_job();
    request.workflow_env = c.workflow;
    request.job_env = c.job;
    auto const r = core::make_job_environment({}, config, request);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_AUTO_TEST_SUITE_END()
