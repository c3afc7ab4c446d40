// The table of spec keys (spec_keys.hpp): pure data. The readers of spec_parse.cpp,
// execution_config_reader.cpp and dynamic_jobs_reader.cpp check each object's keys against it
// (field_reader::begin), so a key the reader takes is a row here, and a row here is a key the
// reader takes (test/unit/spec/spec_keys_test.cpp). Defaults, ranges and the finer rules are in
// docs/TORC-COMPATIBILITY.md §4; a meaning says only what the value is.
#include "torcrun/spec/spec_keys.hpp"

#include <algorithm>
#include <iterator>

namespace torcrun::core::spec {

namespace {

using s = key_support;

constexpr spec_key workflow_keys[] = {
    {"name", s::reads, "the workflow's name (required)", ""},
    {"user", s::differs, "the owner Torc's client would record",
     "the submitting user ($USER) owns the workflow; a different name here gets a warning"},
    {"description", s::reads, "free text", ""},
    {"project", s::reads, "newer Torc: a project name stored on the workflow", ""},
    {"metadata", s::reads, "newer Torc: a string or an object, stored as written", ""},
    {"jobs", s::reads, "the job entries (required; see jobs[])", ""},
    {"files", s::reads, "the file entries (see files[])", ""},
    {"user_data", s::reads, "the user data entries (see user_data[])", ""},
    {"datasets", s::reads, "newer Torc: dataset directories jobs read and write (see datasets[])",
     ""},
    {"resource_requirements", s::reads, "named resource sets jobs refer to", ""},
    {"failure_handlers", s::reads, "named retry rules jobs refer to", ""},
    {"slurm_schedulers", s::reads, "named Slurm allocation shapes actions refer to", ""},
    {"slurm_defaults", s::reads, "sbatch options for every allocation (free-form)", ""},
    {"resource_monitor", s::reads, "CPU and memory monitoring of jobs and nodes", ""},
    {"actions", s::reads, "what to do at workflow, job and worker events (see actions[])", ""},
    {"parameters", s::reads,
     "shared parameters: name -> values (\"1:10\", \"[1,2]\", or a native list)", ""},
    {"parameters_file", s::reads, "newer Torc: a CSV table of parameter rows entries can use", ""},
    {"variables", s::reads, "newer Torc: name -> string, substituted into the whole spec first",
     ""},
    {"env", s::reads, "newer Torc: environment variables for every job (name -> string)", ""},
    {"execution_config", s::reads, "newer Torc: how jobs run (mode, termination, stdio)", ""},
    {"use_pending_failed", s::reads,
     "failed jobs with a failure handler wait as pending_failed for a decision", ""},
    {"jobs_sort_method", s::differs,
     "Torc 0.10: the claim order (gpus_runtime_memory, gpus_memory_runtime, none)",
     "removed in newer Torc in favour of job priority; torcrun applies it, with a warning"},
    {"compute_node_expiration_buffer_seconds", s::differs,
     "seconds before the allocation's end a Torc worker stops taking jobs",
     "deprecated in newer Torc (warning); stored for Torc's workers, torcrun's worker uses "
     "termination.drain_buffer_seconds"},
    {"compute_node_wait_for_new_jobs_seconds", s::differs,
     "seconds an idle Torc worker waits for new jobs",
     "stored for Torc's workers; torcrun's worker uses limits.idle_timeout_seconds"},
    {"compute_node_ignore_workflow_completion", s::differs,
     "a Torc worker keeps running after the workflow completes",
     "stored for Torc's workers; torcrun's worker leaves when the workflow is complete"},
    {"compute_node_wait_for_healthy_database_minutes", s::differs,
     "minutes a Torc worker waits for an unreachable server",
     "stored for Torc's workers; torcrun's worker uses server.retry_window_seconds"},
    {"dynamic_jobs", s::reads, "newer Torc: the cap on spawn_jobs calls ({max_iterations})", ""},
    {"enable_ro_crate", s::reads, "newer Torc: the server records RO-Crate entities", ""},
    {"access_groups", s::reads, "Torc 0.23: groups the workflow is shared with at creation", ""},
    {"slurm_config", s::refused, "removed from Torc",
     "the error points to execution_config"},
};

constexpr spec_key job_keys[] = {
    {"name", s::reads, "the job's name, a template ({i} and other parameters)", ""},
    {"command", s::reads, "the shell command (required), templated", ""},
    {"invocation_script", s::reads, "a script the command is run through", ""},
    {"resource_requirements", s::reads, "the resource_requirements entry's name", ""},
    {"scheduler", s::reads, "the slurm_schedulers entry the job is meant for", ""},
    {"failure_handler", s::reads, "the failure_handlers entry's name", ""},
    {"cancel_on_blocking_job_failure", s::reads,
     "canceled when a job it depends on fails (default true)", ""},
    {"supports_termination", s::differs, "the job handles a termination signal",
     "stored; torcrun's worker signals every job at the deadline (termination.signal)"},
    {"depends_on", s::reads, "names of jobs it runs after", ""},
    {"depends_on_regexes", s::reads, "regexes of job names it runs after", ""},
    {"input_files", s::reads, "names of files it reads (implicit dependencies)", ""},
    {"input_file_regexes", s::reads, "regexes of file names it reads", ""},
    {"output_files", s::reads, "names of files it writes", ""},
    {"output_file_regexes", s::reads, "regexes of file names it writes", ""},
    {"input_user_data", s::reads, "names of user data it reads", ""},
    {"input_user_data_regexes", s::reads, "regexes of user data names it reads", ""},
    {"output_user_data", s::reads, "names of user data it writes", ""},
    {"output_user_data_regexes", s::reads, "regexes of user data names it writes", ""},
    {"input_datasets", s::reads, "newer Torc: names of datasets it reads", ""},
    {"output_datasets", s::reads, "newer Torc: names of datasets it writes", ""},
    {"parameters", s::reads, "the entry's own parameters: name -> values", ""},
    {"parameter_mode", s::reads, "how parameters combine: product (default) or zip", ""},
    {"use_parameters", s::reads, "names of workflow parameters the entry takes", ""},
    {"parameters_file", s::reads, "newer Torc: the entry's own CSV table of parameter rows", ""},
    {"use_parameters_file", s::reads, "newer Torc: take the rows of the workflow's table", ""},
    {"env", s::reads, "newer Torc: environment variables over the workflow's", ""},
    {"priority", s::reads, "newer Torc: an integer >= 0; higher is claimed first", ""},
    {"stdio", s::reads, "newer Torc: where the job's output goes (see stdio)", ""},
    {"label", s::reads,
     "torcrun extension: only workers started with this label claim the job", ""},
};

constexpr spec_key file_keys[] = {
    {"name", s::reads, "the file's name, a template", ""},
    {"path", s::reads, "its path (required), templated", ""},
    {"parameters", s::reads, "the entry's own parameters: name -> values", ""},
    {"parameter_mode", s::reads, "how parameters combine: product (default) or zip", ""},
    {"use_parameters", s::reads, "names of workflow parameters the entry takes", ""},
    {"parameters_file", s::reads, "newer Torc: the entry's own CSV table of parameter rows", ""},
    {"use_parameters_file", s::reads, "newer Torc: take the rows of the workflow's table", ""},
    {"st_mtime", s::differs, "newer Torc: the file's modification time (seconds since the epoch)",
     "sent as written; Torc's client also fills it from the disk when absent, torcrun does not"},
    {"identifier", s::refused, "newer Torc (KDL): an RO-Crate identifier",
     "the error names the key and what it is for"},
};

constexpr spec_key user_data_keys[] = {
    {"name", s::reads, "the entry's name (required: Torc silently drops an unnamed one)", ""},
    {"data", s::reads, "any JSON value", ""},
    {"is_ephemeral", s::reads, "the data is cleared when the workflow is reinitialized", ""},
    {"parameters", s::reads, "the entry's own parameters: name -> values", ""},
    {"parameter_mode", s::reads, "how parameters combine: product (default) or zip", ""},
    {"use_parameters", s::reads, "names of workflow parameters the entry takes", ""},
    {"parameters_file", s::reads, "newer Torc: the entry's own CSV table of parameter rows", ""},
    {"use_parameters_file", s::reads, "newer Torc: take the rows of the workflow's table", ""},
};

constexpr spec_key dataset_keys[] = {
    {"name", s::reads, "the dataset's name, unique", ""},
    {"path", s::reads, "its directory (required, not empty)", ""},
    {"description", s::reads, "free text", ""},
    {"hash_mode", s::reads, "how its digest is made: manifest (default), content or none", ""},
};

constexpr spec_key resource_requirements_keys[] = {
    {"name", s::reads, "the entry's name (\"default\" is reserved)", ""},
    {"num_cpus", s::reads, "CPUs per node (required)", ""},
    {"memory", s::reads, "memory per node (required): \"10g\", \"512m\"", ""},
    {"num_gpus", s::reads, "GPUs per node (default 0)", ""},
    {"num_nodes", s::reads, "nodes (default 1)", ""},
    {"runtime", s::reads, "the expected run time, ISO 8601 (default PT1H)", ""},
    {"tasks_per_node", s::reads, "newer Torc: srun tasks per node in slurm mode", ""},
};

constexpr spec_key failure_handler_keys[] = {
    {"name", s::reads, "the handler's name, unique", ""},
    {"rules", s::reads, "its rules, tried in order (required, may be empty)", ""},
};

constexpr spec_key failure_handler_rule_keys[] = {
    {"exit_codes", s::reads, "the return codes the rule matches", ""},
    {"match_all_exit_codes", s::reads, "the rule matches every non-zero return code", ""},
    {"recovery_script", s::reads, "a command run before the retry", ""},
    {"max_retries", s::reads, "retries the rule allows (default 3)", ""},
};

constexpr spec_key slurm_scheduler_keys[] = {
    {"name", s::reads, "the scheduler's name (required: Torc silently drops an unnamed one)", ""},
    {"account", s::reads, "sbatch --account (required)", ""},
    {"nodes", s::reads, "sbatch --nodes (default 1)", ""},
    {"walltime", s::reads, "sbatch --time (default 01:00:00)", ""},
    {"partition", s::reads, "sbatch --partition", ""},
    {"mem", s::reads, "sbatch --mem", ""},
    {"gres", s::reads, "sbatch --gres", ""},
    {"qos", s::reads, "sbatch --qos", ""},
    {"tmp", s::reads, "sbatch --tmp", ""},
    {"extra", s::reads, "further sbatch options, as one string", ""},
    {"ntasks_per_node", s::reads, "sbatch --ntasks-per-node", ""},
    {"serialize_allocations", s::reads,
     "newer Torc: this scheduler's allocations are submitted one after another", ""},
};

constexpr spec_key resource_monitor_keys[] = {
    {"enabled", s::reads, "jobs are monitored (legacy form; ignored beside jobs, with a warning)",
     ""},
    {"granularity", s::differs, "summary or time_series (legacy form, jobs)",
     "time_series is kept as a summary, with a warning"},
    {"sample_interval_seconds", s::reads, "seconds between samples (default 5)", ""},
    {"generate_plots", s::ignored, "Torc writes plot files",
     "no plot files; the report charts CPU and memory instead (a warning when true)"},
    {"flush_interval_seconds", s::reads, "newer Torc: seconds between writes of samples", ""},
    {"jobs", s::reads, "newer Torc: the jobs' monitor (see resource_monitor.jobs)", ""},
    {"compute_node", s::reads,
     "newer Torc: the node-wide monitor (see resource_monitor.compute_node)", ""},
};

constexpr spec_key resource_monitor_jobs_keys[] = {
    {"enabled", s::reads, "each job's CPU and memory are sampled", ""},
    {"granularity", s::differs, "summary or time_series",
     "time_series is kept as a summary, with a warning"},
};

constexpr spec_key resource_monitor_compute_node_keys[] = {
    {"enabled", s::reads, "the whole node's CPU and memory are sampled", ""},
    {"granularity", s::reads, "summary or time_series (a bounded series the report draws)", ""},
    {"cpu", s::reads, "sample the node's CPU (default true)", ""},
    {"memory", s::reads, "sample the node's memory (default true)", ""},
};

constexpr spec_key action_keys[] = {
    {"trigger_type", s::reads,
     "on_workflow_start, on_workflow_complete, on_jobs_ready, on_jobs_complete, "
     "on_worker_start or on_worker_complete (others are stored, with a warning)",
     ""},
    {"action_type", s::reads, "run_commands or schedule_nodes", ""},
    {"jobs", s::reads, "names of the jobs the trigger watches", ""},
    {"job_name_regexes", s::reads, "regexes of the jobs the trigger watches", ""},
    {"commands", s::reads, "run_commands: the shell commands", ""},
    {"scheduler", s::reads, "schedule_nodes: the slurm_schedulers entry", ""},
    {"scheduler_type", s::reads, "schedule_nodes: slurm", ""},
    {"num_allocations", s::reads, "schedule_nodes: allocations to submit (default 1)", ""},
    {"start_one_worker_per_node", s::reads,
     "schedule_nodes: one worker on each node (direct mode only)", ""},
    {"max_parallel_jobs", s::reads, "schedule_nodes: the workers' limit on running jobs", ""},
    {"persistent", s::reads, "every worker may carry it out, not only the first to claim it", ""},
};

constexpr spec_key execution_config_keys[] = {
    {"mode", s::differs, "direct, slurm or auto",
     "auto means slurm in a multi-node allocation (Torc: whenever SLURM_JOB_ID is set)"},
    {"limit_resources", s::differs, "jobs are held to their memory",
     "sets limits.enforce_memory; torcrun's default is false (Torc's true)"},
    {"termination_signal", s::reads, "direct mode: the signal sent at the deadline", ""},
    {"sigterm_lead_seconds", s::reads,
     "direct mode: seconds between that signal and SIGKILL", ""},
    {"sigkill_headroom_seconds", s::reads, "seconds kept free before the allocation's end", ""},
    {"oom_exit_code", s::reads, "direct mode: the return code of a job killed for memory", ""},
    {"timeout_exit_code", s::reads, "the return code of a job stopped at the deadline", ""},
    {"srun_termination_signal", s::reads, "slurm mode: srun --signal ([R:|B:]SIG[@SECONDS])", ""},
    {"enable_cpu_bind", s::reads, "slurm mode: let srun bind CPUs (default --cpu-bind=none)", ""},
    {"srun_mpi", s::reads,
     "srun --mpi type for workers started one per node (sbatch scripts)", ""},
    {"staggered_start", s::reads,
     "workers of an allocation start spread out (default true; sbatch scripts)", ""},
    {"stdio", s::reads, "where jobs' output goes (see stdio)", ""},
    {"job_stdio_overrides", s::reads, "job name -> stdio, replacing the workflow's", ""},
};

constexpr spec_key stdio_keys[] = {
    {"mode", s::reads, "separate (default), combined, no_stdout, no_stderr or none", ""},
    {"delete_on_success", s::reads, "the output files are deleted after return code 0", ""},
};

constexpr spec_key dynamic_jobs_keys[] = {
    {"max_iterations", s::reads, "spawn_jobs calls allowed per lineage (server default 1000)",
     ""},
};

using k = spec_object_kind;

constexpr spec_object objects[] = {
    {k::workflow, "workflow", "The spec's top-level object", other_keys::refused, workflow_keys},
    {k::job, "jobs[]", "A job entry: a template expanded per parameter combination",
     other_keys::refused, job_keys},
    {k::file, "files[]", "A file entry, templated like jobs", other_keys::refused, file_keys},
    {k::user_data, "user_data[]", "A user data entry, templated like jobs", other_keys::refused,
     user_data_keys},
    {k::dataset, "datasets[]", "Newer Torc: a dataset directory", other_keys::refused,
     dataset_keys},
    {k::resource_requirements, "resource_requirements[]", "A named set of resources a job needs",
     other_keys::refused, resource_requirements_keys},
    {k::failure_handler, "failure_handlers[]", "Named retry rules", other_keys::refused,
     failure_handler_keys},
    {k::failure_handler_rule, "failure_handlers[].rules[]", "One retry rule",
     other_keys::refused, failure_handler_rule_keys},
    {k::slurm_scheduler, "slurm_schedulers[]", "The shape of a Slurm allocation",
     other_keys::refused, slurm_scheduler_keys},
    {k::slurm_defaults, "slurm_defaults",
     "Sbatch options for every allocation: any key but partition, nodes, walltime, time, mem, "
     "gres, name and job-name (set per scheduler)",
     other_keys::free, {}},
    {k::resource_monitor, "resource_monitor", "CPU and memory monitoring", other_keys::warned,
     resource_monitor_keys},
    {k::resource_monitor_jobs, "resource_monitor.jobs", "Newer Torc: the jobs' monitor",
     other_keys::refused, resource_monitor_jobs_keys},
    {k::resource_monitor_compute_node, "resource_monitor.compute_node",
     "Newer Torc: the node-wide monitor", other_keys::refused,
     resource_monitor_compute_node_keys},
    {k::action, "actions[]", "What to do when a trigger fires", other_keys::refused, action_keys},
    {k::execution_config, "execution_config", "Newer Torc: how the jobs run",
     other_keys::refused, execution_config_keys},
    {k::stdio, "stdio",
     "Newer Torc: where output goes (execution_config.stdio, jobs[].stdio, "
     "execution_config.job_stdio_overrides.NAME)",
     other_keys::refused, stdio_keys},
    {k::dynamic_jobs, "dynamic_jobs", "Newer Torc: limits of spawn_jobs", other_keys::refused,
     dynamic_jobs_keys},
};

// spec_object_of indexes `objects` by kind.
constexpr bool in_kind_order()
{
    for (std::size_t i = 0; i < std::size(objects); ++i)
        if (static_cast<std::size_t>(objects[i].kind) != i) return false;
    return std::size(objects) == static_cast<std::size_t>(k::dynamic_jobs) + 1;
}
static_assert(in_kind_order());

}  // namespace

spec_key const* spec_object::find(std::string_view name) const noexcept
{
    auto const it = std::find_if(keys.begin(), keys.end(),
                                 [&](spec_key const& key) { return key.name == name; });
    return it == keys.end() ? nullptr : &*it;
}

std::span<spec_object const> spec_objects() noexcept { return objects; }

spec_object const& spec_object_of(spec_object_kind kind) noexcept
{
    return objects[static_cast<std::size_t>(kind)];
}

std::string_view to_string(key_support support) noexcept
{
    switch (support) {
    case key_support::reads: return "reads";
    case key_support::differs: return "differs";
    case key_support::ignored: return "ignored";
    case key_support::refused: return "refused";
    }
    return "reads";
}

std::string_view to_string(other_keys others) noexcept
{
    switch (others) {
    case other_keys::refused: return "refused";
    case other_keys::warned: return "warned";
    case other_keys::free: return "free";
    }
    return "refused";
}

}  // namespace torcrun::core::spec
