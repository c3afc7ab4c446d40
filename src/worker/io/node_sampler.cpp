// The node sampler (node_sampler.hpp): procfs read into core::node_usage on a timer, and the
// node usage file written once at the end.
#include "torcrun/worker/io/node_sampler.hpp"

#include "torcrun/common/concat.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace torcrun::io {
namespace {

using detail::cat;

core::result<std::string> read_all(std::string const& path)
{
    int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return core::error{cat("cannot read ", path, ": ", std::strerror(errno))};
    std::string text;
    char buffer[8192];
    for (;;) {
        ssize_t const n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int const e = errno;
            ::close(fd);
            return core::error{cat("cannot read ", path, ": ", std::strerror(e))};
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return core::result<std::string>(boost::system::in_place_value, std::move(text));
}

}  // namespace

core::result<core::node_reading> read_node(std::string const& root, double seconds)
{
    auto const stat = read_all(root + "/stat");
    if (!stat) return stat.error();
    auto const cpu = core::parse_cpu_times(*stat);
    if (!cpu) return cpu.error();
    auto const meminfo = read_all(root + "/meminfo");
    if (!meminfo) return meminfo.error();
    auto const memory = core::parse_meminfo(*meminfo);
    if (!memory) return memory.error();
    return core::node_reading{seconds, *cpu, *memory};
}

node_sampler::node_sampler(boost::asio::any_io_executor executor,
                           core::node_monitor_settings settings, std::string proc_root)
    : settings_(settings), root_(std::move(proc_root)), timer_(std::move(executor))
{
}

void node_sampler::start(std::int64_t compute_node_id, std::string hostname, double start_unix)
{
    usage_.emplace(core::node_usage_options{settings_.cpu, settings_.memory,
                                            settings_.time_series});
    series_ = {compute_node_id, std::move(hostname), start_unix, 0, {}};
    started_ = clock::now();
    ++generation_;
    sample();
    arm();
}

void node_sampler::sample()
{
    auto const seconds = std::chrono::duration<double>(clock::now() - started_).count();
    auto reading = read_node(root_, seconds);
    if (!reading) {
        problem_ = reading.error().message;
        return;
    }
    usage_->add(*reading);
}

void node_sampler::arm()
{
    timer_.expires_after(std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(settings_.interval_seconds)));
    // The handler touches `this` only when the wait completed for the current generation: a
    // cancelled or destroyed timer completes with an error first.
    timer_.async_wait([this, gen = generation_](boost::system::error_code ec) {
        if (ec || gen != generation_ || !usage_) return;
        sample();
        arm();
    });
}

std::optional<node_sampler::finished> node_sampler::stop()
{
    if (!usage_) return std::nullopt;
    ++generation_;
    timer_.cancel();
    sample();
    finished out{usage_->summary(), std::move(series_)};
    out.series.total_memory_bytes = usage_->total_memory_bytes();
    out.series.points = usage_->points();
    usage_.reset();
    return out;
}

core::result<std::string> write_node_series(std::string const& output_dir,
                                            core::node_series const& series)
{
    auto const path =
        (std::filesystem::path(output_dir) / core::node_usage_file_name(series.compute_node_id))
            .string();
    auto const temporary = path + ".tmp";
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << core::node_series_json(series) << '\n';
        out.flush();
        if (!out) return core::error{cat("cannot write ", temporary, ": ", std::strerror(errno))};
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
        return core::error{cat("cannot write ", path, ": ", std::strerror(errno))};
    return core::result<std::string>(boost::system::in_place_value, path);
}

}  // namespace torcrun::io
