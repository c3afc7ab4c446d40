// Shared by the env_policy and launch_plan tests: the per-node worker step's environment recorded
// on Slurm 22.05 (slurm_fixtures.hpp), a configuration with an absolute output directory, and a job
// request for job 42 of workflow 5.
#pragma once

#include "torcrun/worker/env_policy.hpp"

#include "unit/slurm/slurm_fixtures.hpp"

#include <boost/test/unit_test.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fixtures {

// The n2 worker of a `srun --mpi=pmix --ntasks-per-node=1 --overlap` launch, as the
// reporter's Cray PMI step: dump (b), the 16 PMIx variables of (d) and a user's MCA setting.
inline env_map lab_worker()
{
    return overlay(worker_step_n2(),
                   {{"PMIX_NAMESPACE", "slurm.pmix.19.0"},
                    {"PMIX_RANK", "1"},
                    {"PMIX_VERSION", "4.2.2rc2"},
                    {"PMIX_SERVER_URI2", "pmix-server.25425;tcp4://127.0.0.1:40001"},
                    {"PMIX_SERVER_URI21", "pmix-server.25425;tcp4://127.0.0.1:40001"},
                    {"PMIX_SERVER_URI3", "pmix-server.25425;tcp4://127.0.0.1:40001"},
                    {"PMIX_SERVER_URI4", "pmix-server.25425;tcp4://127.0.0.1:40001"},
                    {"PMIX_SERVER_URI41", "pmix-server.25425;tcp4://127.0.0.1:40001"},
                    {"PMIX_SERVER_TMPDIR", "$RUN/spool/d/n2/pmix.19.0/"},
                    {"PMIX_DSTORE_21_BASE_PATH", "…"},
                    {"PMIX_DSTORE_ESH_BASE_PATH", "…"},
                    {"PMIX_GDS_MODULE", "ds21,ds12,hash"},
                    {"PMIX_SECURITY_MODE", "native"},
                    {"PMIX_BFROP_BUFFER_TYPE", "PMIX_BFROP_BUFFER_NON_DESC"},
                    {"PMIX_HOSTNAME", "vm"},
                    {"PMIX_SYSTEM_TMPDIR", "/tmp"},
                    {"SLURM_MPI_TYPE", "pmix"},
                    {"SLURM_PMIXP_ABORT_AGENT_PORT", "…"},
                    {"SLURM_PMIX_MAPPING_SERV", "(vector,(0,2,1))"},
                    {"OMPI_MCA_btl", "self,tcp"},
                    {"PATH", "/usr/bin:/bin"},
                    {"HOME", "/root"}});
}

inline torcrun::core::worker_config lab_config()
{
    torcrun::core::worker_config config;
    config.output_dir = "/scratch/out";
    return config;
}

inline torcrun::core::job_env_request gpu_job(
    std::vector<std::string> ids = {"2"},
    torcrun::core::execution_mode m = torcrun::core::execution_mode::direct)
{
    torcrun::core::job_env_request r;
    r.mode = m;
    r.identity = {5, 42, "train_3", 1, 2, std::nullopt};
    r.gpu_ids = std::move(ids);
    return r;
}

inline torcrun::core::job_environment make(env_map const& worker,
                                           torcrun::core::worker_config const& config,
                                           torcrun::core::job_env_request const& request)
{
    auto r = torcrun::core::make_job_environment(worker, config, request);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    return std::move(*r);
}

inline std::string value_or_unset(env_map const& env, std::string const& name)
{
    return std::string(torcrun::core::lookup(env, name).value_or("<unset>"));
}

}  // namespace fixtures
