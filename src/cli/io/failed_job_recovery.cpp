// See failed_job_recovery.hpp.
#include "failed_job_recovery.hpp"

#include "json_fields.hpp"
#include "workflow_reset.hpp"

#include "torcrun/common/units.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <iostream>
#include <vector>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

// The failed and terminated jobs, each with its latest return code and requirement.
core::result<std::vector<std::pair<core::failed_job, json::value>>> failed_jobs(torc_client& client,
                                                                               std::int64_t wf)
{
    auto const w = std::to_string(wf);
    std::vector<json::value> jobs;
    for (auto const* status : {"failed", "terminated"}) {
        auto some = client.list_all("/jobs?workflow_id=" + w + "&status=" + status);
        if (!some) return some.error();
        jobs.insert(jobs.end(), some->begin(), some->end());
    }
    std::vector<std::pair<core::failed_job, json::value>> out;
    if (jobs.empty()) return out;
    auto results = client.list_all("/results?workflow_id=" + w + "&all_runs=true");
    if (!results) return results.error();
    std::map<std::int64_t, std::pair<std::int64_t, int>> latest;  // job -> (result id, rc)
    for (auto const& r : *results) {
        auto const job = integer_of(r, "job_id");
        auto const id = integer_of(r, "id");
        if (!latest.contains(job) || latest[job].first < id)
            latest[job] = {id, static_cast<int>(integer_of(r, "return_code"))};
    }
    auto requirements = client.list_all("/resource_requirements?workflow_id=" + w);
    if (!requirements) return requirements.error();
    std::map<std::int64_t, json::value const*> by_id;
    for (auto const& r : *requirements) by_id[integer_of(r, "id")] = &r;
    for (auto& j : jobs) {
        core::failed_job f;
        f.id = integer_of(j, "id");
        f.name = text_of(field(j, "name"));
        f.return_code = latest.contains(f.id) ? latest[f.id].second : -1;
        if (auto it = by_id.find(integer_of(j, "resource_requirements_id", -1)); it != by_id.end()) {
            auto const& r = *it->second;
            core::requirement_values v;
            v.id = integer_of(r, "id");
            v.name = text_of(field(r, "name"));
            v.num_cpus = integer_of(r, "num_cpus", 1);
            v.num_gpus = integer_of(r, "num_gpus", 0);
            v.num_nodes = integer_of(r, "num_nodes", 1);
            if (auto m = core::parse_memory(text_of(field(r, "memory")))) v.memory_bytes = *m;
            if (auto t = core::parse_duration(text_of(field(r, "runtime")))) v.runtime_seconds = *t;
            f.requirement = v;
        }
        out.emplace_back(std::move(f), std::move(j));
    }
    return out;
}

}  // namespace

core::result<std::size_t> recover_failed(torc_client& client, std::int64_t wf,
                                         core::recovery_policy const& policy,
                                         std::string const& prefix, recovery_memory& memory)
{
    auto failed = failed_jobs(client, wf);
    if (!failed) return failed.error();
    std::vector<core::failed_job> jobs;
    for (auto const& f : *failed) jobs.push_back(f.first);
    auto const d = core::decide_recovery(jobs, policy, memory.runs_again);
    for (auto const& line : d.left)
        if (memory.said.insert(line).second) std::cerr << prefix << ": recover: " << line << "\n";
    if (d.retry.empty()) return std::size_t{0};
    reset_request request;
    request.jobs = reset_request::which::named;
    for (auto const& r : d.retry) request.job_ids.push_back(r.job_id);
    auto reset = reset_for_rerun(client, wf, request);
    if (!reset) return core::error{"recover: " + reset.error().message};
    for (auto const& r : d.retry) {
        ++memory.runs_again[r.job_id];
        std::cerr << prefix << ": recover: " << r.line << "\n";
        if (!r.new_requirement) continue;
        auto const& n = *r.new_requirement;
        json::object body{{"workflow_id", wf},         {"name", n.name},
                          {"num_cpus", n.num_cpus},    {"num_gpus", n.num_gpus},
                          {"num_nodes", n.num_nodes}};
        if (n.memory_bytes) body["memory"] = core::format_memory(n.memory_bytes);
        if (n.runtime_seconds > 0) body["runtime"] = core::format_duration(n.runtime_seconds);
        auto made = client.call("POST", "/resource_requirements", json::serialize(body));
        if (!made) return core::error{"recover: " + made.error().message};
        auto const& job = std::find_if(failed->begin(), failed->end(), [&](auto const& f) {
                              return f.first.id == r.job_id;
                          })->second;
        json::object update{{"workflow_id", wf},
                            {"name", text_of(field(job, "name"))},
                            {"command", text_of(field(job, "command"))},
                            {"resource_requirements_id", integer_of(*made, "id")}};
        auto const path = "/jobs/" + std::to_string(r.job_id);
        if (auto put = client.call("PUT", path, json::serialize(update)); !put)
            return core::error{"recover: " + put.error().message};
    }
    // The pass in one line (Torc's "Applied fixes: M OOM, K timeout"), after the jobs' own.
    auto const count = [&](core::failure_kind k) {
        return std::ranges::count_if(d.retry, [k](auto const& r) { return r.kind == k; });
    };
    std::cerr << prefix << ": recover: " << d.retry.size() << " job(s) run again ("
              << count(core::failure_kind::out_of_memory) << " out of memory, "
              << count(core::failure_kind::timeout) << " out of time, "
              << count(core::failure_kind::unknown) << " unchanged); watching on\n";
    return d.retry.size();
}

}  // namespace torcrun::apps
