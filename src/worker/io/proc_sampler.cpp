// The /proc side of resource sampling: reading every /proc/<pid>/stat once per sample, and the
// per-job records fed from those scans. Parsing and arithmetic are in core (proc_stat,
// usage_stats).
#include "torcrun/worker/io/proc_sampler.hpp"


#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <string_view>

namespace torcrun::io {


namespace {

bool all_digits(char const* name)
{
    if (*name == '\0') return false;
    for (; *name; ++name)
        if (*name < '0' || *name > '9') return false;
    return true;
}

double seconds_between(proc_sampler::clock::time_point from, proc_sampler::clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}

}  // namespace

std::vector<core::proc_stat> read_process_table(std::string const& root)
{
    std::vector<core::proc_stat> table;
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(root.c_str()), ::closedir);
    if (!dir) return table;
    // A stat line is at most about 1 KiB (a 16-byte name and 52 numbers); procfs hands it over
    // in one read.
    std::array<char, 4096> buffer{};
    std::string path;
    while (auto const* entry = ::readdir(dir.get())) {
        if (!all_digits(entry->d_name)) continue;
        path.assign(entry->d_name).append("/stat");
        int const fd = ::openat(::dirfd(dir.get()), path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n;
        while ((n = ::read(fd, buffer.data(), buffer.size())) < 0 && errno == EINTR) {
        }
        ::close(fd);
        if (n <= 0) continue;
        auto parsed = core::parse_proc_stat(std::string_view(buffer.data(), n));
        // A line the parser rejects is not a process this kernel writes; skip rather than fail
        // every other job's sample.
        if (parsed) table.push_back(std::move(*parsed));
    }
    return table;
}

proc_sampler::proc_sampler(std::string proc_root)
    : root_(std::move(proc_root)),
      seconds_per_tick_(1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK))),
      page_bytes_(static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)))
{
}

void proc_sampler::track(pid_t session, clock::time_point started)
{
    jobs_.insert_or_assign(session, tracked_job{started, {}, core::usage_series{}, std::nullopt});
}

proc_sampler::finished_usage proc_sampler::finish(pid_t session, exit_report const& exit)
{
    auto node = jobs_.extract(session);
    auto stats = node ? std::move(node.mapped().stats) : core::usage_stats{};
    auto const started = node ? node.mapped().started : exit.started;
    // A sampled job's series ends at its exit: the last stretch's CPU from the exit's total
    // (never below the last sample's), its memory as last seen; without it a chart would drop
    // to nothing after the last sample.
    if (node && node.mapped().latest) {
        auto const& last = *node.mapped().latest;
        node.mapped().series.add({seconds_between(started, exit.ended), last.memory_bytes,
                                  std::max(exit.cpu_seconds, last.cpu_seconds)});
    }
    auto series = node ? node.mapped().series.points() : std::vector<core::usage_point>{};
    // Rejected only for an exit stamped before the last sample; the samples then stand alone.
    [[maybe_unused]] auto const finished = stats.finish(core::exit_usage{
        seconds_between(started, exit.ended), exit.cpu_seconds, exit.max_rss_bytes});
    return {stats.summary(), std::move(series)};
}

void proc_sampler::sample(clock::time_point now)
{
    if (jobs_.empty()) return;
    auto const table = read_process_table(root_);
    std::vector<int> sessions;
    for (auto const& [session, ignored] : jobs_) sessions.push_back(session);
    for (auto const& [session, usage] : core::usage_by_session(table, sessions)) {
        if (usage.processes == 0) continue;
        auto& tracked = jobs_.at(session);
        core::usage_sample const next{seconds_between(tracked.started, now),
                                      usage.rss_pages * page_bytes_,
                                      static_cast<double>(usage.cpu_ticks) * seconds_per_tick_};
        // Two samples at one instant: the second is dropped.
        if (tracked.stats.add(next)) {
            tracked.latest = next;
            tracked.series.add(next);
        }
    }
}

std::optional<core::usage_summary> proc_sampler::summary(pid_t session) const
{
    if (auto it = jobs_.find(session); it != jobs_.end()) return it->second.stats.summary();
    return std::nullopt;
}

std::optional<core::usage_sample> proc_sampler::latest(pid_t session) const
{
    if (auto it = jobs_.find(session); it != jobs_.end()) return it->second.latest;
    return std::nullopt;
}

}  // namespace torcrun::io
