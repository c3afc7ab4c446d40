// The submission sequencer: which call comes next (stages in Torc's order, empty ones skipped),
// and what each answer must hold for the calls after it. The bodies are in submission_bodies.cpp.
#include "torcrun/spec/submission.hpp"

#include "submission_bodies.hpp"

#include <boost/assert.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <utility>

namespace torcrun::api {

namespace json = boost::json;
namespace spec = core::spec;

namespace {

// Appended piecewise: `"\"" + std::string(name) + "\""` trips GCC 12's false -Wrestrict.
std::string named(std::string_view kind, std::string_view name)
{
    std::string out;
    out.reserve(kind.size() + name.size() + 3);
    out.append(kind).append(" \"").append(name).append(1, '"');
    return out;
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

// What is wrong with an answer, before accept() names the call.
core::error problem(std::string text) { return core::error{std::move(text)}; }

}  // namespace

submission::submission(spec::creation_plan plan, bool initialize, server_dialect const& server)
    : plan_(std::move(plan)),
      initialize_(initialize),
      contract_(server.kind == server_kind::torcrun ? torc_contract::v0_23 : server.contract),
      streamed_(server.kind == server_kind::torcrun)
{
    auto& w = plan_.workflow;
    if (server.kind == server_kind::torcrun && w.default_monitor) {
        w.resource_monitor_config.reset();
        w.default_monitor = false;
    }
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
        case stage::reserve_job_ids: return streamed_ && !plan_.jobs.empty() ? 1 : 0;
        case stage::bulk_jobs: return plan_.job_batches.size();
        case stage::datasets: return plan_.datasets.size();
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
    switch (s) {
        case stage::workflow:
            return post("/workflows", detail::workflow_body(plan_.workflow, contract_),
                        named("workflow", plan_.workflow.name));
        case stage::files:
            return post("/files", detail::file_body(wf, plan_.files[i]),
                        named("files", plan_.files[i].name));
        case stage::user_data:
            return post("/user_data", detail::user_data_body(wf, plan_.user_data[i]),
                        named("user_data", plan_.user_data[i].name));
        case stage::resource_requirements: {
            auto const& r = plan_.resource_requirements[i];
            return post("/resource_requirements", detail::requirements_body(wf, r),
                        named("resource_requirements", r.name));
        }
        case stage::slurm_schedulers: {
            auto const& sched = plan_.slurm_schedulers[i];
            return post("/slurm_schedulers", detail::scheduler_body(wf, sched),
                        named("slurm_schedulers", sched.name));
        }
        case stage::failure_handlers: {
            auto const& h = plan_.failure_handlers[i];
            return post("/failure_handlers", detail::handler_body(wf, h),
                        named("failure_handlers", h.name));
        }
        case stage::reserve_job_ids:
            return {"POST",
                    "/workflows/" + std::to_string(wf) +
                        "/reserve_job_ids?count=" + std::to_string(plan_.jobs.size()),
                    "", "reserve_job_ids (" + std::to_string(plan_.jobs.size()) + " jobs)"};
        case stage::bulk_jobs: return job_batch_call(i);
        case stage::datasets:
            return post("/workflows/" + std::to_string(wf) + "/datasets",
                        detail::dataset_body(plan_.datasets[i], ids_[job_ids_of]),
                        named("datasets", plan_.datasets[i].name));
        case stage::actions: return action_call(i);
        case stage::initialize:
            return {"POST", "/workflows/" + std::to_string(wf) + "/initialize_jobs", "",
                    "initialize_jobs"};
        case stage::done: break;
    }
    BOOST_ASSERT_MSG(false, "no call after the last one");
    return {};
}

client_call submission::job_batch_call(std::size_t batch_index) const
{
    auto const& batch = plan_.job_batches[batch_index];
    detail::job_refs const refs{ids_[file_ids],      ids_[user_data_ids], ids_[requirement_ids],
                                ids_[scheduler_ids], ids_[handler_ids],   ids_[job_ids_of]};
    json::array jobs;
    jobs.reserve(batch.jobs.size());
    for (auto const j : batch.jobs)
        jobs.push_back(detail::job_body(workflow_id_.value_or(0), plan_.jobs[j], refs));
    std::string path = "/bulk_jobs";
    if (streamed_) {
        path = "/workflows/" + std::to_string(workflow_id_.value_or(0)) +
               "/bulk_jobs?first_id=" + std::to_string(batch_first_.at(batch_index));
    }
    return post(std::move(path), {{"jobs", std::move(jobs)}},
                "bulk_jobs[" + std::to_string(batch_index) + "] level " +
                    std::to_string(batch.level) + " (" + std::to_string(batch.jobs.size()) +
                    " jobs)");
}

client_call submission::action_call(std::size_t i) const
{
    auto const& a = plan_.actions[i];
    std::int64_t const wf = workflow_id_.value_or(0);
    return post("/workflows/" + std::to_string(wf) + "/actions",
                detail::action_body(wf, a, ids_[scheduler_ids], ids_[job_ids_of]),
                "actions[" + std::to_string(i) + "] " + a.trigger_type + " " + a.action_type);
}

core::result<void> submission::accept(std::string_view body)
{
    BOOST_ASSERT_MSG(stage_ != stage::done, "accept() after the last call");
    if (stage_ == stage::done) return {};
    // The call is built again only to name it in an error: a job batch's body is the costliest
    // thing the client makes.
    if (auto ok = record(stage_, index_, body); !ok)
        return answer_error(build(stage_, index_), ok.error().message);
    ++index_;
    skip_empty_stages();
    return {};
}

void submission::decline_streaming()
{
    BOOST_ASSERT(stage_ == stage::reserve_job_ids);
    streamed_ = false;  // the reservation's stage is now empty: next() is the first batch
    skip_empty_stages();
}

core::result<void> submission::record_reserved(json::value const& answer)
{
    auto const first = integer_field(answer, "first_id");
    auto const count = integer_field(answer, "count");
    auto const wanted = static_cast<std::int64_t>(plan_.jobs.size());
    if (!first || *first < 1) return problem("has no positive integer \"first_id\"");
    if (count != wanted)
        return problem("reserves " + std::to_string(count.value_or(0)) + " job ids for " +
                       std::to_string(wanted) + " asked");
    // Ids in the order the batches send the jobs: batch k's jobs are consecutive from its first.
    std::int64_t next = *first;
    batch_first_.clear();
    for (auto const& batch : plan_.job_batches) {
        batch_first_.push_back(next);
        for (auto const j : batch.jobs) ids_[job_ids_of][plan_.jobs[j].name] = next++;
    }
    return {};
}

core::result<void> submission::record_jobs(std::size_t batch_index, json::value const& answer)
{
    auto const& batch = plan_.job_batches[batch_index].jobs;
    if (streamed_) {
        auto const first = integer_field(answer, "first_id");
        auto const count = integer_field(answer, "count");
        if (first != batch_first_[batch_index] ||
            count != static_cast<std::int64_t>(batch.size()))
            return problem("does not confirm jobs " + std::to_string(batch_first_[batch_index]) +
                           " and the " + std::to_string(batch.size()) + " after");
        return {};
    }
    auto const* o = answer.if_object();
    auto const* jobs = o ? o->if_contains("jobs") : nullptr;
    if (!jobs || !jobs->is_array()) return problem("has no \"jobs\" array");
    if (jobs->as_array().size() != batch.size())
        return problem("holds " + std::to_string(jobs->as_array().size()) + " jobs for " +
                       std::to_string(batch.size()) + " sent");
    for (std::size_t k = 0; k < batch.size(); ++k) {
        auto const id = integer_field(jobs->as_array()[k], "id");
        if (!id) return problem("has no integer \"id\" in jobs[" + std::to_string(k) + "]");
        ids_[job_ids_of][plan_.jobs[batch[k]].name] = *id;
    }
    return {};
}

core::result<void> submission::record(stage s, std::size_t index, std::string_view body)
{
    if (s == stage::initialize || s == stage::actions || s == stage::datasets) return {};
    boost::system::error_code ec;
    auto const answer = json::parse(body, ec);
    if (ec) return problem("is not JSON: " + ec.message());
    if (s == stage::bulk_jobs) return record_jobs(index, answer);
    if (s == stage::reserve_job_ids) return record_reserved(answer);
    auto const id = integer_field(answer, "id");
    if (!id) return problem("has no integer \"id\"");
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
