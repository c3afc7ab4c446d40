// The submission sequencer: which call comes next, its body from the plan and the ids recorded so
// far, and what each answer must hold. Torc's wire field names and orders (TORC-SPEC §15).
#include "torcrun/api/submission.hpp"

#include <boost/assert.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <utility>
#include <vector>

namespace torcrun::api {

namespace json = boost::json;
namespace spec = core::spec;

namespace {

template <class T>
void put(json::object& o, std::string_view key, std::optional<T> const& value)
{
    if (value) o[key] = *value;
}

// Appended piecewise: `"\"" + std::string(name) + "\""` trips GCC 12's false -Wrestrict.
std::string quoted(std::string_view name)
{
    std::string out;
    out.reserve(name.size() + 2);
    out.append(1, '"').append(name).append(1, '"');
    return out;
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

json::object workflow_body(spec::planned_workflow const& w)
{
    json::object o{{"name", w.name}, {"user", w.user}};
    put(o, "description", w.description);
    o["compute_node_expiration_buffer_seconds"] = w.compute_node_expiration_buffer_seconds;
    o["compute_node_wait_for_new_jobs_seconds"] = w.compute_node_wait_for_new_jobs_seconds;
    o["compute_node_ignore_workflow_completion"] = w.compute_node_ignore_workflow_completion;
    o["compute_node_wait_for_healthy_database_minutes"] =
        w.compute_node_wait_for_healthy_database_minutes;
    o["compute_node_min_time_for_new_jobs_seconds"] = w.compute_node_min_time_for_new_jobs_seconds;
    put(o, "jobs_sort_method", w.jobs_sort_method);
    put(o, "resource_monitor_config", w.resource_monitor_config);
    put(o, "slurm_defaults", w.slurm_defaults);
    o["use_pending_failed"] = w.use_pending_failed;
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
    return o;
}

client_call post(std::string path, json::object const& body, std::string what)
{
    return {"POST", std::move(path), json::serialize(body), std::move(what)};
}

std::optional<std::int64_t> integer_field(json::value const& v, std::string_view key)
{
    auto const* o = v.if_object();
    if (!o) return std::nullopt;
    auto const* field = o->if_contains(key);
    if (!field || !field->is_int64()) return std::nullopt;
    return field->as_int64();
}

core::error answer_error(client_call const& call, std::string_view problem)
{
    return core::error{call.method + " " + call.path + " (" + call.what + "): the answer " +
                       std::string(problem)};
}

}  // namespace

submission::submission(spec::creation_plan plan, bool initialize)
    : plan_(std::move(plan)), initialize_(initialize)
{
}

std::size_t submission::stage_size(stage s) const
{
    switch (s) {
        case stage::workflow: return 1;
        case stage::files: return plan_.files.size();
        case stage::user_data: return plan_.user_data.size();
        case stage::resource_requirements: return plan_.resource_requirements.size();
        case stage::slurm_schedulers: return plan_.slurm_schedulers.size();
        case stage::failure_handlers: return plan_.failure_handlers.size();
        case stage::bulk_jobs: return plan_.job_batches.size();
        case stage::actions: return plan_.actions.size();
        case stage::initialize: return initialize_ ? 1 : 0;
        case stage::done: return 0;
    }
    return 0;
}

std::size_t submission::call_count() const
{
    std::size_t n = 0;
    for (int s = 0; s < static_cast<int>(stage::done); ++s) n += stage_size(static_cast<stage>(s));
    return n;
}

void submission::skip_empty_stages()
{
    while (stage_ != stage::done && index_ >= stage_size(stage_)) {
        stage_ = static_cast<stage>(static_cast<int>(stage_) + 1);
        index_ = 0;
    }
}

std::optional<client_call> submission::next() const
{
    if (stage_ == stage::done) return std::nullopt;
    return build(stage_, index_);
}

client_call submission::build(stage s, std::size_t i) const
{
    std::int64_t const wf = workflow_id_.value_or(0);
    auto const wf_text = std::to_string(wf);
    switch (s) {
        case stage::workflow:
            return post("/workflows", workflow_body(plan_.workflow),
                        "workflow " + quoted(plan_.workflow.name));
        case stage::files: {
            auto const& f = plan_.files[i];
            return post("/files", {{"workflow_id", wf}, {"name", f.name}, {"path", f.path}},
                        "files " + quoted(f.name));
        }
        case stage::user_data: {
            auto const& u = plan_.user_data[i];
            json::object o{{"workflow_id", wf}, {"name", u.name}};
            put(o, "is_ephemeral", u.is_ephemeral);
            put(o, "data", u.data);
            return post("/user_data", o, "user_data " + quoted(u.name));
        }
        case stage::resource_requirements: {
            auto const& r = plan_.resource_requirements[i];
            return post("/resource_requirements",
                        {{"workflow_id", wf},
                         {"name", r.name},
                         {"num_cpus", r.num_cpus},
                         {"num_gpus", r.num_gpus},
                         {"num_nodes", r.num_nodes},
                         {"memory", r.memory},
                         {"runtime", r.runtime}},
                        "resource_requirements " + quoted(r.name));
        }
        case stage::slurm_schedulers: {
            auto const& sched = plan_.slurm_schedulers[i];
            return post("/slurm_schedulers", scheduler_body(wf, sched),
                        "slurm_schedulers " + quoted(sched.name));
        }
        case stage::failure_handlers: {
            auto const& h = plan_.failure_handlers[i];
            return post("/failure_handlers",
                        {{"workflow_id", wf}, {"name", h.name}, {"rules", h.rules}},
                        "failure_handlers " + quoted(h.name));
        }
        case stage::bulk_jobs: return job_batch_call(i);
        case stage::actions: return action_call(i);
        case stage::initialize:
            return {"POST", "/workflows/" + wf_text + "/initialize_jobs", "", "initialize_jobs"};
        case stage::done: break;
    }
    BOOST_ASSERT_MSG(false, "no call after the last one");
    return {};
}

client_call submission::job_batch_call(std::size_t batch_index) const
{
    auto const& batch = plan_.job_batches[batch_index];
    std::int64_t const wf = workflow_id_.value_or(0);
    json::array jobs;
    for (auto const j : batch.jobs) {
        auto const& job = plan_.jobs[j];
        json::object o{{"workflow_id", wf}, {"name", job.name}, {"command", job.command}};
        put(o, "invocation_script", job.invocation_script);
        o["status"] = "uninitialized";
        o["cancel_on_blocking_job_failure"] = job.cancel_on_blocking_job_failure;
        o["supports_termination"] = job.supports_termination;
        put_ids(o, "depends_on_job_ids", ids_[job_ids_of], job.depends_on);
        put_ids(o, "input_file_ids", ids_[file_ids], job.input_files);
        put_ids(o, "output_file_ids", ids_[file_ids], job.output_files);
        put_ids(o, "input_user_data_ids", ids_[user_data_ids], job.input_user_data);
        put_ids(o, "output_user_data_ids", ids_[user_data_ids], job.output_user_data);
        if (job.resource_requirements)
            o["resource_requirements_id"] =
                id_of(ids_[requirement_ids], *job.resource_requirements);
        if (job.scheduler) o["scheduler_id"] = id_of(ids_[scheduler_ids], *job.scheduler);
        if (job.failure_handler)
            o["failure_handler_id"] = id_of(ids_[handler_ids], *job.failure_handler);
        o["attempt_id"] = 1;
        jobs.push_back(std::move(o));
    }
    return post("/bulk_jobs", {{"jobs", std::move(jobs)}},
                "bulk_jobs[" + std::to_string(batch_index) + "] level " +
                    std::to_string(batch.level) + " (" + std::to_string(batch.jobs.size()) +
                    " jobs)");
}

client_call submission::action_call(std::size_t i) const
{
    auto const& a = plan_.actions[i];
    std::int64_t const wf = workflow_id_.value_or(0);
    std::int64_t scheduler_id = 0;
    if (a.scheduler && a.scheduler_type == "slurm")
        scheduler_id = id_of(ids_[scheduler_ids], *a.scheduler);
    json::object o{{"workflow_id", wf},
                   {"trigger_type", a.trigger_type},
                   {"action_type", a.action_type},
                   {"action_config", spec::action_config(a, scheduler_id)}};
    if (a.job_names) {
        json::array ids;
        for (auto const& n : *a.job_names) ids.push_back(id_of(ids_[job_ids_of], n));
        o["job_ids"] = std::move(ids);
    }
    o["persistent"] = a.persistent;
    return post("/workflows/" + std::to_string(wf) + "/actions", o,
                "actions[" + std::to_string(i) + "] " + a.trigger_type + " " + a.action_type);
}

core::result<void> submission::accept(std::string_view body)
{
    auto const call = next();
    BOOST_ASSERT_MSG(call, "accept() after the last call");
    if (!call) return {};
    if (auto ok = record(stage_, index_, body, *call); !ok) return ok;
    ++index_;
    skip_empty_stages();
    return {};
}

core::result<void> submission::record(stage s, std::size_t index, std::string_view body,
                                      client_call const& call)
{
    if (s == stage::initialize || s == stage::actions) return {};
    boost::system::error_code ec;
    auto const answer = json::parse(body, ec);
    if (ec) return answer_error(call, "is not JSON: " + ec.message());
    if (s == stage::bulk_jobs) {
        auto const& batch = plan_.job_batches[index].jobs;
        auto const* o = answer.if_object();
        auto const* jobs = o ? o->if_contains("jobs") : nullptr;
        if (!jobs || !jobs->is_array()) return answer_error(call, "has no \"jobs\" array");
        if (jobs->as_array().size() != batch.size())
            return answer_error(call, "holds " + std::to_string(jobs->as_array().size()) +
                                          " jobs for " + std::to_string(batch.size()) + " sent");
        for (std::size_t k = 0; k < batch.size(); ++k) {
            auto const id = integer_field(jobs->as_array()[k], "id");
            if (!id)
                return answer_error(call,
                                    "has no integer \"id\" in jobs[" + std::to_string(k) + "]");
            ids_[job_ids_of][plan_.jobs[batch[k]].name] = *id;
        }
        return {};
    }
    auto const id = integer_field(answer, "id");
    if (!id) return answer_error(call, "has no integer \"id\"");
    switch (s) {
        case stage::workflow: workflow_id_ = *id; break;
        case stage::files: ids_[file_ids][plan_.files[index].name] = *id; break;
        case stage::user_data: ids_[user_data_ids][plan_.user_data[index].name] = *id; break;
        case stage::resource_requirements:
            ids_[requirement_ids][plan_.resource_requirements[index].name] = *id;
            break;
        case stage::slurm_schedulers:
            ids_[scheduler_ids][plan_.slurm_schedulers[index].name] = *id;
            break;
        case stage::failure_handlers:
            ids_[handler_ids][plan_.failure_handlers[index].name] = *id;
            break;
        default: break;
    }
    return {};
}

}  // namespace torcrun::api
