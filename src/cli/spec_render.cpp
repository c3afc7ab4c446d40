// Rendering of a creation plan for `torcrun spec`.
#include "spec_render.hpp"

#include "torcrun/spec/submission.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::apps {

namespace spec = core::spec;

namespace {

// Continuation lines of multi-line text (commands, scripts) line up under the first one.
std::string indented(std::string text, std::string_view indent)
{
    while (!text.empty() && text.back() == '\n') text.pop_back();
    std::string out;
    for (char c : text) {
        out.push_back(c);
        if (c == '\n') out.append(indent);
    }
    return out;
}

void print_names(std::ostream& out, std::string_view label, std::vector<std::string> const& names)
{
    if (names.empty()) return;
    out << "    " << label << ":";
    for (auto const& n : names) out << " " << n;
    out << "\n";
}

void print_edges(std::ostream& out, std::string_view label,
                 std::vector<spec::job_edge> const& edges)
{
    out << "  " << label << " (" << edges.size() << "):\n";
    // Written in blocks: a dense spec has millions of edges, and one stream insertion per piece
    // cost more than the expansion.
    std::string block;
    for (auto const& e : edges) {
        block.append("    ").append(e.job).append(" -> ").append(e.depends_on).append(1, '\n');
        if (block.size() >= 1 << 16) {
            out.write(block.data(), static_cast<std::streamsize>(block.size()));
            block.clear();
        }
    }
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
}

// Each kind holds distinct pairs, so the union is the explicit ones plus the implied ones that
// are not also explicit.
std::size_t union_count(spec::creation_plan const& plan)
{
    using pair = std::pair<std::string_view, std::string_view>;
    std::set<pair> implied;
    for (auto const& e : plan.implied_edges) implied.emplace(e.job, e.depends_on);
    std::size_t both = 0;
    for (auto const& e : plan.explicit_edges) both += implied.contains(pair(e.job, e.depends_on));
    return plan.explicit_edges.size() + plan.implied_edges.size() - both;
}

boost::json::array string_array(std::vector<std::string> const& names)
{
    return boost::json::array(names.begin(), names.end());
}

boost::json::array edge_array(std::vector<spec::job_edge> const& edges)
{
    boost::json::array out;
    for (auto const& e : edges)
        out.push_back(boost::json::array{e.job.c_str(), e.depends_on.c_str()});
    return out;
}

template <class T>
void put_optional(boost::json::object& o, std::string_view key, std::optional<T> const& v)
{
    if (v) o[key] = *v;
}

boost::json::array records_json(spec::creation_plan const& plan, std::string_view kind)
{
    boost::json::array out;
    if (kind == "files") {
        for (auto const& f : plan.files) out.push_back({{"name", f.name}, {"path", f.path}});
    } else if (kind == "user_data") {
        for (auto const& u : plan.user_data) {
            boost::json::object o{{"name", u.name}};
            put_optional(o, "is_ephemeral", u.is_ephemeral);
            put_optional(o, "data", u.data);
            out.push_back(std::move(o));
        }
    } else if (kind == "resource_requirements") {
        for (auto const& r : plan.resource_requirements) {
            boost::json::object o{{"name", r.name},         {"num_cpus", r.num_cpus},
                                  {"num_gpus", r.num_gpus}, {"num_nodes", r.num_nodes},
                                  {"memory", r.memory},     {"runtime", r.runtime}};
            put_optional(o, "tasks_per_node", r.tasks_per_node);
            out.push_back(std::move(o));
        }
    } else if (kind == "failure_handlers") {
        for (auto const& h : plan.failure_handlers)
            out.push_back({{"name", h.name}, {"rules", h.rules}});
    }
    return out;
}

boost::json::array schedulers_json(std::vector<spec::slurm_scheduler_spec> const& schedulers)
{
    boost::json::array out;
    for (auto const& s : schedulers) {
        boost::json::object o{
            {"name", s.name}, {"account", s.account}, {"nodes", s.nodes}, {"walltime", s.walltime}};
        put_optional(o, "partition", s.partition);
        put_optional(o, "mem", s.mem);
        put_optional(o, "gres", s.gres);
        put_optional(o, "qos", s.qos);
        put_optional(o, "tmp", s.tmp);
        put_optional(o, "extra", s.extra);
        put_optional(o, "ntasks_per_node", s.ntasks_per_node);
        o["serialize_allocations"] = s.serialize_allocations;
        out.push_back(std::move(o));
    }
    return out;
}

boost::json::object env_object(spec::env_list const& env)
{
    boost::json::object out;
    for (auto const& [name, value] : env) out[name] = value;
    return out;
}

// `NAME=value` pairs on one line (values as JSON strings when they hold spaces or quotes).
void print_env(std::ostream& out, std::string_view label, boost::json::object const& env)
{
    if (env.empty()) return;
    out << label << ":";
    for (auto const& kv : env) out << " " << kv.key() << "=" << boost::json::serialize(kv.value());
    out << "\n";
}

boost::json::array jobs_json(spec::creation_plan const& plan)
{
    std::vector<std::size_t> level(plan.jobs.size(), 0);
    for (auto const& b : plan.job_batches)
        for (auto const j : b.jobs) level[j] = b.level;
    boost::json::array out;
    for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
        auto const& j = plan.jobs[i];
        boost::json::object o{{"name", j.name}, {"command", j.command}};
        put_optional(o, "invocation_script", j.invocation_script);
        put_optional(o, "resource_requirements", j.resource_requirements);
        put_optional(o, "scheduler", j.scheduler);
        put_optional(o, "failure_handler", j.failure_handler);
        o["cancel_on_blocking_job_failure"] = j.cancel_on_blocking_job_failure;
        o["supports_termination"] = j.supports_termination;
        o["depends_on"] = string_array(j.depends_on);
        o["input_files"] = string_array(j.input_files);
        o["output_files"] = string_array(j.output_files);
        o["input_user_data"] = string_array(j.input_user_data);
        o["output_user_data"] = string_array(j.output_user_data);
        o["priority"] = j.priority;
        o["env"] = env_object(j.env);
        if (j.stdio) o["stdio"] = spec::stdio_json(*j.stdio);
        o["level"] = level[i];
        o["torc_copies"] = j.copies;
        out.push_back(std::move(o));
    }
    return out;
}

boost::json::array actions_json(std::vector<spec::planned_action> const& actions)
{
    boost::json::array out;
    for (auto const& a : actions) {
        // The scheduler's id is the server's to assign; the plan shows its name beside it.
        auto config = spec::action_config(a, 0);
        if (a.action_type == "schedule_nodes") config["scheduler"] = a.scheduler.value_or("");
        boost::json::object o{{"trigger_type", a.trigger_type},
                              {"action_type", a.action_type},
                              {"action_config", std::move(config)}};
        o["job_names"] = a.job_names ? boost::json::value(string_array(*a.job_names)) : nullptr;
        o["persistent"] = a.persistent;
        o["required_triggers"] = a.required_triggers;
        out.push_back(std::move(o));
    }
    return out;
}

}  // namespace

boost::json::value plan_to_json(spec::creation_plan const& plan)
{
    boost::json::array batches;
    for (auto const& b : plan.job_batches) {
        boost::json::array names;
        for (auto const j : b.jobs) names.push_back(boost::json::string(plan.jobs[j].name));
        batches.push_back({{"level", b.level}, {"jobs", std::move(names)}});
    }
    return boost::json::object{
        {"workflow", api::workflow_body(plan.workflow)},
        {"files", records_json(plan, "files")},
        {"user_data", records_json(plan, "user_data")},
        {"resource_requirements", records_json(plan, "resource_requirements")},
        {"slurm_schedulers", schedulers_json(plan.slurm_schedulers)},
        {"failure_handlers", records_json(plan, "failure_handlers")},
        {"jobs", jobs_json(plan)},
        {"bulk_jobs_batches", std::move(batches)},
        {"actions", actions_json(plan.actions)},
        {"edges",
         {{"explicit", edge_array(plan.explicit_edges)},
          {"implied", edge_array(plan.implied_edges)},
          {"union_count", union_count(plan)}}},
        {"warnings", string_array(plan.warnings)},
    };
}

void print_plan_summary(std::ostream& out, spec::creation_plan const& plan)
{
    std::size_t copies = 0;
    for (auto const& j : plan.jobs) copies += j.copies;
    out << "workflow \"" << plan.workflow.name << "\" (user " << plan.workflow.user
        << "): " << plan.jobs.size() << " jobs";
    if (copies != plan.jobs.size()) out << " (Torc 0.10 creates " << copies << ")";
    out << ", " << plan.files.size() << " files, " << plan.user_data.size() << " user data, "
        << plan.resource_requirements.size() << " resource requirements, "
        << plan.slurm_schedulers.size() << " Slurm schedulers, " << plan.failure_handlers.size()
        << " failure handlers, " << plan.actions.size() << " actions\n";
    auto const& wf = plan.workflow;
    if (wf.project) out << "project: " << *wf.project << "\n";
    if (wf.metadata) out << "metadata: " << boost::json::serialize(*wf.metadata) << "\n";
    if (wf.env) print_env(out, "env", *wf.env);
    if (wf.execution_config)
        out << "execution_config: " << boost::json::serialize(*wf.execution_config) << "\n";
    out << "edges: " << plan.explicit_edges.size() << " explicit, " << plan.implied_edges.size()
        << " implied, " << union_count(plan) << " in all; " << plan.job_batches.size()
        << " bulk_jobs batches\n\njobs:\n";
    for (auto const& j : plan.jobs) {
        out << "  " << j.name << "\n    command: " << indented(j.command, "             ") << "\n";
        if (j.invocation_script)
            out << "    invocation_script: "
                << indented(*j.invocation_script, "                       ") << "\n";
        print_names(out, "depends on", j.depends_on);
        print_names(out, "reads files", j.input_files);
        print_names(out, "writes files", j.output_files);
        print_names(out, "reads user data", j.input_user_data);
        print_names(out, "writes user data", j.output_user_data);
        if (j.priority != 0) out << "    priority: " << j.priority << "\n";
        print_env(out, "    env", env_object(j.env));
        if (j.stdio)
            out << "    stdio: " << boost::json::serialize(spec::stdio_json(*j.stdio)) << "\n";
    }
    out << "\nedges:\n";
    print_edges(out, "explicit", plan.explicit_edges);
    print_edges(out, "implied, added by the server at initialize_jobs", plan.implied_edges);
    if (plan.warnings.empty()) return;
    out << "\nwarnings:\n";
    for (auto const& w : plan.warnings) out << "  " << indented(w, "    ") << "\n";
}

}  // namespace torcrun::apps
