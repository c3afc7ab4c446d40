// See file_check.hpp.
#include "torcrun/cli/file_check.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <cstddef>

namespace torcrun::core {

namespace {

constexpr std::size_t files_listed = 20;
constexpr std::size_t jobs_listed = 5;

std::string some_jobs(std::vector<std::string> const& jobs)
{
    std::vector<std::string> shown(jobs.begin(),
                                   jobs.begin() + static_cast<std::ptrdiff_t>(
                                                      std::min(jobs.size(), jobs_listed)));
    auto out = join(shown, ", ");
    if (jobs.size() > jobs_listed)
        out += detail::cat(", ... (", std::to_string(jobs.size()), " jobs)");
    return out;
}

struct found_file {
    spec::file_use const* use;
    std::string problem;
};

// "  PATH (file NAME), VERB JOBS[: cannot be looked at: PROBLEM]", at most files_listed of them.
std::vector<std::string> file_lines(std::vector<found_file> const& files, std::string_view verb)
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < files.size() && i < files_listed; ++i) {
        auto const& f = files[i];
        auto line = detail::cat("  ", f.use->path, " (file ", f.use->name, "), ", verb, " ",
                                some_jobs(f.use->jobs));
        if (!f.problem.empty()) line += detail::cat(": cannot be looked at: ", f.problem);
        out.push_back(std::move(line));
    }
    if (files.size() > files_listed)
        out.push_back(
            detail::cat("  ... and ", std::to_string(files.size() - files_listed), " more"));
    return out;
}

std::string files_count(std::size_t n, std::string_view what)
{
    return detail::cat(std::to_string(n), " ", what, n == 1 ? " file" : " files");
}

}  // namespace

file_check check_files(spec::workflow_file_uses const& uses,
                       std::function<path_state(std::string const&)> const& look,
                       file_check_options const& options)
{
    std::vector<found_file> missing;
    for (auto const& use : uses.required_inputs) {
        auto state = look(use.path);
        if (!state.exists) missing.push_back({&use, std::move(state.problem)});
    }
    std::vector<found_file> existing;
    if (options.warn_existing_outputs) {
        for (auto const& use : uses.outputs) {
            if (look(use.path).exists) existing.push_back({&use, {}});
        }
    }
    file_check out;
    if (!missing.empty()) {
        auto const head = detail::cat(files_count(missing.size(), "required input"),
                                      missing.size() == 1 ? " does" : " do",
                                      " not exist (read by a job, written by none)");
        auto lines = file_lines(missing, "read by");
        if (options.ignore_missing) {
            out.warnings.push_back(
                detail::cat(head, "; starting anyway (", options.override_flag, "):"));
            out.warnings.insert(out.warnings.end(), lines.begin(), lines.end());
        } else {
            out.refuse = true;
            out.errors.push_back(head + ":");
            out.errors.insert(out.errors.end(), lines.begin(), lines.end());
            out.errors.push_back(detail::cat(
                "nothing was started: create ", missing.size() == 1 ? "it" : "them",
                " or correct the spec's paths, or pass ", options.override_flag,
                " to start anyway"));
        }
    }
    if (!existing.empty()) {
        bool const one = existing.size() == 1;
        out.warnings.push_back(detail::cat(
            files_count(existing.size(), "output"), one ? " exists" : " exist",
            " already; torcrun leaves ", one ? "it as it is" : "them as they are",
            " and the jobs may write over ", one ? "it:" : "them:"));
        auto lines = file_lines(existing, "written by");
        out.warnings.insert(out.warnings.end(), lines.begin(), lines.end());
    }
    return out;
}

}  // namespace torcrun::core
