// parse_spec's non-template entries: resource requirements, failure handlers, Slurm schedulers,
// slurm_defaults, the resource monitor and actions (docs/TORC-COMPATIBILITY.md §4.2-§4.3), with the
// checks Torc leaves to its server (duplicate and reserved names) done here, before anything is
// created.
#include "spec_parse.hpp"

#include "message_text.hpp"
#include "torcrun/common/units.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace torcrun::core::spec::detail {

namespace {

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
    if (!r.begin({"exit_codes", "match_all_exit_codes", "recovery_script", "max_retries"}))
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

}  // namespace

void read_resource_requirements(field_reader& workflow,
                                std::vector<resource_requirements_spec>& out)
{
    for_each_entry(workflow, "resource_requirements", [&](field_reader& r) {
        if (!r.begin({"name", "num_cpus", "memory", "num_gpus", "num_nodes", "runtime",
                      "tasks_per_node"}))
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
        if (!r.begin({"name", "rules"})) return;
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

void read_slurm_schedulers(field_reader& workflow, std::vector<slurm_scheduler_spec>& out)
{
    for_each_entry(workflow, "slurm_schedulers", [&](field_reader& r) {
        if (!r.begin({"name", "account", "nodes", "walltime", "partition", "mem", "gres", "qos",
                      "tmp", "extra", "ntasks_per_node"}))
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

void read_resource_monitor(field_reader& workflow, std::optional<resource_monitor_spec>& out,
                           std::vector<std::string>& warnings)
{
    if (!workflow.object("resource_monitor")) return;
    auto const* value = workflow.get("resource_monitor");
    field_reader r(workflow.state(), *value, workflow.member_pointer("resource_monitor"),
                   "resource_monitor");
    r.begin_any();
    // Torc ignores the keys it does not know here (and fills the rest from defaults).
    for (auto const& member : value->get_object()) {
        std::string_view const key = member.key();
        if (key != "enabled" && key != "granularity" && key != "sample_interval_seconds"
            && key != "generate_plots")
            warnings.push_back(concat({"resource_monitor: field ", quoted(key),
                                       " is not a monitor setting; it is ignored"}));
    }
    resource_monitor_spec monitor;
    monitor.enabled = r.boolean("enabled", false);
    monitor.granularity = read_granularity(r, warnings).value_or(monitor_granularity::summary);
    monitor.sample_interval_seconds =
        static_cast<std::int32_t>(r.integer_or("sample_interval_seconds", 5, 1, int32_max));
    monitor.generate_plots = r.boolean("generate_plots", false);
    out = monitor;
}

void read_actions(field_reader& workflow, std::vector<slurm_scheduler_spec> const& schedulers,
                  std::vector<action_spec>& out, std::vector<std::string>& warnings)
{
    for_each_entry(workflow, "actions", [&](field_reader& r) {
        if (!r.begin({"trigger_type", "action_type", "jobs", "job_name_regexes", "commands",
                      "scheduler", "scheduler_type", "num_allocations", "start_one_worker_per_node",
                      "max_parallel_jobs", "persistent"}))
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

}  // namespace torcrun::core::spec::detail
