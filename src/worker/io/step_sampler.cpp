// See step_sampler.hpp.
#include "torcrun/worker/io/step_sampler.hpp"

#include "torcrun/slurm/step_list.hpp"
#include "torcrun/worker/io/slurm_commands.hpp"

#include <algorithm>

namespace torcrun::io {

namespace {

double seconds_between(step_sampler::clock::time_point from, step_sampler::clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}

}  // namespace

step_sampler::step_sampler(launcher& launch, std::string slurm_job_id, core::env_map environment,
                           logger log)
    : launch_(launch),
      slurm_job_id_(std::move(slurm_job_id)),
      environment_(std::move(environment)),
      log_(std::move(log))
{
}

void step_sampler::track(std::int64_t job_id, std::string step_name, clock::time_point started)
{
    steps_.insert_or_assign(job_id,
                            tracked_step{std::move(step_name), std::nullopt, started, core::step_usage{}});
}

boost::asio::awaitable<void> step_sampler::sample()
{
    bool unnamed = std::any_of(steps_.begin(), steps_.end(),
                               [](auto const& s) { return !s.second.id; });
    if (unnamed) {
        auto lines = co_await list_slurm_steps(launch_, slurm_job_id_, environment_);
        if (!lines) {
            log_.write(log_level::debug, "steps", "squeue failed",
                       {{"error", lines.error().message}});
        } else {
            for (auto& [job, step] : steps_)
                if (!step.id) step.id = core::step_id_named(*lines, step.name);
        }
    }
    // Which job each step id is, as asked: a job may end, and its id be claimed again by a new
    // attempt, while sstat runs.
    std::map<std::string, std::pair<std::int64_t, std::string>> asked;
    std::vector<std::string> ids;
    for (auto const& [job, step] : steps_)
        if (step.id) {
            ids.push_back(*step.id);
            asked.emplace(*step.id, std::pair(job, step.name));
        }
    if (ids.empty()) co_return;
    auto readings = co_await read_step_stats(launch_, std::move(ids), environment_);
    auto const now = clock::now();
    if (!readings) {
        log_.write(stats_failure_logged_ ? log_level::debug : log_level::warning, "steps",
                   "sstat gives no usage of the steps: their usage figures stay empty",
                   {{"error", readings.error().message}});
        stats_failure_logged_ = true;
        co_return;
    }
    for (auto const& reading : *readings) {
        auto const which = asked.find(reading.step_id);
        if (which == asked.end()) continue;
        auto const it = steps_.find(which->second.first);
        if (it == steps_.end() || it->second.name != which->second.second) continue;
        it->second.usage.add(seconds_between(it->second.started, now), reading);
    }
}

std::optional<core::usage_sample> step_sampler::latest(std::int64_t job_id) const
{
    if (auto it = steps_.find(job_id); it != steps_.end()) return it->second.usage.latest();
    return std::nullopt;
}

boost::asio::awaitable<step_sampler::finished_step> step_sampler::finish(std::int64_t job_id)
{
    auto node = steps_.extract(job_id);
    if (!node) co_return finished_step{};
    auto& step = node.mapped();
    if (step.usage.readings() == 0 && !accounting_absent_) {
        auto const started = step.started;
        auto accounted = co_await read_step_accounting(launch_, slurm_job_id_, environment_);
        if (!accounted) {
            log_.write(log_level::debug, "steps", "sacct failed",
                       {{"error", accounted.error().message}});
        } else if (!*accounted) {
            // Said once: steps ending together all ask before the first answer comes back.
            if (!accounting_absent_)
                log_.write(log_level::info, "steps",
                           "Slurm keeps no accounting (accounting_storage/none): a step that "
                           "ends before its first sstat reading has no usage figures");
            accounting_absent_ = true;
        } else {
            for (auto const& r : **accounted)
                if (r.name == step.name && r.step_id.find('.') != std::string::npos)
                    step.usage.add(std::max(seconds_between(started, clock::now()), 1e-3), r);
        }
    }
    auto const nodes = step.usage.nodes();
    auto closed = step.usage.finish();
    co_return finished_step{closed.summary, std::move(closed.series), nodes};
}

}  // namespace torcrun::io
