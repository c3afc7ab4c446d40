// See step_usage.hpp.
#include "torcrun/worker/step_usage.hpp"

#include <algorithm>

namespace torcrun::core {

step_usage::step_usage(double cpu_window_seconds) : window_(cpu_window_seconds) {}

void step_usage::add(double seconds, step_reading const& reading)
{
    if (!(seconds > (latest_ ? latest_->seconds : 0.0))) return;
    if (!reading.nodes.empty()) nodes_ = reading.nodes;
    max_rss_ = std::max(max_rss_, reading.max_rss_bytes.value_or(0));
    // Without a current figure the step's peak so far is the best memory there is.
    auto const memory = reading.rss_bytes.value_or(reading.max_rss_bytes.value_or(0));
    // Without a CPU figure the CPU is as last read (a reading never takes CPU back).
    auto const last_cpu = latest_ ? latest_->cpu_seconds : 0.0;
    auto const cpu = std::max(last_cpu, reading.cpu_seconds.value_or(last_cpu));
    latest_ = usage_sample{seconds, memory, cpu};
    ++readings_;
    memory_since_fed_ = std::max(memory_since_fed_, memory);
    bool const first = stats_.summary().sample_count == 0;
    if (!first && seconds - fed_seconds_ < window_) return;
    usage_sample const sample{seconds, memory_since_fed_, cpu};
    if (stats_.add(sample)) {
        series_.add(sample);
        fed_seconds_ = seconds;
        memory_since_fed_ = 0;
    }
}

std::optional<usage_sample> step_usage::latest() const { return latest_; }

step_usage::finished step_usage::finish()
{
    if (!latest_) return {std::nullopt, {}};
    // The readings after the last sample close the record, as the last stretch of the series.
    auto const peak_memory = std::max(max_rss_, memory_since_fed_);
    if (latest_->seconds > fed_seconds_)
        series_.add({latest_->seconds, memory_since_fed_, latest_->cpu_seconds});
    [[maybe_unused]] auto const closed =
        stats_.finish(exit_usage{latest_->seconds, latest_->cpu_seconds, peak_memory});
    return {stats_.summary(), series_.points()};
}

}  // namespace torcrun::core
