// Newer Torc's datasets in a spec: every name a job's `input_datasets` / `output_datasets` (or a
// `${datasets.*}` placeholder) gives must be a `datasets` entry, and the creation plan holds each
// dataset with the jobs that write it (producers) and read it (consumers), by job name.
#include "spec_expand.hpp"

#include "message_text.hpp"
#include "torcrun/spec/creation_plan.hpp"

#include <algorithm>

namespace torcrun::core::spec::detail {

result<void> check_dataset_names(std::vector<expanded_job> const& jobs, workflow_spec const& spec)
{
    auto const known = [&](std::string const& name) {
        return std::any_of(spec.datasets.begin(), spec.datasets.end(),
                           [&](dataset_spec const& d) { return d.name == name; });
    };
    for (auto const& j : jobs) {
        auto const& t = spec.jobs[j.source];
        for (auto const* field : {"input_datasets", "output_datasets"}) {
            auto const& list =
                std::string_view(field) == "input_datasets" ? j.input_datasets : j.output_datasets;
            for (auto const& name : list) {
                if (known(name)) continue;
                return error{concat({t.where, ": jobs ", written_and_expanded(t.name, j.name),
                                     ": ", field, " ", quoted(name),
                                     " names no dataset (list it under \"datasets\")"})};
            }
            for (auto const& name : list) {
                if (std::string_view(field) == "input_datasets" &&
                    std::find(j.output_datasets.begin(), j.output_datasets.end(), name) !=
                        j.output_datasets.end())
                    return error{concat({t.where, ": jobs ", written_and_expanded(t.name, j.name),
                                         ": dataset ", quoted(name),
                                         " is both an input and an output of the job, which "
                                         "would wait for itself"})};
            }
        }
    }
    return {};
}

}  // namespace torcrun::core::spec::detail

namespace torcrun::core::spec {

std::vector<planned_dataset> plan_datasets(workflow_spec const& spec,
                                           std::vector<expanded_job> const& jobs)
{
    std::vector<planned_dataset> out;
    for (auto const& d : spec.datasets) {
        planned_dataset p{d.name, d.path, d.description, d.hash_mode, {}, {}};
        for (auto const& j : jobs) {
            if (std::find(j.output_datasets.begin(), j.output_datasets.end(), d.name) !=
                j.output_datasets.end())
                p.producers.push_back(j.name);
            if (std::find(j.input_datasets.begin(), j.input_datasets.end(), d.name) !=
                j.input_datasets.end())
                p.consumers.push_back(j.name);
        }
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace torcrun::core::spec
