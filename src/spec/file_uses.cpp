#include "torcrun/spec/file_uses.hpp"

#include <cstddef>
#include <unordered_map>

namespace torcrun::core::spec {

namespace {

// The jobs naming each file in `list_of(job)`, by file name; each job once.
template <class List>
std::unordered_map<std::string, std::vector<std::string>> jobs_by_file(creation_plan const& plan,
                                                                       List list_of)
{
    std::unordered_map<std::string, std::vector<std::string>> out;
    for (auto const& job : plan.jobs) {
        for (auto const& file : list_of(job)) {
            auto& jobs = out[file];
            if (jobs.empty() || jobs.back() != job.name) jobs.push_back(job.name);
        }
    }
    return out;
}

}  // namespace

workflow_file_uses file_uses(creation_plan const& plan)
{
    auto const readers =
        jobs_by_file(plan, [](expanded_job const& j) -> auto const& { return j.input_files; });
    auto const writers =
        jobs_by_file(plan, [](expanded_job const& j) -> auto const& { return j.output_files; });
    workflow_file_uses out;
    for (auto const& file : plan.files) {
        if (auto const w = writers.find(file.name); w != writers.end()) {
            out.outputs.push_back({file.name, file.path, w->second});
        } else if (auto const r = readers.find(file.name); r != readers.end()) {
            out.required_inputs.push_back({file.name, file.path, r->second});
        }
    }
    return out;
}

}  // namespace torcrun::core::spec
