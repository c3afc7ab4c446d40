// Request bodies of `torcrun submit`, as Torc 0.10's `workflows create` sends them
// (docs/TORC-COMPATIBILITY.md §4.9, §4.3), except the nulls its contract does not allow
// (submission.hpp).
#include "submission_bodies.hpp"

#include <boost/assert.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace torcrun::api::detail {

namespace json = boost::json;

namespace {

template <class T>
void put(json::object& o, std::string_view key, std::optional<T> const& value)
{
    if (value) o[key] = *value;
}

std::int64_t id_of(name_ids const& ids, std::string_view name)
{
    auto const it = ids.find(name);
    BOOST_ASSERT_MSG(it != ids.end(), "the plan names a record that was not created");
    return it == ids.end() ? 0 : it->second;
}

// Empty lists are left out, as Torc's client does.
void put_ids(json::object& o, std::string_view key, name_ids const& ids,
             std::vector<std::string> const& names)
{
    if (names.empty()) return;
    json::array out;
    for (auto const& n : names) out.push_back(id_of(ids, n));
    o[key] = std::move(out);
}

}  // namespace

}  // namespace torcrun::api::detail

namespace torcrun::api {

namespace {

// A configuration field held as JSON text: the text (v0.10) or the object it holds (0.23).
void put_config(boost::json::object& o, std::string_view key, std::optional<std::string> const& text,
                torc_contract contract)
{
    if (!text) return;
    if (contract == torc_contract::v0_10) {
        o[key] = *text;
        return;
    }
    boost::system::error_code ec;
    auto value = boost::json::parse(*text, ec);
    BOOST_ASSERT_MSG(!ec, "the plan holds configuration text that is not JSON");
    o[key] = ec ? boost::json::value(*text) : std::move(value);
}

}  // namespace

boost::json::object workflow_body(core::spec::planned_workflow const& w, torc_contract contract)
{
    boost::json::object o{{"name", w.name}, {"user", w.user}};
    detail::put(o, "description", w.description);
    o["compute_node_expiration_buffer_seconds"] = w.compute_node_expiration_buffer_seconds;
    o["compute_node_wait_for_new_jobs_seconds"] = w.compute_node_wait_for_new_jobs_seconds;
    o["compute_node_ignore_workflow_completion"] = w.compute_node_ignore_workflow_completion;
    o["compute_node_wait_for_healthy_database_minutes"] =
        w.compute_node_wait_for_healthy_database_minutes;
    o["compute_node_min_time_for_new_jobs_seconds"] = w.compute_node_min_time_for_new_jobs_seconds;
    detail::put(o, "jobs_sort_method", w.jobs_sort_method);
    put_config(o, "resource_monitor_config", w.resource_monitor_config, contract);
    put_config(o, "slurm_defaults", w.slurm_defaults, contract);
    o["use_pending_failed"] = w.use_pending_failed;
    if (w.enable_ro_crate) o["enable_ro_crate"] = true;
    detail::put(o, "project", w.project);
    detail::put(o, "metadata", w.metadata);
    detail::put(o, "env", w.env);
    detail::put(o, "execution_config", w.execution_config);
    if (w.dynamic_jobs) {
        boost::json::object dynamic;
        if (w.dynamic_jobs->max_iterations)
            dynamic["max_iterations"] = *w.dynamic_jobs->max_iterations;
        o["dynamic_jobs"] = std::move(dynamic);
    }
    // 0.23: the server shares the workflow with these groups as it creates it, or creates nothing.
    if (!w.access_groups.empty()) {
        boost::json::array groups;
        for (auto const& g : w.access_groups) groups.emplace_back(g);
        o["access_groups"] = std::move(groups);
    }
    return o;
}

}  // namespace torcrun::api

namespace torcrun::api::detail {

json::object file_body(std::int64_t wf, spec::expanded_file const& f)
{
    json::object o{{"workflow_id", wf}, {"name", f.name}, {"path", f.path}};
    if (f.mtime) o["st_mtime"] = *f.mtime;
    return o;
}

json::object user_data_body(std::int64_t wf, spec::expanded_user_data const& u)
{
    json::object o{{"workflow_id", wf}, {"name", u.name}};
    put(o, "is_ephemeral", u.is_ephemeral);
    put(o, "data", u.data);
    return o;
}

json::object requirements_body(std::int64_t wf, spec::resource_requirements_spec const& r)
{
    json::object o{{"workflow_id", wf},      {"name", r.name},           {"num_cpus", r.num_cpus},
                   {"num_gpus", r.num_gpus}, {"num_nodes", r.num_nodes}, {"memory", r.memory},
                   {"runtime", r.runtime}};
    if (r.tasks_per_node) o["tasks_per_node"] = *r.tasks_per_node;
    return o;
}

json::object scheduler_body(std::int64_t wf, spec::slurm_scheduler_spec const& s)
{
    json::object o{{"workflow_id", wf},
                   {"name", s.name},
                   {"account", s.account},
                   {"nodes", s.nodes},
                   {"walltime", s.walltime}};
    put(o, "partition", s.partition);
    put(o, "mem", s.mem);
    put(o, "gres", s.gres);
    put(o, "qos", s.qos);
    put(o, "tmp", s.tmp);
    put(o, "extra", s.extra);
    put(o, "ntasks_per_node", s.ntasks_per_node);
    if (s.serialize_allocations) o["serialize_allocations"] = true;
    return o;
}

json::object handler_body(std::int64_t wf, spec::planned_failure_handler const& h)
{
    return {{"workflow_id", wf}, {"name", h.name}, {"rules", h.rules}};
}

json::object job_body(std::int64_t wf, spec::expanded_job const& job, job_refs const& ids)
{
    json::object o{{"workflow_id", wf}, {"name", job.name}, {"command", job.command}};
    put(o, "invocation_script", job.invocation_script);
    o["status"] = "uninitialized";
    o["cancel_on_blocking_job_failure"] = job.cancel_on_blocking_job_failure;
    o["supports_termination"] = job.supports_termination;
    put_ids(o, "depends_on_job_ids", ids.jobs, job.depends_on);
    put_ids(o, "input_file_ids", ids.files, job.input_files);
    put_ids(o, "output_file_ids", ids.files, job.output_files);
    put_ids(o, "input_user_data_ids", ids.user_data, job.input_user_data);
    put_ids(o, "output_user_data_ids", ids.user_data, job.output_user_data);
    if (job.resource_requirements)
        o["resource_requirements_id"] = id_of(ids.requirements, *job.resource_requirements);
    if (job.scheduler) o["scheduler_id"] = id_of(ids.schedulers, *job.scheduler);
    if (job.failure_handler) o["failure_handler_id"] = id_of(ids.handlers, *job.failure_handler);
    o["attempt_id"] = 1;
    if (!job.env.empty()) {
        json::object env;
        for (auto const& [name, value] : job.env) env[name] = value;
        o["env"] = std::move(env);
    }
    if (job.priority != 0) o["priority"] = job.priority;
    put(o, "label", job.label);  // torcrun extension: a Torc server ignores it
    return o;
}

json::object action_body(std::int64_t wf, spec::planned_action const& a, name_ids const& schedulers,
                         name_ids const& jobs)
{
    std::int64_t scheduler_id = 0;
    if (a.scheduler && a.scheduler_type == "slurm") scheduler_id = id_of(schedulers, *a.scheduler);
    json::object o{{"workflow_id", wf},
                   {"trigger_type", a.trigger_type},
                   {"action_type", a.action_type},
                   {"action_config", spec::action_config(a, scheduler_id)}};
    if (a.job_names) {
        json::array ids;
        for (auto const& n : *a.job_names) ids.push_back(id_of(jobs, n));
        o["job_ids"] = std::move(ids);
    }
    o["persistent"] = a.persistent;
    return o;
}

}  // namespace torcrun::api::detail

namespace torcrun::api::detail {

// POST /workflows/{id}/datasets (a torcrun server's): the dataset and its jobs by id; the lists
// are always sent, empty or not, since the server replaces the dataset's links with them.
json::object dataset_body(spec::planned_dataset const& d, name_ids const& jobs)
{
    json::object o{{"name", d.name}, {"path", d.path}, {"hash_mode", d.hash_mode}};
    if (d.description) o["description"] = *d.description;
    json::array producers;
    for (auto const& n : d.producers) producers.push_back(id_of(jobs, n));
    json::array consumers;
    for (auto const& n : d.consumers) consumers.push_back(id_of(jobs, n));
    o["producer_job_ids"] = std::move(producers);
    o["consumer_job_ids"] = std::move(consumers);
    return o;
}

}  // namespace torcrun::api::detail
