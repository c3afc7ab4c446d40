// io::job_runner's public calls and what all its work shares: event delivery (always posted,
// never from inside a call), the one /proc sampling loop (alive only while jobs run; memory
// reports when limits.enforce_memory), signals to job groups and the kills of the end.
#include "job_runner_impl.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <csignal>
#include <exception>

namespace torcrun::io {

namespace net = boost::asio;

job_runner::impl::impl(net::any_io_executor executor, job_runner_settings settings,
                       event_sink sink, logger log)
    : executor_(executor),
      settings_(std::move(settings)),
      sink_(std::move(sink)),
      log_(std::move(log)),
      launcher_(executor),
      sample_timer_(executor)
{
}

void job_runner::impl::deliver(core::worker_event event)
{
    net::post(executor_, [weak = weak_from_this(), event = std::move(event)]() mutable {
        auto self = weak.lock();
        if (self && !self->closed_ && self->sink_) self->sink_(std::move(event));
    });
}

void job_runner::impl::spawn_task(net::awaitable<void> co, std::string what)
{
    net::co_spawn(executor_, std::move(co),
                  [log = log_, what = std::move(what)](std::exception_ptr e) {
                      if (!e) return;
                      try {
                          std::rethrow_exception(e);
                      } catch (std::exception const& ex) {
                          log.write(log_level::err, "runner", "task failed",
                                    {{"task", what}, {"error", ex.what()}});
                      }
                  });
}

void job_runner::impl::start_sampling()
{
    if (sampling_ || closed_) return;
    sampling_ = true;
    spawn_task(sample_loop(shared_from_this()), "sampler");
}

net::awaitable<void> job_runner::impl::sample_loop(std::shared_ptr<impl> self)
{
    while (!self->closed_ && self->sampler_.tracked() > 0) {
        self->sample_timer_.expires_after(self->settings_.sample_interval);
        auto const [ec] =
            co_await self->sample_timer_.async_wait(net::as_tuple(net::use_awaitable));
        if (ec || self->closed_) break;
        self->sampler_.sample(proc_sampler::clock::now());
        if (!self->settings_.config.limits.enforce_memory) continue;
        for (auto const& [id, job] : self->jobs_) {
            if (!job.child || !job.child->running()) continue;
            if (auto const latest = self->sampler_.latest(job.child->pid()))
                self->deliver(core::worker::memory_used{id, latest->memory_bytes});
        }
    }
    self->sampling_ = false;
}

void job_runner::impl::signal_job(std::int64_t job_id, int signal)
{
    auto const it = jobs_.find(job_id);
    if (it == jobs_.end()) {
        log_.write(log_level::warning, "runner", "signal for a job that is not running",
                   {{"job", std::to_string(job_id)}, {"signal", std::to_string(signal)}});
        return;
    }
    auto& job = it->second;
    if (!job.child) {
        // Still launching: SIGKILL wins over any other signal waiting with it.
        if (!job.pending_signal || signal == SIGKILL) job.pending_signal = signal;
        return;
    }
    if (auto sent = job.child->signal_group(signal); !sent)
        log_.write(log_level::warning, "runner", "signal failed",
                   {{"job", std::to_string(job_id)}, {"error", sent.error().message}});
}

void job_runner::impl::kill_all()
{
    for (auto const& [id, job] : jobs_) signal_job(id, SIGKILL);
    for (auto const& helper : helpers_) (void)helper->signal_group(SIGKILL);
}

void job_runner::impl::close()
{
    kill_all();
    closed_ = true;
    sample_timer_.cancel();
}

job_runner::job_runner(net::any_io_executor executor, job_runner_settings settings,
                       event_sink sink, logger const& log)
    : impl_(std::make_shared<impl>(executor, std::move(settings), std::move(sink), log))
{
}

job_runner::~job_runner() { impl_->close(); }

void job_runner::spawn(core::worker::spawn const& action)
{
    auto const id = action.job.id;
    if (impl_->jobs_.contains(id)) {
        impl_->spawn_failed(id, detail::cat("spawn: job ", std::to_string(id), " is already running"));
        return;
    }
    impl_->jobs_.emplace(id, impl::job_entry{});
    impl_->last_run_id_ = action.run_id;
    impl_->spawn_task(impl::run_attempt(impl_, action), detail::cat("job ", std::to_string(id)));
}

void job_runner::signal(core::worker::signal_job const& action)
{
    impl_->signal_job(action.job_id, action.signal);
}

void job_runner::run_recovery(core::worker::run_recovery const& action)
{
    impl_->spawn_task(impl::run_recovery(impl_, action),
                      detail::cat("recovery of job ", std::to_string(action.job_id)));
}

void job_runner::run_commands(core::worker::run_commands const& action)
{
    impl_->spawn_task(impl::run_commands(impl_, action),
                      detail::cat("action ", std::to_string(action.action_id)));
}

std::size_t job_runner::running() const { return impl_->jobs_.size(); }

void job_runner::kill_all() { impl_->kill_all(); }

}  // namespace torcrun::io
