// Job statuses: the one table of status names, the status sets, and the adapters the wire models
// and the store use (names and integer codes). Every status set is a switch so that a new status
// cannot be added without the compiler pointing at each decision that must consider it.
#include "torcrun/server/job_status.hpp"

#include "torcrun/server/model_schema.hpp"

#include <string>

namespace torcrun::core {
namespace {

constexpr std::array<std::string_view, job_status_count> status_names{
    "uninitialized", "blocked", "ready",    "pending",  "running",        "completed",
    "failed",        "canceled", "terminated", "disabled", "pending_failed",
};

std::string accepted_names()
{
    std::string text;
    for (std::size_t i = 0; i < status_names.size(); ++i) {
        text += i == 0 ? "" : (i + 1 == status_names.size() ? " or " : ", ");
        text += status_names[i];
    }
    return text;
}

}  // namespace

std::array<job_status, job_status_count> const all_job_statuses{
    job_status::uninitialized, job_status::blocked,   job_status::ready,
    job_status::pending,       job_status::running,   job_status::completed,
    job_status::failed,        job_status::canceled,  job_status::terminated,
    job_status::disabled,      job_status::pending_failed,
};

std::string_view to_string(job_status s) { return status_names.at(static_cast<std::size_t>(s)); }

result<job_status> parse_job_status(std::string_view text)
{
    for (std::size_t i = 0; i < status_names.size(); ++i) {
        if (status_names[i] == text) return static_cast<job_status>(i);
    }
    return error{"job status: \"" + std::string(text) + "\" is not one of " + accepted_names()};
}

result<job_status> job_status_from_int(std::int64_t value)
{
    if (value < 0 || value >= static_cast<std::int64_t>(job_status_count)) {
        return error{"job status: " + std::to_string(value) + " is not an integer from 0 to 10"};
    }
    return static_cast<job_status>(value);
}

bool is_terminal_for_complete_job(job_status s)
{
    switch (s) {
    case job_status::completed:
    case job_status::failed:
    case job_status::canceled:
    case job_status::terminated:
    case job_status::pending_failed:
        return true;
    case job_status::uninitialized:
    case job_status::blocked:
    case job_status::ready:
    case job_status::pending:
    case job_status::running:
    case job_status::disabled:
        return false;
    }
    return false;
}

bool counts_as_complete(job_status s)
{
    return satisfies_dependency(s) || s == job_status::disabled;
}

bool satisfies_dependency(job_status s)
{
    switch (s) {
    case job_status::completed:
    case job_status::failed:
    case job_status::canceled:
    case job_status::terminated:
        return true;
    case job_status::uninitialized:
    case job_status::blocked:
    case job_status::ready:
    case job_status::pending:
    case job_status::running:
    case job_status::disabled:
    case job_status::pending_failed:
        return false;
    }
    return false;
}

bool is_blocking_failure(job_status s)
{
    return s == job_status::failed || s == job_status::canceled || s == job_status::terminated;
}

}  // namespace torcrun::core

// Job status names and codes on the wire and in the database: thin adapters over
// core::job_status (docs/TORC-COMPATIBILITY.md §1), which owns the one table of names and integers.
namespace torcrun::api {

std::optional<std::int64_t> job_status_code(std::string_view name)
{
    auto const status = core::parse_job_status(name);
    if (!status) return std::nullopt;
    return core::to_int(*status);
}

std::string_view job_status_name(std::int64_t code)
{
    auto const status = core::job_status_from_int(code);
    if (!status) return {};
    return core::to_string(*status);
}

std::string_view job_status_list()
{
    return "uninitialized, blocked, ready, pending, running, completed, failed, canceled, "
           "terminated, disabled, pending_failed";
}

}  // namespace torcrun::api
