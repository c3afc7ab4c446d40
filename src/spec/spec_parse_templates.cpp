// parse_spec's top level and the template entries: jobs, files and user data
// (docs/TORC-COMPATIBILITY.md §4.2).
#include "spec_parse.hpp"

#include "message_text.hpp"

namespace torcrun::core::spec {

namespace detail {

namespace {

template_parameters read_template_parameters(field_reader& r)
{
    template_parameters out;
    out.parameters = r.parameters("parameters");
    out.parameter_mode = r.optional_string("parameter_mode");
    out.use_parameters = r.optional_strings("use_parameters");
    return out;
}

void read_job(field_reader& r, job_spec& job)
{
    if (!r.begin({"name",
                  "command",
                  "invocation_script",
                  "resource_requirements",
                  "scheduler",
                  "failure_handler",
                  "cancel_on_blocking_job_failure",
                  "supports_termination",
                  "depends_on",
                  "depends_on_regexes",
                  "input_files",
                  "input_file_regexes",
                  "output_files",
                  "output_file_regexes",
                  "input_user_data",
                  "input_user_data_regexes",
                  "output_user_data",
                  "output_user_data_regexes",
                  "parameters",
                  "parameter_mode",
                  "use_parameters"}))
        return;
    job.name = r.string("name");
    job.command = r.string("command");
    job.invocation_script = r.optional_string("invocation_script");
    job.resource_requirements = r.optional_string("resource_requirements");
    job.scheduler = r.optional_string("scheduler");
    job.failure_handler = r.optional_string("failure_handler");
    job.cancel_on_blocking_job_failure = r.boolean("cancel_on_blocking_job_failure", true);
    job.supports_termination = r.boolean("supports_termination", false);
    job.depends_on = r.strings("depends_on");
    job.depends_on_regexes = r.strings("depends_on_regexes");
    job.input_files = r.strings("input_files");
    job.input_file_regexes = r.strings("input_file_regexes");
    job.output_files = r.strings("output_files");
    job.output_file_regexes = r.strings("output_file_regexes");
    job.input_user_data = r.strings("input_user_data");
    job.input_user_data_regexes = r.strings("input_user_data_regexes");
    job.output_user_data = r.strings("output_user_data");
    job.output_user_data_regexes = r.strings("output_user_data_regexes");
    job.params = read_template_parameters(r);
    job.where = r.where();
}

std::optional<jobs_sort_method> read_sort_method(field_reader& r)
{
    auto const text = r.optional_string("jobs_sort_method");
    if (!text) return std::nullopt;
    for (auto m : {jobs_sort_method::gpus_runtime_memory, jobs_sort_method::gpus_memory_runtime,
                   jobs_sort_method::none}) {
        if (*text == to_string(m)) return m;
    }
    r.fail("jobs_sort_method",
           concat({"field \"jobs_sort_method\" must be one of \"gpus_runtime_memory\", "
                   "\"gpus_memory_runtime\", \"none\", found ",
                   quoted(*text)}));
    return std::nullopt;
}

void read_workflow_fields(field_reader& r, workflow_spec& spec)
{
    spec.name = r.string("name");
    spec.user = r.optional_string("user");
    spec.description = r.optional_string("description");
    spec.parameters = r.parameters("parameters").value_or(raw_parameters{});
    spec.use_pending_failed = r.boolean("use_pending_failed", false);
    spec.compute_node_expiration_buffer_seconds =
        r.integer_or("compute_node_expiration_buffer_seconds", 60, 0, int64_max);
    spec.compute_node_wait_for_new_jobs_seconds =
        r.integer_or("compute_node_wait_for_new_jobs_seconds", 90, 0, int64_max);
    spec.compute_node_ignore_workflow_completion =
        r.boolean("compute_node_ignore_workflow_completion", false);
    spec.compute_node_wait_for_healthy_database_minutes =
        r.integer_or("compute_node_wait_for_healthy_database_minutes", 20, 0, int64_max);
    spec.sort_method = read_sort_method(r);
    if (!r.get("jobs")) r.fail("", "field \"jobs\" is required");
}

}  // namespace

void read_jobs(field_reader& workflow, std::vector<job_spec>& out)
{
    for_each_entry(workflow, "jobs", [&](field_reader& r) { read_job(r, out.emplace_back()); });
}

void read_files(field_reader& workflow, std::vector<file_spec>& out)
{
    for_each_entry(workflow, "files", [&](field_reader& r) {
        if (!r.begin({"name", "path", "parameters", "parameter_mode", "use_parameters"})) return;
        auto& file = out.emplace_back();
        file.name = r.string("name");
        file.path = r.string("path");
        file.params = read_template_parameters(r);
        file.where = r.where();
    });
}

void read_user_data(field_reader& workflow, std::vector<user_data_spec>& out)
{
    for_each_entry(workflow, "user_data", [&](field_reader& r) {
        if (!r.begin(
                {"name", "data", "is_ephemeral", "parameters", "parameter_mode", "use_parameters"}))
            return;
        auto& entry = out.emplace_back();
        if (!r.get("name")) {
            r.fail("", "field \"name\" is required (Torc 0.10 silently drops unnamed user data)");
            return;
        }
        entry.name = r.string("name");
        if (auto const* data = r.get("data")) entry.data = normalized(*data);
        entry.is_ephemeral = r.optional_boolean("is_ephemeral");
        entry.params = read_template_parameters(r);
        entry.where = r.where();
    });
}

}  // namespace detail

std::string_view to_string(jobs_sort_method method)
{
    switch (method) {
    case jobs_sort_method::gpus_runtime_memory: return "gpus_runtime_memory";
    case jobs_sort_method::gpus_memory_runtime: return "gpus_memory_runtime";
    case jobs_sort_method::none: return "none";
    }
    return "none";
}

std::string_view to_string(monitor_granularity granularity)
{
    return granularity == monitor_granularity::summary ? "summary" : "time_series";
}

result<workflow_spec> parse_spec(spec_document const& document)
{
    detail::parse_state state{document, std::nullopt};
    detail::field_reader r(state, document.root(), "", "workflow");
    workflow_spec spec;
    if (r.begin({"name", "user", "description", "parameters", "jobs", "files", "user_data",
                 "resource_requirements", "failure_handlers", "slurm_schedulers", "slurm_defaults",
                 "resource_monitor", "actions", "use_pending_failed",
                 "compute_node_expiration_buffer_seconds", "compute_node_wait_for_new_jobs_seconds",
                 "compute_node_ignore_workflow_completion",
                 "compute_node_wait_for_healthy_database_minutes", "jobs_sort_method"})) {
        detail::read_workflow_fields(r, spec);
        detail::read_jobs(r, spec.jobs);
        detail::read_files(r, spec.files);
        detail::read_user_data(r, spec.user_data);
        detail::read_resource_requirements(r, spec.resource_requirements);
        detail::read_failure_handlers(r, spec.failure_handlers);
        detail::read_slurm_schedulers(r, spec.slurm_schedulers);
        detail::read_slurm_defaults(r, spec.slurm_defaults);
        detail::read_resource_monitor(r, spec.resource_monitor, spec.warnings);
        detail::read_actions(r, spec.slurm_schedulers, spec.actions, spec.warnings);
    }
    if (state.first) return *state.first;
    return spec;
}

}  // namespace torcrun::core::spec
