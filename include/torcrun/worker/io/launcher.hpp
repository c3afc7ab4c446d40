// Starting, watching and stopping job processes on one io_context.
//
// Each job runs in its own session and process group (its pid is both ids), with SIGKILL as its
// parent-death signal, default signal dispositions, an empty signal mask, stdin from /dev/null,
// stdout/stderr in files opened by the worker, exactly the environment it is given, and no
// descriptor beyond 0-2. Its exit is seen the moment it happens (a pidfd, or SIGCHLD on kernels
// without pidfd_open); then, before the leader is reaped (its pid still pins the group id), the
// rest of the group gets SIGKILL, so a finished job leaves nothing running in its group. The raw
// wait status is classified by core::classify_wait_status.
//
// Limits: processes that leave the group (setpgid, setsid) are outside that kill; a child set to
// count_leftovers() also has the session's other groups killed at the reap. If the worker itself
// dies, each leader gets the parent-death SIGKILL; the rest of its session is the job guardian's
// (job_guardian.hpp): a launcher given one tells it each group it starts and each it reaps.
//
// Life: running -> exited (report() set, wait() resolves). A child_process stays alive while it
// runs (its watch holds it), so nothing destroys a running job by accident; should the
// io_context be torn down first, the destructor SIGKILLs the group instead of blocking.
//
// Why fork/exec here and not Process v2 (1.81): its launcher leaks fds below its error pipe
// (close_all off-by-one), drops the error_code in one overload, leaves a zombie and runs atexit
// handlers (`::exit`) when exec fails, and its process handle reaps inside async_wait, so the
// group cannot be killed while the leader's pid still pins the group id; the pidfd it opens is
// not reachable (no native_handle) and a failed pidfd_open is unrecoverable. Working around all
// of that costs more code than the fork/exec it would save.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/exit_status.hpp"
#include "torcrun/worker/io/job_guardian.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::io {

struct spawn_request {
    // argv[0] without a '/' is looked up in the PATH of `environment` (default "/bin:/usr/bin"),
    // relative entries against `working_directory`; argv[0] itself is passed on unchanged.
    std::vector<std::string> argv;
    core::env_map environment;      // the job's whole environment; nothing else is inherited
    std::string working_directory;  // empty: the worker's own
    std::string stdout_path;        // created or truncated (0644); empty: /dev/null
    std::string stderr_path;        // the same path as stdout_path shares one file
    // CPUs the child is bound to (sched_setaffinity before exec); empty: the worker's own set.
    std::vector<unsigned> cpus;
};

struct exit_report {
    core::exit_status status;
    std::chrono::steady_clock::time_point started;  // just before the fork
    std::chrono::steady_clock::time_point ended;    // when the exit was seen
    double cpu_seconds = 0;           // user + system of the leader and the children it reaped
    std::uint64_t max_rss_bytes = 0;  // peak RSS of the largest single one of those
    // Processes of the job's session still alive when the leader was reaped (all then killed);
    // counted only after count_leftovers(), as the count costs a scan of /proc (the worker does
    // not ask for it; the tests' terminate sequence does).
    std::optional<std::size_t> leftovers;
};

// How exits are noticed: pidfd (Linux >= 5.3) or, where pidfd_open is missing, SIGCHLD plus
// waitid(WNOWAIT) for each child. `automatic` takes pidfd and falls back by itself.
enum class exit_watch { automatic, sigchld };

class sigchld_reaper;

class child_process : public std::enable_shared_from_this<child_process> {
public:
    child_process(child_process const&) = delete;
    child_process& operator=(child_process const&) = delete;
    ~child_process();

    pid_t pid() const noexcept { return pid_; }  // also its process group and session id
    std::chrono::steady_clock::time_point started() const noexcept { return started_; }
    bool running() const noexcept { return !report_; }
    std::optional<exit_report> const& report() const noexcept { return report_; }

    // kill(-pgid, signal): the whole group. After the exit it does nothing (the group was
    // killed at the reap and its id may be reused). `signal: SIGTERM to process group 12: ...`
    core::result<void> signal_group(int signal);

    // Resolves once the child has been reaped, at once if it already was; any number of
    // waiters. A waiter cancelled before the exit gets operation_aborted thrown.
    boost::asio::awaitable<exit_report> wait();

    // Makes the exit report count the leftovers (see exit_report).
    void count_leftovers() noexcept { count_leftovers_ = true; }

private:
    friend class launcher;
    friend class sigchld_reaper;

    child_process(boost::asio::any_io_executor executor, pid_t pid,
                  std::chrono::steady_clock::time_point started,
                  std::shared_ptr<job_guardian> guardian);
    static boost::asio::awaitable<exit_report> wait_for(std::shared_ptr<child_process> self);
    void watch_pidfd(int pidfd);
    void arm_pidfd();
    // Once the leader has exited (false before): kills the rest of the group, reaps the leader
    // and wakes the waiters. Only the watches call it, so nothing else reaps the pid first.
    bool try_reap();

    pid_t pid_;
    std::chrono::steady_clock::time_point started_;
    std::optional<boost::asio::posix::stream_descriptor> pidfd_;
    boost::asio::steady_timer exited_;  // never expires; cancelled at the exit to wake waiters
    std::optional<exit_report> report_;
    bool count_leftovers_ = false;
    std::shared_ptr<job_guardian> guardian_;  // told of the reap; may be null
};

class launcher {
public:
    // With a guardian, every child's group is watched by it from the fork to the reap.
    explicit launcher(boost::asio::any_io_executor executor,
                      exit_watch watch = exit_watch::automatic,
                      std::shared_ptr<job_guardian> guardian = nullptr);

    // Errors name the step and quote the input: `spawn: working directory "/nope": No such
    // file or directory`, `spawn: exec "/etc/hosts": Permission denied`,
    // `spawn: "frob" was not found in PATH "/bin:/usr/bin"`. Nothing is left running then.
    // Blocks until the child has exec'ed (a millisecond or more on a loaded machine).
    core::result<std::shared_ptr<child_process>> spawn(spawn_request const& request);

    // The same without blocking: the io_context runs on (other exits, other launches) while
    // the child sets itself up and execs. Cancelled before the exec, it kills and reaps the
    // child and returns `spawn: cancelled`. The launcher must outlive the coroutine.
    boost::asio::awaitable<core::result<std::shared_ptr<child_process>>> launch(
        spawn_request request);

    // Whether an error of spawn or launch is the worker's own trouble rather than the job's:
    // its stdout or stderr file could not be made (a full or read-only disk), no pipe, process or
    // memory was to be had, or the child could not set up its session, streams or the worker's
    // working directory. The job's own: its program was not found or could not be exec'ed, its
    // command or environment cannot be passed (an empty command, a NUL, a bad variable name).
    static bool is_worker_fault(core::error const& launch_error);

private:
    std::shared_ptr<sigchld_reaper> reaper();
    std::shared_ptr<child_process> adopt(pid_t pid, std::chrono::steady_clock::time_point started,
                                         std::shared_ptr<sigchld_reaper> early_reaper);

    boost::asio::any_io_executor executor_;
    exit_watch watch_;
    std::shared_ptr<job_guardian> guardian_;
    std::weak_ptr<sigchld_reaper> reaper_;
    // argv[0] "\0" PATH "\0" working directory -> what PATH gave for it: found once per name,
    // PATH and working directory for the launcher's life (a worker runs thousands of `bash -c`
    // jobs with one PATH, and each search stats every PATH entry before bash's).
    std::map<std::string, std::string> found_;
    std::string const* find_executable(spawn_request const& request);
};

}  // namespace torcrun::io
