// The subcommand table (command_table.hpp).
#include "torcrun/cli/command_table.hpp"

namespace torcrun::apps {

namespace {

constexpr subcommand table[] = {
    {"allocation", cmd_allocation,
     "print the allocation as torcrun sees it: nodes, CPUs, memory, GPUs, mode"},
    {"slurm-script", cmd_slurm_script,
     "write (and with --submit, sbatch) the batch script of an allocation's workers"},
    {"version", cmd_version, "print the version"},
    {"config", cmd_config, "check and print the worker or server configuration"},
    {"spec", cmd_spec, "show the jobs and edges a Torc workflow spec creates"},
    // -- server app
    {"server", cmd_server, "serve the Torc REST API from a SQLite database"},
    {"submit", cmd_submit, "create and initialize a workflow from a Torc spec"},
    {"status", cmd_status, "show a workflow's run, completion and job counts"},
    {"ro-crate", cmd_ro_crate, "write a workflow's ro-crate-metadata.json, or record an entity"},
    {"jobs", cmd_jobs, "list a workflow's jobs with their latest return codes"},
    {"logs", cmd_logs, "print a job's stdout or stderr (by job name or id; --follow while it runs)"},
    {"workflows", cmd_workflows, "list the server's workflows with their status"},
    {"report", cmd_report,
     "write a workflow's HTML report: timeline per node and GPU, utilisation, failures"},
    {"cancel", cmd_cancel,
     "cancel a workflow: no more claims, its running jobs stopped, its allocations scancel'ed"},
    {"rerun", cmd_rerun,
     "run a workflow's jobs again as a new run (--failed, --job NAME); earlier logs stay"},
    {"spawn-jobs", cmd_spawn_jobs,
     "inside a running job: add jobs that wait for it (dynamic jobs, Torc's spawn_jobs)"},
    {"allocations", cmd_allocations,
     "list a workflow's Slurm allocations: state, shape, jobs made for, nodes, times, why ended"},
    {"watch", cmd_watch,
     "poll a workflow until complete; --auto-schedule submits the Slurm allocations it needs"},
    // -- worker shell
    {"worker", cmd_worker, "run a workflow's jobs on this allocation's resources"},
    // -- run command
    {"run", cmd_run, "run a workflow spec here: embedded server, worker, progress and summary"},
    // -- shell integration
    {"completion", cmd_completion,
     "print the shell completion script (bash) built from every command's options"},
};

}  // namespace

std::span<subcommand const> subcommands() { return table; }

}  // namespace torcrun::apps
