// The parent side of the launcher: the exit watches (pidfd, or SIGCHLD where pidfd_open is
// missing), the reap with its group kill, and group signals. fork/exec
// itself is in spawn_child.cpp.
#include "torcrun/worker/io/launcher.hpp"

#include "torcrun/worker/proc_stat.hpp"
#include "torcrun/common/signal_names.hpp"
#include "torcrun/worker/io/proc_sampler.hpp"

#include "torcrun/common/concat.hpp"
#include "spawn_child.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/assert.hpp>
#include <boost/system/system_error.hpp>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <system_error>

namespace torcrun::io {

namespace net = boost::asio;
using std::chrono::steady_clock;

// SIGCHLD says "some child changed state"; signals merge, so each wake-up looks at every
// watched child with waitid(WNOWAIT), which leaves the reap (and the group kill before it) to
// child_process. Never waitpid(-1): that would reap children other code is waiting for.
class sigchld_reaper : public std::enable_shared_from_this<sigchld_reaper> {
public:
    explicit sigchld_reaper(net::any_io_executor executor) : signals_(executor, SIGCHLD) {}

    void watch(std::shared_ptr<child_process> child)
    {
        children_.push_back(std::move(child));
        // The exit may have come before the handler existed (automatic fallback): look once.
        net::post(signals_.get_executor(), [self = shared_from_this()] { self->poll(); });
        arm();
    }

private:
    void arm()
    {
        if (armed_ || children_.empty()) return;
        armed_ = true;
        signals_.async_wait([self = shared_from_this()](boost::system::error_code ec, int) {
            self->armed_ = false;
            if (ec) return;
            self->poll();
        });
    }

    void poll()
    {
        std::erase_if(children_, [](auto const& child) { return child->try_reap(); });
        // A pending wait with nothing to watch would keep the io_context's run() from returning.
        if (children_.empty()) signals_.cancel();
        arm();
    }

    net::signal_set signals_;
    std::vector<std::shared_ptr<child_process>> children_;
    bool armed_ = false;
};

namespace {

int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));  // close-on-exec by definition
#else
    errno = ENOSYS;
    return -1;
#endif
}

double seconds(timeval const& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

}  // namespace

child_process::child_process(net::any_io_executor executor, pid_t pid,
                             steady_clock::time_point started,
                             std::shared_ptr<job_guardian> guardian)
    : pid_(pid),
      started_(started),
      exited_(executor, steady_clock::time_point::max()),
      guardian_(std::move(guardian))
{
}

child_process::~child_process()
{
    if (report_) return;
    // Only when the io_context is torn down while the job runs: kill, but never block here.
    ::kill(-pid_, SIGKILL);
    // Not reaped when still running: the guardian keeps the group, to kill it again should the
    // worker die.
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_ && guardian_) guardian_->forget_group(pid_);
}

void child_process::watch_pidfd(int pidfd)
{
    pidfd_.emplace(exited_.get_executor(), pidfd);
    arm_pidfd();
}

void child_process::arm_pidfd()
{
    pidfd_->async_wait(net::posix::descriptor_base::wait_read,
                       [self = shared_from_this()](boost::system::error_code ec) {
                           if (ec == net::error::operation_aborted) return;
                           if (!self->try_reap()) self->arm_pidfd();  // not exited yet
                       });
}

bool child_process::try_reap()
{
    siginfo_t info{};
    if (::waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != pid_)
        return false;
    // The unreaped leader still pins its pid as the group and session id, so these signals
    // cannot reach a process outside the job.
    std::optional<std::size_t> leftovers;
    if (count_leftovers_) {
        auto const members = core::session_members(read_process_table(), pid_);
        for (int member : members) ::kill(member, SIGKILL);
        leftovers = members.size();
    }
    ::kill(-pid_, SIGKILL);
    int status = 0;
    rusage usage{};
    pid_t reaped;
    while ((reaped = ::wait4(pid_, &status, 0, &usage)) < 0 && errno == EINTR) {
    }
    auto classified = core::classify_wait_status(status);
    // wait4 without WUNTRACED/WCONTINUED returns terminations only, and nothing else in this
    // single-threaded worker reaps this pid; should either fail, report a failure, not success.
    BOOST_ASSERT(reaped == pid_ && classified);
    if (reaped != pid_ || !classified) classified = core::exit_status{{}, 255, 0, false};
    if (guardian_) guardian_->forget_group(pid_);
    report_ = exit_report{*classified,
                          started_,
                          steady_clock::now(),
                          seconds(usage.ru_utime) + seconds(usage.ru_stime),
                          static_cast<std::uint64_t>(usage.ru_maxrss) * 1024,
                          leftovers};
    pidfd_.reset();
    exited_.cancel();
    return true;
}

core::result<void> child_process::signal_group(int signal)
{
    if (report_) return {};
    if (::kill(-pid_, signal) == 0) return {};
    return core::error{detail::cat("signal: ", core::signal_name(signal), " to process group ",
                                   std::to_string(pid_), ": ",
                                   std::system_category().message(errno))};
}

// Not a coroutine itself: the shared_ptr is taken now, while the caller surely holds the child,
// not when the coroutine first runs, by which time the last owner may have let it go.
net::awaitable<exit_report> child_process::wait() { return wait_for(shared_from_this()); }

net::awaitable<exit_report> child_process::wait_for(std::shared_ptr<child_process> self)
{
    if (!self->report_) {
        [[maybe_unused]] auto const [ec] =
            co_await self->exited_.async_wait(net::as_tuple(net::use_awaitable));
    }
    if (!self->report_) throw boost::system::system_error(net::error::operation_aborted);
    co_return *self->report_;
}

launcher::launcher(net::any_io_executor executor, exit_watch watch,
                   std::shared_ptr<job_guardian> guardian)
    : executor_(std::move(executor)), watch_(watch), guardian_(std::move(guardian))
{
}

std::shared_ptr<sigchld_reaper> launcher::reaper()
{
    auto existing = reaper_.lock();
    if (existing) return existing;
    auto created = std::make_shared<sigchld_reaper>(executor_);
    reaper_ = created;
    return created;
}

core::result<std::shared_ptr<child_process>> launcher::spawn(spawn_request const& request)
{
    // With SIGCHLD the handler must exist before the fork, or an early exit could go unseen.
    auto const early_reaper = watch_ == exit_watch::sigchld ? reaper() : nullptr;
    auto const started = steady_clock::now();
    auto const pid = detail::fork_exec(request);
    if (!pid) return pid.error();
    if (guardian_) guardian_->watch_group(*pid);
    return adopt(*pid, started, early_reaper);
}

std::string const* launcher::find_executable(spawn_request const& request)
{
    if (request.argv.empty() || request.argv.front().find('/') != std::string::npos)
        return nullptr;
    auto key = request.argv.front();
    key += '\0';
    key += core::lookup(request.environment, "PATH").value_or("\x01 unset");
    key += '\0';
    key += request.working_directory;
    if (auto const it = found_.find(key); it != found_.end()) return &it->second;
    auto found = detail::resolve_executable(request);
    if (!found) return nullptr;  // fork_child says why
    return &found_.emplace(std::move(key), std::move(*found)).first->second;
}

net::awaitable<core::result<std::shared_ptr<child_process>>> launcher::launch(spawn_request request)
{
    auto const* const executable = find_executable(request);
    auto const early_reaper = watch_ == exit_watch::sigchld ? reaper() : nullptr;
    auto const started = steady_clock::now();
    auto const forked = detail::fork_child(request, executable);
    if (!forked) co_return forked.error();
    // From the fork on: should the worker die while the child sets itself up, the group it
    // is about to lead is the guardian's.
    if (guardian_) guardian_->watch_group(forked->pid);
    if (forked->status_fd < 0) {
        // The vfork-style start: the child has exec'ed or failed, and said which, already.
        auto const& failure = forked->failure;
        auto const outcome = detail::child_outcome(
            *forked, request, failure.step != 0 ? sizeof failure : 0, failure, 0);
        if (!outcome) {
            if (guardian_) guardian_->forget_group(forked->pid);  // reaped by child_outcome
            co_return outcome.error();
        }
        co_return adopt(forked->pid, started, early_reaper);
    }
    net::posix::stream_descriptor status(executor_, forked->status_fd);
    detail::child_failure failure;
    auto const [ec, bytes] = co_await net::async_read(status, net::buffer(&failure, sizeof failure),
                                                      net::as_tuple(net::use_awaitable));
    if (ec == net::error::operation_aborted) {
        // Before or just after its setsid: the pid reaches it either way.
        ::kill(forked->pid, SIGKILL);
        while (::waitpid(forked->pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        if (guardian_) guardian_->forget_group(forked->pid);
        co_return core::error{"spawn: cancelled"};
    }
    int const read_error = ec && ec != net::error::eof ? ec.value() : 0;
    auto const outcome = detail::child_outcome(*forked, request, bytes, failure, read_error);
    if (!outcome) {
        if (guardian_) guardian_->forget_group(forked->pid);  // reaped by child_outcome
        co_return outcome.error();
    }
    co_return adopt(forked->pid, started, early_reaper);
}

bool launcher::is_worker_fault(core::error const& launch_error)
{
    return detail::is_worker_fault_message(launch_error.message);
}

std::shared_ptr<child_process> launcher::adopt(pid_t pid, steady_clock::time_point started,
                                               std::shared_ptr<sigchld_reaper> early_reaper)
{
    std::shared_ptr<child_process> child(new child_process(executor_, pid, started, guardian_));
    if (watch_ == exit_watch::automatic) {
        if (int const fd = open_pidfd(pid); fd >= 0) {
            child->watch_pidfd(fd);
            return child;
        }
        // No pidfd_open on this kernel: SIGCHLD from now on. Other failures (EMFILE) only
        // move this one child to the SIGCHLD watch.
        if (errno == ENOSYS) watch_ = exit_watch::sigchld;
    }
    (early_reaper ? early_reaper : reaper())->watch(child);
    return child;
}

}  // namespace torcrun::io
