// Claim selection in three steps, each as Torc's SQL and loop do it: filter, order + LIMIT,
// greedy accumulation. The fit test subtracts instead of adding, so no total can wrap and make
// an oversized claim look small.
#include "torcrun/server/claim_selection.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

namespace torcrun::core {
namespace {

bool fits_alone(claim_candidate const& job, claim_request const& request, bool match_scheduler)
{
    auto const& need = job.need;
    if (need.num_cpus > request.num_cpus || need.memory_bytes > request.memory_bytes ||
        need.num_gpus > request.num_gpus || need.num_nodes > request.num_nodes) {
        return false;
    }
    if (request.time_limit_seconds && job.runtime_seconds > *request.time_limit_seconds) {
        return false;
    }
    if (match_scheduler && job.scheduler_id) {
        return request.scheduler_config_id && *job.scheduler_id == *request.scheduler_config_id;
    }
    return true;
}

// Sort key, compared larger first: priority, then the method's three columns (all zero for
// `none`). Negative runtimes sort with 0; they pass every time limit anyway.
std::array<std::uint64_t, 3> method_key(claim_candidate const& job, jobs_sort_method method)
{
    auto const runtime = static_cast<std::uint64_t>(std::max<std::int64_t>(job.runtime_seconds, 0));
    switch (method) {
    case jobs_sort_method::gpus_runtime_memory:
        return {job.need.num_gpus, runtime, job.need.memory_bytes};
    case jobs_sort_method::gpus_memory_runtime:
        return {job.need.num_gpus, job.need.memory_bytes, runtime};
    case jobs_sort_method::none:
        break;
    }
    return {0, 0, 0};
}

bool claims_before(claim_candidate const& a, claim_candidate const& b, jobs_sort_method method)
{
    if (a.priority != b.priority) return a.priority > b.priority;
    auto const ka = method_key(a, method);
    auto const kb = method_key(b, method);
    if (ka != kb) return ka > kb;
    return a.job_id < b.job_id;
}

std::vector<claim_candidate const*> candidates(std::span<claim_candidate const> ready,
                                               claim_request const& request, bool match_scheduler)
{
    std::vector<claim_candidate const*> rows;
    for (auto const& job : ready) {
        if (fits_alone(job, request, match_scheduler)) rows.push_back(&job);
    }
    return rows;
}

// Running totals; each stays at most the request, so `request - used` never wraps.
struct totals {
    std::uint64_t cpus = 0;
    std::uint64_t memory = 0;
    std::uint64_t gpus = 0;
    std::uint64_t nodes = 0;
};

bool take_if_fits(claim_candidate const& job, claim_request const& request, totals& used)
{
    auto const& need = job.need;
    std::uint64_t const nodes = need.num_nodes > 1 ? need.num_nodes : 0;
    if (need.num_cpus > request.num_cpus - used.cpus ||
        need.memory_bytes > request.memory_bytes - used.memory ||
        need.num_gpus > request.num_gpus - used.gpus || nodes > request.num_nodes - used.nodes) {
        return false;
    }
    used.cpus += need.num_cpus;
    used.memory += need.memory_bytes;
    used.gpus += need.num_gpus;
    used.nodes += nodes;
    return true;
}

}  // namespace

std::string_view to_string(jobs_sort_method m)
{
    switch (m) {
    case jobs_sort_method::gpus_runtime_memory: return "gpus_runtime_memory";
    case jobs_sort_method::gpus_memory_runtime: return "gpus_memory_runtime";
    case jobs_sort_method::none: return "none";
    }
    return "none";
}

result<jobs_sort_method> parse_jobs_sort_method(std::string_view text)
{
    for (auto m : {jobs_sort_method::gpus_runtime_memory, jobs_sort_method::gpus_memory_runtime,
                   jobs_sort_method::none}) {
        if (to_string(m) == text) return m;
    }
    return error{"jobs_sort_method: \"" + std::string(text) +
                 "\" is not one of gpus_runtime_memory, gpus_memory_runtime or none"};
}

std::vector<std::int64_t> select_claim(std::span<claim_candidate const> ready,
                                       claim_request const& request, claim_options const& options)
{
    if (options.limit <= 0) return {};
    auto rows = candidates(ready, request, true);
    if (rows.empty() && !options.strict_scheduler_match) rows = candidates(ready, request, false);

    auto const method = options.sort_method;
    std::sort(rows.begin(), rows.end(),
              [method](auto const* a, auto const* b) { return claims_before(*a, *b, method); });
    if (static_cast<std::uint64_t>(options.limit) < rows.size()) {
        rows.resize(static_cast<std::size_t>(options.limit));
    }

    std::vector<std::int64_t> chosen;
    totals used;
    for (auto const* job : rows) {
        if (take_if_fits(*job, request, used)) chosen.push_back(job->job_id);
    }
    return chosen;
}

std::vector<std::int64_t> select_next_jobs(std::span<next_candidate const> ready,
                                           std::int64_t limit)
{
    if (limit <= 0) return {};
    std::vector<next_candidate> rows(ready.begin(), ready.end());
    std::sort(rows.begin(), rows.end(), [](auto const& a, auto const& b) {
        return std::tie(b.priority, a.job_id) < std::tie(a.priority, b.job_id);
    });
    std::vector<std::int64_t> chosen;
    for (auto const& row : rows) {
        if (static_cast<std::int64_t>(chosen.size()) == limit) break;
        chosen.push_back(row.job_id);
    }
    return chosen;
}

std::uint64_t claim_memory_bytes(double memory_gb)
{
    if (std::isnan(memory_gb) || memory_gb <= 0) return 0;
    double const bytes = std::floor(memory_gb * 1073741824.0);
    if (bytes >= 18446744073709551616.0) return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(bytes);
}

}  // namespace torcrun::core
