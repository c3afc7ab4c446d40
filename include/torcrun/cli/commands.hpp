// Entry points of the subcommands. Each takes the arguments after its own name and returns the
// process exit status: 0 success, 1 runtime failure, 2 usage or configuration error.
#pragma once

#include <string>
#include <vector>

namespace torcrun::apps {

using arguments = std::vector<std::string>;

int cmd_version(arguments const& args);
int cmd_allocation(arguments const& args);
int cmd_slurm_script(arguments const& args);
int cmd_config(arguments const& args);
int cmd_spec(arguments const& args);
// -- server app
int cmd_server(arguments const& args);
int cmd_submit(arguments const& args);
int cmd_sync_status(arguments const& args);  // `torcrun workflows sync-status`
int cmd_status(arguments const& args);
int cmd_ro_crate(arguments const& args);  // `torcrun ro-crate export|create|list WF`
int cmd_jobs(arguments const& args);
int cmd_logs(arguments const& args);
int cmd_workflows(arguments const& args);
int cmd_cancel(arguments const& args);
int cmd_spawn_jobs(arguments const& args);  // run inside a job: spawn_jobs
int cmd_rerun(arguments const& args);
int cmd_watch(arguments const& args);
int cmd_allocations(arguments const& args);
int cmd_report(arguments const& args);
// -- worker shell
int cmd_worker(arguments const& args);
// -- run command
int cmd_run(arguments const& args);
// -- shell integration
int cmd_completion(arguments const& args);

}  // namespace torcrun::apps
