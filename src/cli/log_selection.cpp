// See log_selection.hpp.
#include "torcrun/cli/log_selection.hpp"

#include "torcrun/cli/command_hints.hpp"
#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <charconv>

namespace torcrun::core {

using detail::cat;

result<named_job> find_job(std::span<named_job const> jobs, std::string_view text,
                           std::int64_t workflow_id)
{
    auto const wf = std::to_string(workflow_id);
    std::int64_t id = 0;
    auto const* end = text.data() + text.size();
    auto const [ptr, ec] = std::from_chars(text.data(), end, id);
    if (!text.empty() && ec == std::errc{} && ptr == end) {
        for (auto const& j : jobs)
            if (j.id == id) return j;
        return error{cat("job ", text, ": workflow ", wf, " has no such job")};
    }
    named_job const* found = nullptr;
    for (auto const& j : jobs)
        if (j.name == text && (!found || j.id < found->id)) found = &j;
    if (found) return *found;
    std::vector<std::string_view> names;
    for (auto const& j : jobs) names.push_back(j.name);
    auto message = cat("job \"", text, "\": workflow ", wf, " has no job of that name");
    if (auto const near = closest_command(text, names))
        message += cat(" (did you mean \"", *near, "\"?)");
    return error{std::move(message)};
}

result<attempt_key> pick_attempt(std::vector<attempt_key> attempts,
                                 std::optional<std::int64_t> wanted, std::string_view job,
                                 std::string_view status, std::optional<std::int64_t> run)
{
    if (attempts.empty())
        return error{cat(job, " has not run (status ", status, "): no logs yet")};
    std::sort(attempts.begin(), attempts.end());
    attempts.erase(std::unique(attempts.begin(), attempts.end()), attempts.end());
    if (run) {
        std::vector<attempt_key> of_run;
        std::string runs;  // attempts are sorted by run: each run once
        for (std::size_t i = 0; i < attempts.size(); ++i) {
            if (attempts[i].run_id == *run) of_run.push_back(attempts[i]);
            if (i == 0 || attempts[i - 1].run_id != attempts[i].run_id)
                runs += cat(runs.empty() ? "" : ", ", std::to_string(attempts[i].run_id));
        }
        if (of_run.empty())
            return error{cat(job, " has no attempt in run ", std::to_string(*run), " (its runs: ",
                             runs, ")")};
        attempts = std::move(of_run);
    }
    if (!wanted) return attempts.back();
    for (auto it = attempts.rbegin(); it != attempts.rend(); ++it)
        if (it->attempt_id == *wanted) return *it;
    std::vector<std::int64_t> numbers;
    for (auto const& a : attempts) numbers.push_back(a.attempt_id);
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    std::string list;
    for (auto const n : numbers) list += cat(list.empty() ? "" : ", ", std::to_string(n));
    return error{cat(job, " has no attempt ", std::to_string(*wanted), " (its attempts: ", list,
                     ")")};
}

}  // namespace torcrun::core
