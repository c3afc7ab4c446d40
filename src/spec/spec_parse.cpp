// parse_spec: the workflow object read entry by entry into a workflow_spec
// (docs/TORC-COMPATIBILITY.md §4.2-§4.3, and newer Torc's keys of §4.13), after newer Torc's
// `variables` are substituted into the document (workflow_variables.cpp); `parameters_file`
// tables are read through the caller's loader as entries name them. The template entries
// (jobs, files and user data) come first, then resource requirements, failure handlers, Slurm
// schedulers, slurm_defaults, the resource monitor and actions, with the checks Torc leaves to
// its server (duplicate and reserved names) done here, before anything is created, and last the
// create-time checks of execution_config. The keys each object accepts are its row of the key
// table (spec_keys.cpp), which field_reader::begin checks; keys of newer Torc that torcrun does
// not implement are rows marked refused, refused here by name. Each entry reader reports through
// the shared parse_state and returns what it read so far.
#include "dynamic_jobs_reader.hpp"
#include "execution_config_reader.hpp"
#include "field_reader.hpp"
#include "json_text.hpp"
#include "message_text.hpp"
#include "workflow_variables.hpp"
#include "torcrun/common/units.hpp"
#include "torcrun/spec/spec_model.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

namespace torcrun::core::spec {

namespace detail {

namespace {

// Calls `read(reader)` for each element of the workflow's list `key`, with a reader for
// `/key/i` named `key[i] "name"`. Stops at the first failure.
template <class Read>
void for_each_entry(field_reader& workflow, std::string_view key, Read&& read)
{
    auto const* list = workflow.list(key);
    if (!list) return;
    for (std::size_t i = 0; i < list->size() && workflow.state().ok(); ++i) {
        field_reader entry(workflow.state(), (*list)[i],
                           json_pointer_append(workflow.member_pointer(key), i),
                           entry_context(key, i, (*list)[i]));
        read(entry);
    }
}

// Keys of newer Torc that torcrun does not act on, with what they are for: refused by name
// rather than as unknown, so the user learns why.
struct unsupported_key {
    std::string_view key;
    std::string_view feature;
};

void refuse_unsupported(field_reader& r, std::initializer_list<unsupported_key> keys)
{
    for (auto const& k : keys) {
        if (!r.state().ok() || !r.get(k.key)) continue;
        r.fail(k.key,
               concat({"field ", quoted(k.key), " (newer Torc: ", k.feature,
                       ") is not supported by torcrun"}),
               true);
    }
}

// Remembers the first key of newer Torc found (workflow_spec::newer_form).
void note_newer(field_reader& r, std::string& form, std::initializer_list<std::string_view> keys)
{
    for (auto const key : keys) {
        if (!form.empty() || !r.get(key)) continue;
        form = concat({quoted(key), " at ", r.state().document.location(r.member_pointer(key), true)});
    }
}

// A parameter written as anything but a string (newer Torc's native list, or a number) is a
// key of newer Torc in effect: Torc 0.10 refuses it.
void note_native_parameters(field_reader& r, std::string& form)
{
    auto const* params = r.get("parameters");
    if (!form.empty() || !params || !params->is_object()) return;
    for (auto const& member : params->get_object()) {
        if (member.value().is_string()) continue;
        auto const pointer = json_pointer_append(r.member_pointer("parameters"), member.key());
        form = concat({member.value().is_array() ? "a native list" : "a native value",
                       " in \"parameters\" at ", r.state().document.location(pointer)});
        return;
    }
}

// -- the template entries: jobs, files, user data

// Newer Torc's table source of an entry (its validate_parameter_source): a `parameters_file` of
// its own, or `use_parameters_file: true` taking the workflow's; either excludes `parameters`,
// `parameter_mode` and `use_parameters`, and the two exclude each other. The table is read here,
// so a missing or malformed one is named at the key that brought it in.
std::optional<std::size_t> read_table_source(field_reader& r, template_parameters const& own)
{
    auto const file = r.optional_string("parameters_file");
    bool const use = r.boolean("use_parameters_file", false);
    if (!r.state().ok() || (!file && !use)) return std::nullopt;
    std::string_view const key = file ? "parameters_file" : "use_parameters_file";
    if (own.parameters || own.parameter_mode || own.use_parameters) {
        r.fail(key, concat({"field ", quoted(key),
                            " cannot be combined with \"parameters\", \"parameter_mode\" or "
                            "\"use_parameters\": the table gives the combinations itself"}));
        return std::nullopt;
    }
    if (file && use) {
        r.fail("use_parameters_file", "fields \"parameters_file\" and \"use_parameters_file\" "
                                      "exclude each other: give the entry one table");
        return std::nullopt;
    }
    auto& state = r.state();
    if (use && !state.workflow_table) {
        r.fail("use_parameters_file", "field \"use_parameters_file\" needs a workflow-level "
                                      "\"parameters_file\" to take the rows from");
        return std::nullopt;
    }
    auto index = state.tables->load(file ? *file : *state.workflow_table);
    if (index) return *index;
    std::string const detail = concat({"field \"parameters_file\": ", index.error().message});
    if (file) r.fail("parameters_file", detail);
    else state.fail("/parameters_file", false, "workflow", detail);
    return std::nullopt;
}

template_parameters read_template_parameters(field_reader& r, std::string& newer_form)
{
    note_native_parameters(r, newer_form);
    note_newer(r, newer_form, {"parameters_file", "use_parameters_file"});
    template_parameters out;
    out.parameters = r.parameters("parameters");
    out.parameter_mode = r.optional_string("parameter_mode");
    out.use_parameters = r.optional_strings("use_parameters");
    out.table = read_table_source(r, out);
    return out;
}

void read_job(field_reader& r, job_spec& job, std::string& newer_form)
{
    if (!r.begin(spec_object_kind::job))
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
    note_newer(r, newer_form, {"env", "priority", "stdio", "label", "input_datasets",
                               "output_datasets"});
    job.input_datasets = r.strings("input_datasets");
    job.output_datasets = r.strings("output_datasets");
    job.env = r.env("env");
    job.priority = r.integer_or("priority", 0, 0, int64_max);
    job.label = r.optional_string("label");
    if (job.label && job.label->empty())
        r.fail("label", "field \"label\" is empty: leave it out for a job any unlabelled worker "
                        "claims");
    job.stdio = read_stdio(r, "stdio");
    job.params = read_template_parameters(r, newer_form);
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

std::optional<boost::json::value> read_metadata(field_reader& r)
{
    auto const* value = r.get("metadata");
    if (!value) return std::nullopt;
    if (!value->is_string() && !value->is_object()) {
        r.fail("metadata", concat({"field \"metadata\" must be a string or an object, found ",
                                   describe_value(*value)}));
        return std::nullopt;
    }
    return normalized(*value);
}

// 0.23's workflow `access_groups`: group names, each given once; the server checks they exist.
std::vector<std::string> read_access_groups(field_reader& r)
{
    auto names = r.strings("access_groups");
    for (std::size_t i = 0; i < names.size(); ++i) {
        auto const earlier = std::find(names.begin(), names.begin() + i, names[i]);
        if (names[i].empty())
            r.fail("access_groups", "field \"access_groups\": entry " + std::to_string(i) +
                                        " is empty");
        else if (earlier != names.begin() + i)
            r.fail("access_groups", "field \"access_groups\": " + quoted(names[i]) +
                                        " is named twice");
    }
    return names;
}

void read_workflow_fields(field_reader& r, workflow_spec& spec)
{
    if (r.get("slurm_config"))
        r.fail("slurm_config",
               "field \"slurm_config\" was removed from Torc; use \"execution_config\" "
               "(mode, srun_termination_signal, enable_cpu_bind, ...)",
               true);
    note_newer(r, spec.newer_form, {"enable_ro_crate"});
    spec.enable_ro_crate = r.boolean("enable_ro_crate", false);
    spec.dynamic_jobs = read_dynamic_jobs(r);
    spec.name = r.string("name");
    spec.user = r.optional_string("user");
    spec.description = r.optional_string("description");
    note_newer(r, spec.newer_form, {"project", "metadata", "env", "execution_config"});
    spec.project = r.optional_string("project");
    spec.access_groups = read_access_groups(r);
    spec.metadata = read_metadata(r);
    spec.env = r.env("env");
    spec.execution_config = read_execution_config(r);
    if (r.get("compute_node_expiration_buffer_seconds"))
        spec.warnings.push_back(
            "workflow: field \"compute_node_expiration_buffer_seconds\" is deprecated (newer "
            "Torc ignores it); torcrun stores it as Torc 0.10 does");
    note_newer(r, spec.newer_form, {"variables", "parameters_file"});
    note_native_parameters(r, spec.newer_form);
    spec.parameters = r.parameters("parameters").value_or(raw_parameters{});
    spec.parameters_file = r.optional_string("parameters_file");
    if (spec.parameters_file && r.get("parameters"))
        r.fail("parameters_file", "fields \"parameters\" and \"parameters_file\" exclude each "
                                  "other: a workflow has one shared parameter source");
    r.state().workflow_table = spec.parameters_file;
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
    if (spec.sort_method)
        spec.warnings.push_back(
            "workflow: field \"jobs_sort_method\" was removed in newer Torc (give jobs a "
            "\"priority\" instead); torcrun still orders claims by it as Torc 0.10 does");
    if (!r.get("jobs")) r.fail("", "field \"jobs\" is required");
}

void read_jobs(field_reader& workflow, std::vector<job_spec>& out, std::string& newer_form)
{
    for_each_entry(workflow, "jobs",
                   [&](field_reader& r) { read_job(r, out.emplace_back(), newer_form); });
}

void read_files(field_reader& workflow, std::vector<file_spec>& out, std::string& newer_form)
{
    for_each_entry(workflow, "files", [&](field_reader& r) {
        if (!r.begin(spec_object_kind::file))
            return;
        refuse_unsupported(r, {{"identifier", "RO-Crate identifiers"}});
        note_newer(r, newer_form, {"st_mtime"});
        auto& file = out.emplace_back();
        file.name = r.string("name");
        file.path = r.string("path");
        if (auto const* t = r.get("st_mtime")) {
            if (t->is_number())
                file.mtime = t->to_number<double>();
            else
                r.fail("st_mtime", concat({"field \"st_mtime\" must be a number (seconds since "
                                           "the epoch), found ", describe_value(*t)}));
        }
        file.params = read_template_parameters(r, newer_form);
        file.where = r.where();
    });
}

void read_datasets(field_reader& workflow, std::vector<dataset_spec>& out, std::string& newer_form)
{
    note_newer(workflow, newer_form, {"datasets"});
    for_each_entry(workflow, "datasets", [&](field_reader& r) {
        if (!r.begin(spec_object_kind::dataset)) return;
        auto& d = out.emplace_back();
        d.name = r.string("name");
        d.path = r.string("path");
        d.description = r.optional_string("description");
        d.hash_mode = r.optional_string("hash_mode").value_or("manifest");
        if (d.hash_mode != "manifest" && d.hash_mode != "content" && d.hash_mode != "none")
            r.fail("hash_mode", concat({"field \"hash_mode\" is ", quoted(d.hash_mode),
                                        ": use \"manifest\", \"content\" or \"none\""}));
        if (d.path.empty()) r.fail("path", "field \"path\" is empty: name the dataset's directory");
        for (auto const& other : out) {
            if (&other != &d && other.name == d.name)
                r.fail("name", concat({"dataset ", quoted(d.name), " is defined twice"}));
        }
        d.where = r.where();
    });
}

void read_user_data(field_reader& workflow, std::vector<user_data_spec>& out,
                    std::string& newer_form)
{
    for_each_entry(workflow, "user_data", [&](field_reader& r) {
        if (!r.begin(spec_object_kind::user_data))
            return;
        auto& entry = out.emplace_back();
        if (!r.get("name")) {
            r.fail("", "field \"name\" is required (Torc 0.10 silently drops unnamed user data)");
            return;
        }
        entry.name = r.string("name");
        if (auto const* data = r.get("data")) entry.data = normalized(*data);
        entry.is_ephemeral = r.optional_boolean("is_ephemeral");
        entry.params = read_template_parameters(r, newer_form);
        entry.where = r.where();
    });
}

// -- the other entries

// Names must be unique within their list; the message names the earlier entry.
template <class Entry>
void check_unique_name(field_reader& r, std::vector<Entry> const& earlier, std::string_view list,
                       std::string const& name)
{
    for (std::size_t i = 0; i < earlier.size(); ++i) {
        if (earlier[i].name != name) continue;
        r.fail("name", concat({"the name ", quoted(name), " is already used by ", list, "[",
                               std::to_string(i), "]"}));
        return;
    }
}

template <class T>
void check_unit(field_reader& r, std::string_view key, result<T> const& parsed)
{
    if (!parsed) r.fail(key, concat({"field ", quoted(key), ": ", parsed.error().message}));
}

failure_handler_rule_spec read_rule(field_reader& r)
{
    failure_handler_rule_spec rule;
    if (!r.begin(spec_object_kind::failure_handler_rule))
        return rule;
    rule.exit_codes = r.int32s("exit_codes");
    rule.match_all_exit_codes = r.boolean("match_all_exit_codes", false);
    rule.recovery_script = r.optional_string("recovery_script");
    rule.max_retries = static_cast<std::int32_t>(r.integer_or("max_retries", 3, 0, int32_max));
    return rule;
}

// The docs' spellings are read too (docs/TORC-COMPATIBILITY.md §4.10 item 2); Torc 0.10's code
// rejects them.
std::optional<monitor_granularity> read_granularity(field_reader& r,
                                                    std::vector<std::string>& warnings)
{
    auto const text = r.optional_string("granularity");
    if (!text) return std::nullopt;
    if (*text == "summary") return monitor_granularity::summary;
    if (*text == "time_series") return monitor_granularity::time_series;
    if (*text == "Summary" || *text == "TimeSeries") {
        bool const summary = *text == "Summary";
        warnings.push_back(
            concat({"resource_monitor: Torc 0.10 rejects granularity ", quoted(*text),
                    "; torcrun reads it as ", summary ? "\"summary\"" : "\"time_series\""}));
        return summary ? monitor_granularity::summary : monitor_granularity::time_series;
    }
    r.fail("granularity", concat({"field \"granularity\" must be one of \"summary\", "
                                  "\"time_series\", found ",
                                  quoted(*text)}));
    return std::nullopt;
}

constexpr std::array<std::string_view, 6> known_triggers{
    "on_workflow_start", "on_workflow_complete", "on_jobs_ready",
    "on_jobs_complete",  "on_worker_start",      "on_worker_complete"};

void check_action(field_reader& r, action_spec const& a,
                  std::vector<slurm_scheduler_spec> const& schedulers)
{
    if (a.action_type == "run_commands") {
        if (!a.commands || a.commands->empty())
            r.fail("", "a run_commands action needs a non-empty \"commands\" list");
        return;
    }
    if (a.action_type != "schedule_nodes") {
        r.fail("action_type", concat({"field \"action_type\" must be one of \"run_commands\", "
                                      "\"schedule_nodes\", found ",
                                      quoted(a.action_type)}));
        return;
    }
    if (!a.scheduler || !a.scheduler_type) {
        r.fail("", "a schedule_nodes action needs \"scheduler\" and \"scheduler_type\"");
        return;
    }
    auto const named = [&](auto const& s) { return s.name == *a.scheduler; };
    if (*a.scheduler_type == "slurm" && std::none_of(schedulers.begin(), schedulers.end(), named))
        r.fail("scheduler",
               concat({"scheduler ", quoted(*a.scheduler), " names no slurm_schedulers entry"}));
}

void read_resource_requirements(field_reader& workflow,
                                std::vector<resource_requirements_spec>& out)
{
    for_each_entry(workflow, "resource_requirements", [&](field_reader& r) {
        if (!r.begin(spec_object_kind::resource_requirements))
            return;
        resource_requirements_spec rr;
        rr.name = r.string("name");
        rr.num_cpus = r.integer("num_cpus", 0, int64_max);
        rr.memory = r.string("memory");
        rr.num_gpus = r.integer_or("num_gpus", 0, 0, int64_max);
        rr.num_nodes = r.integer_or("num_nodes", 1, 1, int64_max);
        rr.runtime = r.string_or("runtime", "PT1H");
        rr.tasks_per_node = r.optional_integer("tasks_per_node", 1, int64_max);
        rr.where = r.where();
        if (!r.state().ok()) return;
        if (rr.name == "default")
            r.fail("name", "the name \"default\" is reserved for the requirements the server "
                           "creates with every workflow");
        check_unique_name(r, out, "resource_requirements", rr.name);
        check_unit(r, "memory", parse_memory(rr.memory));
        check_unit(r, "runtime", parse_duration(rr.runtime));
        out.push_back(std::move(rr));
    });
}

void read_failure_handlers(field_reader& workflow, std::vector<failure_handler_spec>& out)
{
    for_each_entry(workflow, "failure_handlers", [&](field_reader& r) {
        if (!r.begin(spec_object_kind::failure_handler)) return;
        failure_handler_spec handler;
        handler.name = r.string("name");
        handler.where = r.where();
        if (!r.get("rules")) r.fail("", "field \"rules\" is required");
        if (auto const* rules = r.list("rules")) {
            for (std::size_t i = 0; i < rules->size() && r.state().ok(); ++i) {
                field_reader rule(r.state(), (*rules)[i],
                                  json_pointer_append(r.member_pointer("rules"), i),
                                  concat({r.context(), " rules[", std::to_string(i), "]"}));
                handler.rules.push_back(read_rule(rule));
            }
        }
        check_unique_name(r, out, "failure_handlers", handler.name);
        out.push_back(std::move(handler));
    });
}

void read_slurm_schedulers(field_reader& workflow, std::vector<slurm_scheduler_spec>& out,
                           std::string& newer_form)
{
    for_each_entry(workflow, "slurm_schedulers", [&](field_reader& r) {
        if (!r.begin(spec_object_kind::slurm_scheduler))
            return;
        slurm_scheduler_spec s;
        if (!r.get("name")) {
            r.fail("", "field \"name\" is required (Torc 0.10 silently drops unnamed schedulers)");
            return;
        }
        s.name = r.string("name");
        s.account = r.string("account");
        s.nodes = r.integer_or("nodes", 1, 1, int64_max);
        s.walltime = r.string_or("walltime", "01:00:00");
        s.partition = r.optional_string("partition");
        s.mem = r.optional_string("mem");
        s.gres = r.optional_string("gres");
        s.qos = r.optional_string("qos");
        s.tmp = r.optional_string("tmp");
        s.extra = r.optional_string("extra");
        s.ntasks_per_node = r.optional_integer("ntasks_per_node", 1, int64_max);
        note_newer(r, newer_form, {"serialize_allocations"});
        s.serialize_allocations = r.boolean("serialize_allocations", false);
        s.where = r.where();
        check_unique_name(r, out, "slurm_schedulers", s.name);
        out.push_back(std::move(s));
    });
}

void read_slurm_defaults(field_reader& workflow, std::optional<boost::json::object>& out)
{
    auto const* defaults = workflow.object("slurm_defaults");
    if (!defaults) return;
    static constexpr std::array<std::string_view, 8> forbidden{
        "partition", "nodes", "walltime", "time", "mem", "gres", "name", "job-name"};
    for (auto const& member : *defaults) {
        std::string lower(member.key());
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (std::find(forbidden.begin(), forbidden.end(), lower) == forbidden.end()) continue;
        workflow.state().fail(
            json_pointer_append(workflow.member_pointer("slurm_defaults"), member.key()), true,
            "slurm_defaults",
            concat({"key ", quoted(member.key()),
                    " is set per scheduler; slurm_defaults may not hold "
                    "partition, nodes, walltime, time, mem, gres, name or "
                    "job-name"}));
        return;
    }
    out = normalized(*workflow.get("slurm_defaults")).get_object();
}

// The jobs' settings of the split form (`jobs`), or of the legacy keys when `jobs` is absent.
void read_job_monitor(field_reader& r, resource_monitor_spec& monitor,
                      std::vector<std::string>& warnings)
{
    monitor.enabled = r.boolean("enabled", false);
    monitor.granularity = read_granularity(r, warnings).value_or(monitor_granularity::summary);
    if (monitor.enabled && monitor.granularity == monitor_granularity::time_series)
        warnings.push_back(concat({r.context(), ": granularity \"time_series\": torcrun's worker "
                                   "keeps each job's peak and average CPU and memory only "
                                   "(as \"summary\"); no time series is recorded"}));
}

// Node-wide monitoring (newer Torc): the worker samples the node's CPU and memory.
void read_node_monitor(field_reader& monitor, resource_monitor_spec& out,
                       std::vector<std::string>& warnings)
{
    auto const* value = monitor.get("compute_node");
    if (!value) return;
    field_reader r(monitor.state(), *value, monitor.member_pointer("compute_node"),
                   "resource_monitor compute_node");
    if (!r.begin(spec_object_kind::resource_monitor_compute_node)) return;
    node_monitor_spec node;
    node.enabled = r.boolean("enabled", false);
    node.granularity = read_granularity(r, warnings).value_or(monitor_granularity::summary);
    node.cpu = r.boolean("cpu", true);
    node.memory = r.boolean("memory", true);
    out.compute_node = node;
}

void read_resource_monitor(field_reader& workflow, std::optional<resource_monitor_spec>& out,
                           std::vector<std::string>& warnings, std::string& newer_form)
{
    if (!workflow.object("resource_monitor")) return;
    auto const* value = workflow.get("resource_monitor");
    field_reader r(workflow.state(), *value, workflow.member_pointer("resource_monitor"),
                   "resource_monitor");
    r.begin(spec_object_kind::resource_monitor);
    // Torc ignores the keys it does not know here (and fills the rest from defaults).
    auto const& known = spec_object_of(spec_object_kind::resource_monitor);
    for (auto const& member : value->get_object()) {
        if (!known.find(member.key()))
            warnings.push_back(concat({"resource_monitor: field ", quoted(member.key()),
                                       " is not a monitor setting; it is ignored"}));
    }
    resource_monitor_spec monitor;
    note_newer(r, newer_form, {"jobs", "compute_node", "flush_interval_seconds"});
    monitor.split = r.get("jobs") || r.get("compute_node");
    if (auto const* jobs = r.get("jobs")) {
        if (r.get("enabled") || r.get("granularity"))
            warnings.push_back("resource_monitor: \"enabled\" and \"granularity\" are ignored "
                               "beside \"jobs\", as in Torc");
        field_reader j(r.state(), *jobs, r.member_pointer("jobs"), "resource_monitor jobs");
        if (j.begin(spec_object_kind::resource_monitor_jobs)) read_job_monitor(j, monitor, warnings);
    } else {
        read_job_monitor(r, monitor, warnings);
    }
    read_node_monitor(r, monitor, warnings);
    monitor.sample_interval_seconds =
        static_cast<std::int32_t>(r.integer_or("sample_interval_seconds", 5, 1, int32_max));
    if (auto const flush = r.optional_integer("flush_interval_seconds", 1, int32_max))
        monitor.flush_interval_seconds = static_cast<std::int32_t>(*flush);
    monitor.generate_plots = r.boolean("generate_plots", false);
    if (monitor.generate_plots && r.state().ok())
        warnings.push_back("resource_monitor: generate_plots: torcrun writes no plot files of its "
                           "own; the report (report.html, `torcrun report`) charts each job's and "
                           "each monitored node's CPU and memory");
    out = monitor;
}

void read_actions(field_reader& workflow, std::vector<slurm_scheduler_spec> const& schedulers,
                  std::vector<action_spec>& out, std::vector<std::string>& warnings)
{
    for_each_entry(workflow, "actions", [&](field_reader& r) {
        if (!r.begin(spec_object_kind::action))
            return;
        action_spec a;
        a.trigger_type = r.string("trigger_type");
        a.action_type = r.string("action_type");
        a.jobs = r.optional_strings("jobs");
        a.job_name_regexes = r.optional_strings("job_name_regexes");
        a.commands = r.optional_strings("commands");
        a.scheduler = r.optional_string("scheduler");
        a.scheduler_type = r.optional_string("scheduler_type");
        a.num_allocations = r.integer_or("num_allocations", 1, 1, int64_max);
        a.start_one_worker_per_node = r.boolean("start_one_worker_per_node", false);
        if (auto const n = r.optional_integer("max_parallel_jobs", 1, int32_max))
            a.max_parallel_jobs = static_cast<std::int32_t>(*n);
        a.persistent = r.boolean("persistent", false);
        a.where = r.where();
        if (!r.state().ok()) return;
        check_action(r, a, schedulers);
        if (std::find(known_triggers.begin(), known_triggers.end(), a.trigger_type)
            == known_triggers.end())
            warnings.push_back(concat({r.context(), ": trigger_type ", quoted(a.trigger_type),
                                       " is not one Torc fires (on_workflow_start, "
                                       "on_workflow_complete, on_jobs_ready, on_jobs_complete, "
                                       "on_worker_start, on_worker_complete); it is stored as "
                                       "given"}));
        out.push_back(std::move(a));
    });
}

}  // namespace

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

result<workflow_spec> parse_spec(spec_document const& document, table_loader loader)
{
    detail::spec_tables tables(std::move(loader));
    // Newer Torc substitutes `variables` into the document before reading any field.
    auto substituted = detail::apply_workflow_variables(document, tables);
    if (!substituted) return substituted.error();
    detail::parse_state state{document, std::nullopt, &tables, std::nullopt};
    detail::field_reader r(state, *substituted ? **substituted : document.root(), "", "workflow");
    workflow_spec spec;
    spec.warnings = document.warnings();
    if (r.begin(spec_object_kind::workflow)) {
        detail::read_workflow_fields(r, spec);
        detail::read_jobs(r, spec.jobs, spec.newer_form);
        detail::read_files(r, spec.files, spec.newer_form);
        detail::read_user_data(r, spec.user_data, spec.newer_form);
        detail::read_datasets(r, spec.datasets, spec.newer_form);
        detail::read_resource_requirements(r, spec.resource_requirements);
        detail::read_failure_handlers(r, spec.failure_handlers);
        detail::read_slurm_schedulers(r, spec.slurm_schedulers, spec.newer_form);
        detail::read_slurm_defaults(r, spec.slurm_defaults);
        detail::read_resource_monitor(r, spec.resource_monitor, spec.warnings, spec.newer_form);
        detail::read_actions(r, spec.slurm_schedulers, spec.actions, spec.warnings);
    }
    if (state.first) return *state.first;
    spec.tables = std::move(tables.tables());
    execution_context context;
    context.has_slurm_schedulers = !spec.slurm_schedulers.empty();
    for (auto const& a : spec.actions)
        if (a.action_type == "schedule_nodes" && a.start_one_worker_per_node)
            context.per_node_actions.push_back(a.where);
    if (auto checked = check_execution_config(spec.execution_config, context); !checked)
        return checked.error();
    return spec;
}

}  // namespace torcrun::core::spec
