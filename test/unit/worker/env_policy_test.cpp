// The job environment: the per-node worker step recorded on Slurm 22.05 (slurm_fixtures.hpp (b)
// plus the --mpi=pmix variables; docs/TORC-COMPATIBILITY.md §7) scrubbed variable by variable, keep
// over scrub, scrub off, GPU visibility for GPU and CPU jobs in both modes, the precedence of every
// stage, the srun input variables of slurm mode, the TORC_* variables, the rejected names and the
// change record verbatim.
#include "torcrun/worker/env_policy.hpp"

#include "env_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace fixtures;

BOOST_AUTO_TEST_SUITE(env_policy)

namespace {

using mode = core::execution_mode;

struct fate_case {
    std::string name;
    std::string value;  // in the job's environment, or "<unset>"
};

std::ostream& operator<<(std::ostream& os, fate_case const& c)
{
    return os << c.name;
}

std::string const lab_value = "<worker>";  // the worker's own value, unchanged

std::vector<fate_case> const lab_fates{
    // kept: the allocation, the node, the user's own
    {"PATH", lab_value}, {"HOME", lab_value}, {"SLURM_CLUSTER_NAME", lab_value},
    {"SLURM_CONF", lab_value}, {"SLURM_JOBID", lab_value}, {"SLURM_JOB_ID", lab_value},
    {"SLURM_JOB_CPUS_PER_NODE", lab_value}, {"SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", lab_value},
    {"SLURM_JOB_NAME", lab_value}, {"SLURM_JOB_NODELIST", lab_value},
    {"SLURM_JOB_NUM_NODES", lab_value}, {"SLURM_JOB_PARTITION", lab_value},
    {"SLURM_JOB_UID", lab_value}, {"SLURM_JOB_USER", lab_value}, {"SLURM_JOB_GID", lab_value},
    {"SLURM_SUBMIT_DIR", lab_value}, {"SLURM_SUBMIT_HOST", lab_value},
    {"SLURM_NNODES", lab_value}, {"SLURM_NODELIST", lab_value},
    {"SLURM_NODE_ALIASES", lab_value}, {"SLURMD_NODENAME", lab_value},
    {"SLURM_CPUS_ON_NODE", lab_value}, {"SLURM_TOPOLOGY_ADDR", lab_value},
    {"SLURM_TOPOLOGY_ADDR_PATTERN", lab_value}, {"SLURM_UMASK", lab_value},
    // not in the default scrub list (a name, not SLURM_NTASKS*), nor a visibility variable
    {"SLURM_CPUS_PER_TASK", lab_value}, {"SLURM_NTASKS_PER_NODE", lab_value},
    {"GPU_DEVICE_ORDINAL", lab_value},
    // the worker step's own
    {"SLURM_STEP_ID", "<unset>"}, {"SLURM_STEPID", "<unset>"}, {"SLURM_STEP_GPUS", "<unset>"},
    {"SLURM_STEP_NODELIST", "<unset>"}, {"SLURM_STEP_NUM_NODES", "<unset>"},
    {"SLURM_STEP_NUM_TASKS", "<unset>"}, {"SLURM_STEP_TASKS_PER_NODE", "<unset>"},
    {"SLURM_STEP_LAUNCHER_PORT", "<unset>"}, {"SLURM_PROCID", "<unset>"},
    {"SLURM_LOCALID", "<unset>"}, {"SLURM_NODEID", "<unset>"}, {"SLURM_GTIDS", "<unset>"},
    {"SLURM_TASK_PID", "<unset>"}, {"SLURM_SRUN_COMM_HOST", "<unset>"},
    {"SLURM_SRUN_COMM_PORT", "<unset>"}, {"SLURM_LAUNCH_NODE_IPADDR", "<unset>"},
    {"SLURM_DISTRIBUTION", "<unset>"}, {"SLURM_NTASKS", "<unset>"}, {"SLURM_NPROCS", "<unset>"},
    {"SLURM_TASKS_PER_NODE", "<unset>"}, {"SLURM_MEM_PER_NODE", "<unset>"},
    {"SLURM_GPUS_PER_NODE", "<unset>"}, {"SLURM_GPUS_ON_NODE", "<unset>"},
    // PMI / MPI
    {"PMIX_NAMESPACE", "<unset>"}, {"PMIX_RANK", "<unset>"}, {"PMIX_VERSION", "<unset>"},
    {"PMIX_SERVER_URI2", "<unset>"}, {"PMIX_SERVER_URI21", "<unset>"},
    {"PMIX_SERVER_URI3", "<unset>"}, {"PMIX_SERVER_URI4", "<unset>"},
    {"PMIX_SERVER_URI41", "<unset>"}, {"PMIX_SERVER_TMPDIR", "<unset>"},
    {"PMIX_DSTORE_21_BASE_PATH", "<unset>"}, {"PMIX_DSTORE_ESH_BASE_PATH", "<unset>"},
    {"PMIX_GDS_MODULE", "<unset>"}, {"PMIX_SECURITY_MODE", "<unset>"},
    {"PMIX_BFROP_BUFFER_TYPE", "<unset>"}, {"PMIX_HOSTNAME", "<unset>"},
    {"PMIX_SYSTEM_TMPDIR", "<unset>"}, {"SLURM_MPI_TYPE", "<unset>"},
    {"SLURM_PMIXP_ABORT_AGENT_PORT", "<unset>"}, {"SLURM_PMIX_MAPPING_SERV", "<unset>"},
    {"OMPI_MCA_btl", "<unset>"},
    // GPU 2 of the node, and torcrun's
    {"CUDA_VISIBLE_DEVICES", "2"}, {"ROCR_VISIBLE_DEVICES", "2"}, {"HIP_VISIBLE_DEVICES", "2"},
    {"ZE_AFFINITY_MASK", "2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"TORC_JOB_ID", "42"}};

}  // namespace

BOOST_DATA_TEST_CASE(lab_worker_step_scrubbed_for_a_direct_gpu_job, bdata::make(lab_fates), c)
{
    auto const worker = lab_worker();
    auto const job = make(worker, lab_config(), gpu_job());
    auto const expected = c.value == lab_value ? worker.at(c.name) : c.value;
    BOOST_TEST(value_or_unset(job.env, c.name) == expected);
}

BOOST_AUTO_TEST_CASE(lab_fates_cover_every_variable_of_worker_and_job)
{
    auto const listed = [](std::string const& name) {
        return name.starts_with("TORC_") ||
               std::ranges::any_of(lab_fates, [&](auto const& f) { return f.name == name; });
    };
    auto const worker = lab_worker();
    auto const job = make(worker, lab_config(), gpu_job());
    for (auto const& entry : worker) BOOST_TEST(listed(entry.first), entry.first);
    for (auto const& entry : job.env) BOOST_TEST(listed(entry.first), entry.first);
}

BOOST_AUTO_TEST_CASE(lab_worker_change_record_verbatim)
{
    auto const job = make(lab_worker(), lab_config(), gpu_job());
    BOOST_TEST(core::render_env_change(job.changes) ==
               "- OMPI_MCA_btl\n"
               "- PMIX_BFROP_BUFFER_TYPE\n"
               "- PMIX_DSTORE_21_BASE_PATH\n"
               "- PMIX_DSTORE_ESH_BASE_PATH\n"
               "- PMIX_GDS_MODULE\n"
               "- PMIX_HOSTNAME\n"
               "- PMIX_NAMESPACE\n"
               "- PMIX_RANK\n"
               "- PMIX_SECURITY_MODE\n"
               "- PMIX_SERVER_TMPDIR\n"
               "- PMIX_SERVER_URI2\n"
               "- PMIX_SERVER_URI21\n"
               "- PMIX_SERVER_URI3\n"
               "- PMIX_SERVER_URI4\n"
               "- PMIX_SERVER_URI41\n"
               "- PMIX_SYSTEM_TMPDIR\n"
               "- PMIX_VERSION\n"
               "- SLURM_DISTRIBUTION\n"
               "- SLURM_GPUS_ON_NODE\n"
               "- SLURM_GPUS_PER_NODE\n"
               "- SLURM_GTIDS\n"
               "- SLURM_LAUNCH_NODE_IPADDR\n"
               "- SLURM_LOCALID\n"
               "- SLURM_MEM_PER_NODE\n"
               "- SLURM_MPI_TYPE\n"
               "- SLURM_NODEID\n"
               "- SLURM_NPROCS\n"
               "- SLURM_NTASKS\n"
               "- SLURM_PMIXP_ABORT_AGENT_PORT\n"
               "- SLURM_PMIX_MAPPING_SERV\n"
               "- SLURM_PROCID\n"
               "- SLURM_SRUN_COMM_HOST\n"
               "- SLURM_SRUN_COMM_PORT\n"
               "- SLURM_STEPID\n"
               "- SLURM_STEP_GPUS\n"
               "- SLURM_STEP_ID\n"
               "- SLURM_STEP_LAUNCHER_PORT\n"
               "- SLURM_STEP_NODELIST\n"
               "- SLURM_STEP_NUM_NODES\n"
               "- SLURM_STEP_NUM_TASKS\n"
               "- SLURM_STEP_TASKS_PER_NODE\n"
               "- SLURM_TASKS_PER_NODE\n"
               "- SLURM_TASK_PID\n"
               "# torcrun\n"
               "+ CUDA_DEVICE_ORDER=PCI_BUS_ID\n"
               "+ CUDA_VISIBLE_DEVICES=2\n"
               "+ HIP_VISIBLE_DEVICES=2\n"
               "+ ROCR_VISIBLE_DEVICES=2\n"
               "+ TORC_API_URL=http://127.0.0.1:8080/torc-service/v1\n"
               "+ TORC_ATTEMPT_ID=2\n"
               "+ TORC_JOB_ID=42\n"
               "+ TORC_JOB_NAME=train_3\n"
               "+ TORC_OUTPUT_DIR=/scratch/out\n"
               "+ TORC_RUN_ID=1\n"
               "+ TORC_WORKFLOW_ID=5\n"
               "+ ZE_AFFINITY_MASK=2\n");
}

BOOST_AUTO_TEST_CASE(scrub_off_passes_the_launcher_variables_on)
{
    auto config = lab_config();
    config.environment.scrub = false;
    auto const job = make(lab_worker(), config, gpu_job());
    BOOST_TEST(value_or_unset(job.env, "PMIX_RANK") == "1");
    BOOST_TEST(value_or_unset(job.env, "SLURM_STEP_ID") == "0");
    BOOST_TEST(value_or_unset(job.env, "SLURM_PROCID") == "1");
    BOOST_TEST(job.changes.removed.empty());
    // torcrun's own decisions still apply
    BOOST_TEST(value_or_unset(job.env, "CUDA_VISIBLE_DEVICES") == "2");
    BOOST_TEST(value_or_unset(job.env, "TORC_JOB_ID") == "42");
}

namespace {

struct pattern_case {
    std::string name;
    std::string pattern;
    bool matches;
};

std::ostream& operator<<(std::ostream& os, pattern_case const& c)
{
    return os << c.name << " ~ " << c.pattern;
}

std::vector<pattern_case> const pattern_cases{
    {"PMI_RANK", "PMI_*", true},
    {"PMIX_RANK", "PMI_*", false},
    {"SLURM_PMIXP_ABORT_AGENT_PORT", "SLURM_PMIX*", true},
    {"SLURM_NTASKS_PER_NODE", "SLURM_NTASKS", false},
    {"SLURM_NTASKS", "SLURM_NTASKS", true},
    {"SLURM_NTASKS", "SLURM_NTASKS*", true},
    {"SLURM_JOB_", "SLURM_JOB_*", true},
    {"slurm_job_id", "SLURM_JOB_*", false},
    {"ANYTHING", "*", true},
    {"A*B", "A*B", true},
    {"AXB", "A*B", false},
};

}  // namespace

BOOST_DATA_TEST_CASE(patterns_are_names_or_prefixes, bdata::make(pattern_cases), c)
{
    BOOST_TEST(core::matches_pattern(c.name, c.pattern) == c.matches);
}

namespace {

struct keep_case {
    std::string desc;
    std::vector<std::string> scrub;
    std::vector<std::string> keep;
    std::string name;
    bool kept;
};

std::ostream& operator<<(std::ostream& os, keep_case const& c)
{
    return os << c.desc;
}

std::vector<keep_case> const keep_cases{
    {"allocation kept", {"SLURM_*"}, {"SLURM_JOB_*"}, "SLURM_JOB_ID", true},
    {"step dropped", {"SLURM_*"}, {"SLURM_JOB_*"}, "SLURM_NODEID", false},
    {"no keep pattern", {"SLURM_*"}, {}, "SLURM_JOB_ID", false},
    {"same pattern in both", {"PMI_*"}, {"PMI_*"}, "PMI_RANK", true},
    {"keep a name out of a prefix", {"SLURM_GPUS_*"}, {"SLURM_GPUS_PER_NODE"},
     "SLURM_GPUS_PER_NODE", true},
    {"scrub everything but PATH", {"*"}, {"PATH", "HOME"}, "PATH", true},
    {"scrub everything, LANG too", {"*"}, {"PATH", "HOME"}, "LANG", false},
    {"unmatched names stay", {"PMI_*"}, {}, "PMIX_RANK", true},
};

}  // namespace

BOOST_DATA_TEST_CASE(keep_wins_over_scrub, bdata::make(keep_cases), c)
{
    auto config = lab_config();
    config.environment.scrub_patterns = c.scrub;
    config.environment.keep_patterns = c.keep;
    auto const job = make({{c.name, "v"}}, config, gpu_job({}));
    BOOST_TEST(value_or_unset(job.env, c.name) == (c.kept ? "v" : "<unset>"));
}

namespace {

struct gpu_case {
    std::string desc;
    mode m;
    std::vector<std::string> ids;
    bool hide = true;
    std::optional<std::string> order = "PCI_BUS_ID";
    std::vector<std::string> variables;  // empty: the default list
    std::string cuda, hip, rocr, device_order;
};

std::ostream& operator<<(std::ostream& os, gpu_case const& c)
{
    return os << c.desc;
}

// The worker sees the node's four GPUs (CUDA and ROCR set, HIP not) and no device order.
std::vector<gpu_case> const gpu_cases{
    {"direct, one GPU", mode::direct, {"2"}, true, "PCI_BUS_ID", {}, "2", "2", "2", "PCI_BUS_ID"},
    {"direct, two GPUs", mode::direct, {"0", "3"}, true, "PCI_BUS_ID", {}, "0,3", "0,3", "0,3",
     "PCI_BUS_ID"},
    {"direct, UUIDs", mode::direct, {"GPU-aa", "GPU-bb"}, true, "PCI_BUS_ID", {},
     "GPU-aa,GPU-bb", "GPU-aa,GPU-bb", "GPU-aa,GPU-bb", "PCI_BUS_ID"},
    {"direct, CPU job hidden", mode::direct, {}, true, "PCI_BUS_ID", {}, "", "", "",
     "PCI_BUS_ID"},
    {"direct, CPU job sees the worker's", mode::direct, {}, false, "PCI_BUS_ID", {}, "0,1,2,3",
     "<unset>", "0,1,2,3", "PCI_BUS_ID"},
    {"direct, no device order", mode::direct, {"1"}, true, std::nullopt, {}, "1", "1", "1",
     "<unset>"},
    {"direct, CUDA only configured", mode::direct, {"1"}, true, "PCI_BUS_ID",
     {"CUDA_VISIBLE_DEVICES"}, "1", "<unset>", "0,1,2,3", "PCI_BUS_ID"},
    {"slurm, GPU job: Slurm binds", mode::slurm, {"0"}, true, "PCI_BUS_ID", {}, "<unset>",
     "<unset>", "<unset>", "PCI_BUS_ID"},
    {"slurm, CPU job: Slurm unsets", mode::slurm, {}, true, "PCI_BUS_ID", {}, "<unset>",
     "<unset>", "<unset>", "PCI_BUS_ID"},
};

}  // namespace

BOOST_DATA_TEST_CASE(gpu_visibility, bdata::make(gpu_cases), c)
{
    auto config = lab_config();
    config.gpu.hide_from_cpu_jobs = c.hide;
    config.gpu.device_order = c.order;
    if (!c.variables.empty()) config.gpu.visibility_variables = c.variables;
    env_map const worker{{"CUDA_VISIBLE_DEVICES", "0,1,2,3"}, {"ROCR_VISIBLE_DEVICES", "0,1,2,3"}};
    auto const job = make(worker, config, gpu_job(c.ids, c.m));
    BOOST_TEST(value_or_unset(job.env, "CUDA_VISIBLE_DEVICES") == c.cuda);
    BOOST_TEST(value_or_unset(job.env, "HIP_VISIBLE_DEVICES") == c.hip);
    BOOST_TEST(value_or_unset(job.env, "ROCR_VISIBLE_DEVICES") == c.rocr);
    BOOST_TEST(value_or_unset(job.env, "CUDA_DEVICE_ORDER") == c.device_order);
}

BOOST_AUTO_TEST_SUITE_END()
