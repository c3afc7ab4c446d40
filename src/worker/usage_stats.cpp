// Running peak and time-weighted averages of a job's memory and CPU (see the header for the
// rules). Everything is O(1) per sample: the worker keeps one of these per running job.
#include "torcrun/worker/usage_stats.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

namespace torcrun::core {
namespace {

using detail::cat;

std::string number(double value)
{
    std::array<char, 32> buffer{};
    auto const [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), end);
}

double percent(double cpu_seconds, double seconds) { return cpu_seconds / seconds * 100.0; }

}  // namespace

result<void> usage_stats::check_time(double seconds) const
{
    if (finished_) return error{"usage: the record is already finished"};
    if (summary_.sample_count == 0 && !(seconds > 0))
        return error{cat("usage: ", number(seconds), " s is not after the spawn")};
    if (summary_.sample_count > 0 && !(seconds > last_seconds_))
        return error{cat("usage: ", number(seconds), " s is not after the previous sample at ",
                         number(last_seconds_), " s")};
    return {};
}

result<void> usage_stats::add(usage_sample const& sample)
{
    if (auto ok = check_time(sample.seconds); !ok) return ok;
    if (!(sample.cpu_seconds >= 0))
        return error{
            cat("usage: CPU time ", number(sample.cpu_seconds), " s is not a non-negative number")};
    auto const interval = sample.seconds - last_seconds_;
    auto const cpu = std::max(0.0, sample.cpu_seconds - last_cpu_seconds_);
    summary_.peak_cpu_percent = std::max(summary_.peak_cpu_percent, percent(cpu, interval));
    summary_.peak_memory_bytes = std::max(summary_.peak_memory_bytes, sample.memory_bytes);
    cpu_seconds_total_ += cpu;
    memory_byte_seconds_ += static_cast<double>(sample.memory_bytes) * interval;
    memory_seconds_ += interval;
    last_seconds_ = sample.seconds;
    last_cpu_seconds_ = sample.cpu_seconds;
    ++summary_.sample_count;
    summary_.avg_cpu_percent = percent(cpu_seconds_total_, last_seconds_);
    summary_.avg_memory_bytes =
        static_cast<std::uint64_t>(std::llround(memory_byte_seconds_ / memory_seconds_));
    return {};
}

result<void> usage_stats::finish(exit_usage const& exit)
{
    if (finished_) return error{"usage: the record is already finished"};
    // The exit may come at the very instant of the last sample.
    if (summary_.sample_count > 0 && !(exit.seconds >= last_seconds_))
        return error{cat("usage: the exit at ", number(exit.seconds),
                         " s is before the last sample at ", number(last_seconds_), " s")};
    if (summary_.sample_count == 0 && !(exit.seconds > 0))
        return error{cat("usage: the exit at ", number(exit.seconds), " s is not after the spawn")};
    if (!(exit.cpu_seconds >= 0))
        return error{
            cat("usage: CPU time ", number(exit.cpu_seconds), " s is not a non-negative number")};
    finished_ = true;
    summary_.peak_memory_bytes = std::max(summary_.peak_memory_bytes, exit.max_rss_bytes);
    if (summary_.sample_count == 0) {
        summary_.avg_memory_bytes = exit.max_rss_bytes;
        summary_.peak_cpu_percent = summary_.avg_cpu_percent =
            percent(exit.cpu_seconds, exit.seconds);
        last_seconds_ = exit.seconds;
        return {};
    }
    cpu_seconds_total_ += std::max(0.0, exit.cpu_seconds - last_cpu_seconds_);
    last_seconds_ = exit.seconds;
    summary_.avg_cpu_percent = percent(cpu_seconds_total_, last_seconds_);
    // The whole life's rate is a mean of its intervals' rates, so one interval ran at least at
    // it: when the CPU came in the tail (samples saw none, the exit's exact totals did), the
    // peak is that rate.
    summary_.peak_cpu_percent = std::max(summary_.peak_cpu_percent, summary_.avg_cpu_percent);
    return {};
}

usage_summary usage_stats::summary() const { return summary_; }

}  // namespace torcrun::core
