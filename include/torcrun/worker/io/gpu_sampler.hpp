// GPU use of running jobs (direct mode), read through NVML on the job runner's sampler tick. NVML
// calls may block for seconds (nvml_library.hpp), so they run on one thread of this sampler's
// own, never on the reactor: sample() hands the tick's requests over as values and resumes on
// the reactor with the readings, which the pure gpu_usage_stats turns into figures.
//
// The first job that holds a GPU opens the library. No library, no NVML or no GPU: said once
// in the log, and nothing is measured (the figures stay absent; `torcrun jobs` shows `-`).
// A job's processes (for per-process figures: MIG devices, GPUs others use too) are its session
// in /proc, as the /proc sampler sees them.
#pragma once

#include "torcrun/common/io/logger.hpp"
#include "torcrun/slurm/gpu_devices.hpp"
#include "torcrun/worker/gpu_usage.hpp"
#include "torcrun/worker/io/nvml_library.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::io {

class gpu_sampler {
public:
    using clock = std::chrono::steady_clock;

    // `library`: the file to open (nvml_library_path()); `sysfs`: where the GPUs' near CPUs are
    // read (gpu_topology.hpp); `proc_root`: where sessions are read.
    gpu_sampler(logger log, std::string library, std::string sysfs = "/sys",
                std::string proc_root = "/proc");
    ~gpu_sampler();

    void track(std::int64_t job_id, std::vector<std::string> gpu_ids, pid_t session,
               clock::time_point started);
    // Stops tracking; the figures, or none when nothing was read.
    std::optional<core::gpu_usage_summary> finish(std::int64_t job_id);

    // One reading of every tracked job, on the NVML thread; resumes on the caller's executor.
    boost::asio::awaitable<void> sample(clock::time_point now);

    // This machine's GPUs with the CPUs near each, read once on the NVML thread (later calls
    // answer the first reading); empty, with the reason in `note`, without NVML, which is then
    // said (once) as by sample(). The job runner asks at its first GPU job, so that a worker
    // whose GPU jobs all end before the first tick still says it.
    boost::asio::awaitable<core::gpu_inventory> inventory();

    // Ends the NVML thread, after a reading in flight has handed its result to the caller's
    // executor; from then on sample() and inventory() read nothing. The job runner calls it at
    // close(), while its io_context still exists: a reading finished after the io_context is
    // destroyed would post into a scheduler that is gone.
    void stop();
    std::size_t tracked() const { return jobs_.size(); }
    // false once the library could not be opened or found no GPU.
    bool available() const { return !unavailable_; }

private:
    struct tracked_job {
        std::vector<std::string> gpu_ids;
        pid_t session = 0;
        clock::time_point started;
        core::gpu_usage_stats stats;
    };

    struct request {
        std::int64_t job_id;
        std::vector<std::string> gpu_ids;
        pid_t session;
    };
    struct reading {
        std::int64_t job_id;
        core::result<gpu_reading> value;
    };
    struct tick_result {
        std::optional<std::string> unavailable;  // why nothing can be read, once
        std::vector<reading> readings;
    };
    tick_result read_on_thread(std::vector<request> const& requests);
    void mark_unavailable(std::string const& why);  // said once; nothing tracked from then on
    core::gpu_inventory inventory_on_thread();
    std::optional<std::string> open_on_thread();  // why NVML cannot be used; none when open

    logger log_;
    std::string library_path_;
    std::string sysfs_;
    std::string proc_root_;
    std::optional<core::gpu_inventory> inventory_;
    boost::asio::thread_pool thread_{1};
    std::unique_ptr<nvml_library> nvml_;  // touched on thread_ only
    bool unavailable_ = false;
    bool stopped_ = false;
    std::map<std::int64_t, tracked_job> jobs_;
    std::map<std::int64_t, std::string> reported_errors_;  // one log line per job and error
};

}  // namespace torcrun::io
