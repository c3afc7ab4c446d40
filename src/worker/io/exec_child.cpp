// The child's side of a spawn, from fork to exec: only async-signal-safe calls, nothing that
// allocates or locks (fork copies one thread; a lock another one held stays held). The order
// matters: dispositions before anything can deliver a signal, the session before the death
// signal, the descriptor sweep after the dup2 calls that fill 0-2, the mask last.
#include "spawn_child.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace torcrun::io::detail {
namespace {

[[noreturn]] void fail(int status_fd, child_step failed, int error) noexcept
{
    child_failure const failure{static_cast<int>(failed), error};
    [[maybe_unused]] auto const written = ::write(status_fd, &failure, sizeof failure);
    ::_exit(127);
}

}  // namespace

[[noreturn]] void run_child(child_plan const& p) noexcept
{
    // The worker's handlers (Asio's signal_set) and ignored signals (SIGPIPE) must not leak
    // into the job; every signal is still blocked here, as the parent left it around fork().
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    for (int s = 1; s < NSIG; ++s)
        if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &default_action, nullptr);
    if (::setsid() < 0) fail(p.status_fd, child_step::session, errno);
    // SIGKILL, not SIGTERM: a job that ignores SIGTERM would outlive a dead worker with nobody
    // left to escalate. It fires when the forking *thread* ends: spawn from the reactor thread,
    // which lives as long as the worker. If the worker died before prctl, getppid() shows it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != p.parent) ::_exit(127);
    if (::dup2(p.stdin_fd, 0) < 0 || ::dup2(p.stdout_fd, 1) < 0 || ::dup2(p.stderr_fd, 2) < 0)
        fail(p.status_fd, child_step::streams, errno);
    if (p.working_directory && ::chdir(p.working_directory) != 0)
        fail(p.status_fd, child_step::working_directory, errno);
    if (int const e = close_descriptors(p.status_fd, true); e != 0)
        fail(p.status_fd, child_step::descriptors, e);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(p.executable, p.argv, p.envp);
    fail(p.status_fd, child_step::exec, errno);
}

int close_descriptors(int keep, bool use_close_range) noexcept
{
#ifdef SYS_close_range
    if (use_close_range) {
        long rc = 0;
        if (keep > 3) rc = ::syscall(SYS_close_range, 3U, static_cast<unsigned>(keep - 1), 0U);
        unsigned const from = keep >= 3 ? static_cast<unsigned>(keep + 1) : 3U;
        if (rc == 0) rc = ::syscall(SYS_close_range, from, ~0U, 0U);
        if (rc == 0) return 0;
        if (errno != ENOSYS) return errno;
    }
#endif
    int const dir = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return errno;
    alignas(struct dirent64) char buffer[4096];
    for (;;) {
        auto const n = ::getdents64(dir, buffer, sizeof buffer);
        if (n < 0) {
            int const e = errno;
            ::close(dir);
            return e;
        }
        if (n == 0) break;
        for (ssize_t offset = 0; offset < n;) {
            auto const* entry = reinterpret_cast<struct dirent64 const*>(buffer + offset);
            offset += entry->d_reclen;
            int fd = 0;
            char const* c = entry->d_name;
            for (; *c >= '0' && *c <= '9'; ++c) fd = fd * 10 + (*c - '0');
            if (*c == '\0' && c != entry->d_name && fd >= 3 && fd != keep && fd != dir) ::close(fd);
        }
    }
    ::close(dir);
    return 0;
}

}  // namespace torcrun::io::detail
