// The merge of same-named expansions of one job template (docs/TORC-COMPATIBILITY.md §4.10 item 6):
// where Torc 0.10 creates N jobs with one name (and resolves every reference to the last), torcrun
// creates one job that has the union of their dependencies, files and user data. Expansions that
// would run different commands cannot be one job, so that is an error.
#include "spec_expand.hpp"

#include "json_text.hpp"
#include "message_text.hpp"

#include <array>
#include <unordered_map>
#include <unordered_set>

namespace torcrun::core::spec::detail {

namespace {

std::string prefix_of(job_instance const& i)
{
    return instance_prefix(i.job.where, "jobs", i.source, i.written, i.job.name);
}

// The names already in a merged job's five lists, so a fan-in of many copies stays linear.
using seen_names = std::array<std::unordered_set<std::string>, 5>;

std::array<std::vector<std::string>*, 5> lists_of(expanded_job& j)
{
    return {&j.depends_on, &j.input_files, &j.output_files, &j.input_user_data,
            &j.output_user_data};
}

std::array<std::vector<std::string> const*, 5> lists_of(job_spec const& j)
{
    return {&j.depends_on, &j.input_files, &j.output_files, &j.input_user_data,
            &j.output_user_data};
}

result<void> check_same(std::optional<std::string> const& a, std::optional<std::string> const& b,
                        std::string_view field, job_instance const& copy)
{
    if (a == b) return {};
    auto const shown = [](std::optional<std::string> const& v) {
        return v ? describe_value(boost::json::value(*v)) : std::string("nothing");
    };
    return error{concat({prefix_of(copy), "expansions named ", quoted(copy.job.name), " differ in ",
                         field, " (", shown(a), " and ", shown(b),
                         "); torcrun makes one job per name, so they must agree"})};
}

expanded_job first_copy(job_instance&& i)
{
    auto& j = i.job;
    return {std::move(j.name),
            std::move(j.command),
            std::move(j.invocation_script),
            std::move(j.resource_requirements),
            std::move(j.scheduler),
            std::move(j.failure_handler),
            j.cancel_on_blocking_job_failure,
            j.supports_termination,
            std::move(j.depends_on),
            std::move(j.input_files),
            std::move(j.output_files),
            std::move(j.input_user_data),
            std::move(j.output_user_data),
            i.source,
            1};
}

result<void> merge_copy(expanded_job& job, seen_names& seen, job_instance const& copy)
{
    auto const& j = copy.job;
    for (auto const& same :
         {check_same(job.command, j.command, "command", copy),
          check_same(job.invocation_script, j.invocation_script, "invocation_script", copy),
          check_same(job.resource_requirements, j.resource_requirements, "resource_requirements",
                     copy),
          check_same(job.scheduler, j.scheduler, "scheduler", copy)})
        if (!same) return same;
    auto const to = lists_of(job);
    auto const from = lists_of(j);
    for (std::size_t k = 0; k < to.size(); ++k) {
        if (job.copies == 1) seen[k].insert(to[k]->begin(), to[k]->end());
        for (auto const& name : *from[k])
            if (seen[k].insert(name).second) to[k]->push_back(name);
    }
    ++job.copies;
    return {};
}

// One warning per template whose expansions share names (§4.10 item 6).
void warn_merged(std::vector<expanded_job> const& jobs, workflow_spec const& spec,
                 warning_list& warnings)
{
    std::vector<std::vector<expanded_job const*>> shared(spec.jobs.size());
    std::vector<std::size_t> expansions(spec.jobs.size(), 0);
    for (auto const& job : jobs) {
        if (job.copies > 1) shared[job.source].push_back(&job);
        expansions[job.source] += job.copies;
    }
    for (std::size_t t = 0; t < shared.size(); ++t) {
        if (shared[t].empty()) continue;
        auto const& first = *shared[t].front();
        std::string const copies = std::to_string(first.copies);
        std::string const label = concat({entry_label("jobs", t, spec.jobs[t].name), ": "});
        if (shared[t].size() == 1 && expansions[t] == first.copies) {
            warnings.add(concat({label, copies, " expansions share the name ", quoted(first.name),
                                 "; torcrun creates one job with all their dependencies, files "
                                 "and user data (Torc 0.10 creates ",
                                 copies, " copies)"}));
            continue;
        }
        warnings.add(
            concat({label, std::to_string(shared[t].size()),
                    " names are shared by several expansions, such as ", quoted(first.name),
                    "; torcrun creates one job per name with all "
                    "their dependencies, files and user data (Torc 0.10 creates ",
                    copies, " copies of ", quoted(first.name), ")"}));
    }
}

}  // namespace

result<std::vector<expanded_job>> merge_by_name(std::vector<job_instance> instances,
                                                workflow_spec const& spec, warning_list& warnings)
{
    std::vector<expanded_job> out;
    std::unordered_map<std::string, std::size_t> index;
    std::unordered_map<std::size_t, seen_names> seen;  // merged jobs only
    for (auto& i : instances) {
        auto const it = index.find(i.job.name);
        if (it == index.end()) {
            index.emplace(i.job.name, out.size());
            out.push_back(first_copy(std::move(i)));
        } else if (auto merged = merge_copy(out[it->second], seen[it->second], i); !merged) {
            return merged.error();
        }
    }
    warn_merged(out, spec, warnings);
    return out;
}

}  // namespace torcrun::core::spec::detail
