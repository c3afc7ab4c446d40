// The GPU sampler's two sides: the reactor keeps the jobs and their figures, the NVML thread
// opens the library once and reads. What crosses between them is copied.
#include "torcrun/worker/io/gpu_sampler.hpp"

#include "torcrun/worker/io/gpu_topology.hpp"
#include "torcrun/worker/io/proc_sampler.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <set>

namespace torcrun::io {

namespace net = boost::asio;

gpu_sampler::gpu_sampler(logger log, std::string library, std::string sysfs, std::string proc_root)
    : log_(std::move(log)), library_path_(std::move(library)), sysfs_(std::move(sysfs)),
      proc_root_(std::move(proc_root))
{
}

gpu_sampler::~gpu_sampler()
{
    thread_.join();
    nvml_.reset();
}

void gpu_sampler::stop()
{
    stopped_ = true;
    thread_.join();
}

void gpu_sampler::track(std::int64_t job_id, std::vector<std::string> gpu_ids, pid_t session,
                        clock::time_point started)
{
    if (unavailable_ || gpu_ids.empty()) return;
    jobs_.insert_or_assign(
        job_id, tracked_job{std::move(gpu_ids), session, started, core::gpu_usage_stats()});
}

std::optional<core::gpu_usage_summary> gpu_sampler::finish(std::int64_t job_id)
{
    auto node = jobs_.extract(job_id);
    reported_errors_.erase(job_id);
    if (!node || node.mapped().stats.summary().sample_count == 0) return std::nullopt;
    return node.mapped().stats.summary();
}

std::optional<std::string> gpu_sampler::open_on_thread()
{
    if (nvml_) return std::nullopt;
    auto opened = nvml_library::open(library_path_);
    if (!opened) return opened.error().message;
    auto const devices = (*opened)->devices();
    if (!devices || devices->empty())
        return devices ? "NVML found no GPU" : devices.error().message;
    nvml_ = std::move(*opened);
    return std::nullopt;
}

core::gpu_inventory gpu_sampler::inventory_on_thread()
{
    core::gpu_inventory out;
    if (auto why = open_on_thread()) {
        out.note = std::move(*why);
        return out;
    }
    auto devices = nvml_->devices();
    if (!devices) {
        out.note = devices.error().message;
        return out;
    }
    out.devices = std::move(*devices);
    add_sysfs_topology(out.devices, sysfs_);
    return out;
}

net::awaitable<core::gpu_inventory> gpu_sampler::inventory()
{
    if (inventory_) co_return *inventory_;
    if (stopped_) co_return core::gpu_inventory{{}, "the worker is stopping"};
    auto const read = [](gpu_sampler* self) -> net::awaitable<core::gpu_inventory> {
        try {
            co_return self->inventory_on_thread();
        } catch (std::exception const& e) {
            co_return core::gpu_inventory{{}, std::string("NVML: ") + e.what()};
        }
    };
    auto task = read(this);
    auto result =
        co_await net::co_spawn(thread_.get_executor(), std::move(task), net::use_awaitable);
    if (!inventory_) inventory_ = std::move(result);
    if (inventory_->devices.empty()) mark_unavailable(inventory_->note);
    co_return *inventory_;
}

void gpu_sampler::mark_unavailable(std::string const& why)
{
    jobs_.clear();
    if (unavailable_) return;
    unavailable_ = true;
    log_.write(log_level::warning, "gpu", "GPU use is not measured",
               {{"why", why}, {"library", library_path_}});
}

gpu_sampler::tick_result gpu_sampler::read_on_thread(std::vector<request> const& requests)
{
    tick_result out;
    if (auto why = open_on_thread()) {
        out.unavailable = std::move(why);
        return out;
    }
    auto const table = read_process_table(proc_root_);
    for (auto const& r : requests) {
        std::set<int> pids;
        for (auto const& p : table)
            if (p.session == r.session) pids.insert(p.pid);
        out.readings.push_back({r.job_id, nvml_->read(r.gpu_ids, pids)});
    }
    return out;
}

net::awaitable<void> gpu_sampler::sample(clock::time_point now)
{
    if (stopped_ || unavailable_ || jobs_.empty()) co_return;
    std::vector<request> requests;
    for (auto const& [id, job] : jobs_) requests.push_back({id, job.gpu_ids, job.session});
    // The coroutine runs on thread_ and owns its copy of the requests; `this` outlives it (the
    // destructor joins the thread).
    auto const read = [](gpu_sampler* self,
                         std::vector<request> reqs) -> net::awaitable<tick_result> {
        // Nothing thrown on this thread may end the job runner's sampling loop (the CPU
        // figures ride on it): a throw makes NVML unusable for this worker, said once.
        try {
            co_return self->read_on_thread(reqs);
        } catch (std::exception const& e) {
            co_return tick_result{std::string("NVML: ") + e.what(), {}};
        }
    };
    auto task = read(this, std::move(requests));
    auto result =
        co_await net::co_spawn(thread_.get_executor(), std::move(task), net::use_awaitable);
    if (result.unavailable) {
        mark_unavailable(*result.unavailable);
        co_return;
    }
    for (auto& r : result.readings) {
        auto const it = jobs_.find(r.job_id);
        if (it == jobs_.end()) continue;  // finished while the thread read
        if (!r.value) {
            auto& said = reported_errors_[r.job_id];
            if (said != r.value.error().message) {
                said = r.value.error().message;
                log_.write(log_level::warning, "gpu", "GPU reading failed",
                           {{"job", std::to_string(r.job_id)}, {"error", said}});
            }
            continue;
        }
        core::gpu_sample const s{std::chrono::duration<double>(now - it->second.started).count(),
                                 r.value->utilization_percent, r.value->memory_used_bytes,
                                 r.value->per_process};
        (void)it->second.stats.add(s);  // two readings at one instant: the second is dropped
    }
}

}  // namespace torcrun::io
