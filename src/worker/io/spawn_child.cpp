// fork/exec of one job, both ends of it.
//
// The parent's side: everything that allocates or can fail with a good message is done before
// the fork: the checks of the request, the PATH search, the stdio files, the argv and envp
// arrays. Then the child is started with all signals blocked. A child that fails before or at
// exec reports the failed step and its errno: with the vfork-style start by writing them into
// the parent's memory (as glibc's posix_spawn does; the parent is suspended until the child has
// exec'ed or exited, so it reads them once the start returns, with no pipe, no descriptor
// to watch and no wake-up of the reactor), with fork() through a close-on-exec status pipe (end
// of file means exec succeeded, 8 bytes name the step and its errno).
//
// Per job the start costs these system calls and nothing more: the two stdio files' opens and
// closes (stdin is one /dev/null descriptor opened once per worker), the two signal-mask changes
// around clone, and clone. The child's stack is mapped once per spawning thread and reused (the
// child runs on it only while the parent is suspended), which spares an mmap, an munmap and the
// page faults of a fresh stack at every job.
//
// The child is started as posix_spawn starts one, with vfork semantics: clone(CLONE_VM |
// CLONE_VFORK) on a stack of its own, the parent thread suspended until the child has exec'ed or
// exited. A fork() of the worker (and in `torcrun run`, of the embedded server with its SQLite
// cache) copied its page tables at every job, unmapped them again at exec, and write-protected
// the parent's memory, whose next writes then took copy-on-write faults: most of torcrun's own
// CPU per short job. posix_spawn itself cannot be used: it has no death signal and no check of
// the parent between the two. The sanitized build keeps fork(): ASan's shadow and its
// interceptors' thread state would be shared with a child running on a foreign stack.
//
// The child's side, from clone to exec (run_child, close_descriptors, at the end of this file):
// only async-signal-safe calls, nothing that allocates or locks, and no write to memory other
// than its own stack and its failure report (it shares the worker's; errno, in the suspended
// thread's TLS, is the other exception, and the parent reads errno only when the clone failed).
// The order matters: dispositions before anything can deliver a signal, the session before the
// death signal, the descriptor sweep after the dup2 calls that fill 0-2, the mask last. Dispositions and
// descriptors are the child's own copies (no CLONE_SIGHAND, no CLONE_FILES).
#include "spawn_child.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/slurm/gpu_devices.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <string_view>
#include <system_error>
#include <utility>

namespace torcrun::io::detail {
namespace {

class unique_fd {
public:
    explicit unique_fd(int fd = -1) : fd_(fd) {}
    unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    unique_fd& operator=(unique_fd&& other) noexcept
    {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    ~unique_fd() { reset(); }
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }
    void reset()
    {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

std::string errno_text(int e) { return std::system_category().message(e); }
std::string quoted(std::string_view s) { return cat("\"", s, "\""); }

// Moves a descriptor above 0-2, so that the dup2 calls onto 0-2 in the child never overwrite
// one another (a worker started with closed standard streams gets 0-2 back from open).
int above_stdio(int fd)
{
    if (fd < 0 || fd > 2) return fd;
    int const moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int const saved = errno;
    ::close(fd);
    errno = saved;
    return moved;
}

// /dev/null for every job's stdin: opened once (close-on-exec, above 0-2) and kept for the
// worker's life; a failed open is retried at the next job, whose start fails with its errno.
int shared_dev_null()
{
    static std::atomic<int> kept{-1};
    if (int const fd = kept.load(std::memory_order_acquire); fd >= 0) return fd;
    int const fd = above_stdio(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (fd < 0) return fd;
    int expected = -1;
    if (kept.compare_exchange_strong(expected, fd, std::memory_order_acq_rel)) return fd;
    ::close(fd);  // another thread kept its own first
    return expected;
}

core::result<int> open_stream(std::string const& path, int flags, std::string_view name)
{
    std::string const target = path.empty() ? "/dev/null" : path;
    int const fd = above_stdio(::open(target.c_str(), flags | O_CLOEXEC, 0644));
    if (fd < 0)
        return core::error{cat("spawn: ", name, " ", quoted(target), ": ", errno_text(errno))};
    return fd;
}

bool has_nul(std::string_view s) { return s.find('\0') != std::string_view::npos; }

core::result<void> check_request(spawn_request const& r)
{
    if (r.argv.empty()) return core::error{"spawn: the command is empty"};
    for (std::size_t i = 0; i < r.argv.size(); ++i)
        if (has_nul(r.argv[i]))
            return core::error{
                cat("spawn: argument ", std::to_string(i), " contains a NUL character")};
    for (auto const& [name, value] : r.environment) {
        if (name.empty() || name.find('=') != std::string::npos || has_nul(name))
            return core::error{cat("spawn: environment variable name ", quoted(name),
                                   " is empty or contains '=' or a NUL character")};
        if (has_nul(value))
            return core::error{cat("spawn: the value of environment variable ", quoted(name),
                                   " contains a NUL character")};
    }
    if (has_nul(r.working_directory))
        return core::error{"spawn: the working directory contains a NUL character"};
    if (has_nul(r.stdout_path))
        return core::error{"spawn: the stdout path contains a NUL character"};
    if (has_nul(r.stderr_path))
        return core::error{"spawn: the stderr path contains a NUL character"};
    return {};
}

bool is_executable_file(std::string const& path)
{
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

// The job's own PATH, relative entries taken from the job's working directory, as the kernel
// will after chdir.
core::result<std::string> resolve_executable(spawn_request const& r)
{
    auto const& name = r.argv.front();
    if (name.find('/') != std::string::npos) return {boost::system::in_place_value, name};
    auto const path = core::lookup(r.environment, "PATH").value_or("/bin:/usr/bin");
    std::string_view rest = path;
    for (;;) {
        auto const colon = rest.find(':');
        auto const dir = rest.substr(0, colon);
        auto const candidate = cat(dir.empty() ? "." : dir, "/", name);
        bool const relative = candidate.front() != '/' && !r.working_directory.empty();
        if (!name.empty() &&
            is_executable_file(relative ? cat(r.working_directory, "/", candidate) : candidate))
            return {boost::system::in_place_value, candidate};
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return core::error{cat("spawn: ", quoted(name), " was not found in PATH ", quoted(path))};
}

namespace {

core::error failure_error(child_failure const& f, spawn_request const& r, std::string const& exe)
{
    auto const text = errno_text(f.error);
    switch (static_cast<child_step>(f.step)) {
    case child_step::session:
        return {cat("spawn: setsid: ", text)};
    case child_step::streams:
        return {cat("spawn: redirecting stdin, stdout and stderr: ", text)};
    case child_step::working_directory:
        return {cat("spawn: working directory ", quoted(r.working_directory), ": ", text)};
    case child_step::descriptors:
        return {cat("spawn: closing inherited descriptors: ", text)};
    case child_step::exec:
        return {cat("spawn: exec ", quoted(exe), ": ", text)};
    case child_step::affinity:
        return {cat("spawn: binding to CPUs ", quoted(core::format_cpu_list(r.cpus)), ": ", text)};
    }
    return {cat("spawn: the child failed at step ", std::to_string(f.step), ": ", text)};
}

// A CPU mask sized for the highest CPU asked for (CPU_ALLOC), or none for an empty list.
class cpu_affinity {
public:
    explicit cpu_affinity(std::vector<unsigned> const& cpus)
    {
        if (cpus.empty()) return;
        unsigned most = 0;
        for (auto c : cpus) most = std::max(most, c);
        int const count = static_cast<int>(most) + 1;
        set_ = CPU_ALLOC(count);
        size_ = CPU_ALLOC_SIZE(count);
        CPU_ZERO_S(size_, set_);
        for (auto c : cpus) CPU_SET_S(c, size_, set_);
    }
    ~cpu_affinity()
    {
        if (set_) CPU_FREE(set_);
    }
    cpu_affinity(cpu_affinity const&) = delete;
    cpu_affinity& operator=(cpu_affinity const&) = delete;
    cpu_set_t const* set() const { return set_; }
    std::size_t size() const { return size_; }

private:
    cpu_set_t* set_ = nullptr;
    std::size_t size_ = 0;
};

void reap(pid_t pid)
{
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

#ifndef TORCRUN_SPAWN_BY_FORK
int child_entry(void* plan) { run_child(*static_cast<child_plan const*>(plan)); }

// The child's stack: run_child needs a few kilobytes (the 4 KiB getdents64 buffer of
// close_descriptors is the largest frame); the rest is margin. One per spawning thread, mapped
// at its first job and reused: a child runs on it only while that thread is suspended in clone,
// so two children never share it. Unmapped when the thread ends.
std::size_t constexpr child_stack_bytes = 128 * 1024;

class child_stack {
public:
    child_stack() = default;
    child_stack(child_stack const&) = delete;
    child_stack& operator=(child_stack const&) = delete;
    ~child_stack()
    {
        if (base_ != MAP_FAILED) ::munmap(base_, child_stack_bytes);
    }
    // Its top (the stack grows down on every architecture Debian runs this on), or nullptr with
    // errno set.
    char* top()
    {
        if (base_ == MAP_FAILED)
            base_ = ::mmap(nullptr, child_stack_bytes, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        return base_ == MAP_FAILED ? nullptr : static_cast<char*>(base_) + child_stack_bytes;
    }

private:
    void* base_ = MAP_FAILED;
};

thread_local child_stack spawn_stack;
#endif

// Starts the child with every signal blocked, so that no worker handler runs in the child before
// the child resets the dispositions (a handler there would write into the worker's signal pipe).
pid_t start_blocked(child_plan const& plan, int& start_errno)
{
#ifndef TORCRUN_SPAWN_BY_FORK
    char* const stack_top = spawn_stack.top();
    if (!stack_top) {
        start_errno = errno;
        return -1;
    }
#endif
    sigset_t all, previous;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous);
#ifdef TORCRUN_SPAWN_BY_FORK
    pid_t const pid = ::fork();
    if (pid == 0) run_child(plan);
#else
    pid_t const pid = ::clone(child_entry, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD,
                              const_cast<child_plan*>(&plan));
#endif
    start_errno = errno;
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return pid;
}

struct std_streams {
    int in;                  // the shared /dev/null, not owned
    unique_fd out, err;      // err -1: stderr goes to the stdout file
};

core::result<std_streams> open_streams(spawn_request const& r)
{
    int constexpr write_flags = O_WRONLY | O_CREAT | O_TRUNC;
    int const in = shared_dev_null();
    if (in < 0) return core::error{cat("spawn: stdin \"/dev/null\": ", errno_text(errno))};
    std_streams streams{in, unique_fd(), unique_fd()};
    auto const out = open_stream(r.stdout_path, write_flags, "stdout");
    if (!out) return out.error();
    streams.out = unique_fd(*out);
    if (r.stderr_path != r.stdout_path) {
        auto const err = open_stream(r.stderr_path, write_flags, "stderr");
        if (!err) return err.error();
        streams.err = unique_fd(*err);
    }
    return streams;
}

// argv and envp as execve takes them: argv points into the request, envp into `text`, where the
// "NAME=value" entries lie one after the other, NUL-terminated. One per spawning thread, reused:
// its capacity stays, so a job allocates nothing here (a string per variable and the growing
// arrays, of which those over 1 KiB made malloc consolidate its fast bins, at every job). Used
// only until the start returns.
struct exec_arrays {
    std::string text;
    std::vector<char*> argv, envp;
};

exec_arrays& make_arrays(spawn_request const& r)
{
    thread_local exec_arrays arrays;
    arrays.argv.clear();
    for (auto const& a : r.argv) arrays.argv.push_back(const_cast<char*>(a.c_str()));
    arrays.argv.push_back(nullptr);
    arrays.text.clear();
    for (auto const& [name, value] : r.environment)
        arrays.text.append(name).append(1, '=').append(value).append(1, '\0');
    arrays.envp.clear();
    char* at = arrays.text.data();
    for (auto const& [name, value] : r.environment) {
        arrays.envp.push_back(at);
        at += name.size() + value.size() + 2;
    }
    arrays.envp.push_back(nullptr);
    return arrays;
}

}  // namespace

core::result<forked_child> fork_child(spawn_request const& request,
                                      std::string const* executable)
{
    if (auto checked = check_request(request); !checked) return checked.error();
    auto exe = executable ? core::result<std::string>(boost::system::in_place_value, *executable)
                          : resolve_executable(request);
    if (!exe) return exe.error();
    auto const streams = open_streams(request);
    if (!streams) return streams.error();
    auto const& arrays = make_arrays(request);

    unique_fd status_read, status_write;
    if (started_by_fork) {
        int pipe_fds[2];
        if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
            return core::error{cat("spawn: pipe: ", errno_text(errno))};
        status_read = unique_fd(above_stdio(pipe_fds[0]));
        status_write = unique_fd(above_stdio(pipe_fds[1]));
        if (status_read.get() < 0 || status_write.get() < 0)
            return core::error{cat("spawn: pipe: ", errno_text(errno))};
    }
    // Written by a vfork-style child that fails; read only after the start has returned.
    child_failure failure{};

    // The CPU mask is built here: the child may not allocate.
    cpu_affinity const affinity(request.cpus);
    child_plan const plan{
        exe->c_str(),
        arrays.argv.data(),
        arrays.envp.data(),
        request.working_directory.empty() ? nullptr : request.working_directory.c_str(),
        streams->in,
        streams->out.get(),
        streams->err.get() < 0 ? streams->out.get() : streams->err.get(),
        status_write.get(),
        started_by_fork ? nullptr : &failure,
        ::getpid(),
        affinity.set(),
        affinity.size()};
    int start_errno = 0;
    pid_t const pid = start_blocked(plan, start_errno);
    if (pid < 0)
        return core::error{
            cat("spawn: ", started_by_fork ? "fork" : "clone", ": ", errno_text(start_errno))};
    // The child wrote `failure` (if it failed) before the clone returned; the opaque call is a
    // compiler barrier, and this fence says so.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return forked_child{pid, status_read.release(), std::move(*exe), failure};
}

core::result<void> child_outcome(forked_child const& child, spawn_request const& request,
                                 std::size_t bytes, child_failure const& failure, int read_error)
{
    if (bytes == 0 && read_error == 0) return {};
    reap(child.pid);
    if (read_error != 0)
        return core::error{cat("spawn: reading the child's status: ", errno_text(read_error))};
    if (bytes != sizeof failure)
        return core::error{"spawn: reading the child's status: short read"};
    return failure_error(failure, request, child.executable);
}

core::result<pid_t> fork_exec(spawn_request const& request)
{
    auto child = fork_child(request);
    if (!child) return child.error();
    if (child->status_fd < 0) {
        auto const outcome =
            child_outcome(*child, request, child->failure.step != 0 ? sizeof child->failure : 0,
                          child->failure, 0);
        if (!outcome) return outcome.error();
        return child->pid;
    }
    unique_fd const status(child->status_fd);
    // The child has exec'ed or failed by now (vfork semantics: the start returns then), so this
    // read ends at once; in the sanitized build's fork() it waits for the child to be scheduled
    // and set up. launcher::launch reads without blocking the io_context.
    child_failure failure;
    ssize_t n;
    while ((n = ::read(status.get(), &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    auto const outcome = child_outcome(*child, request, n < 0 ? 0 : static_cast<std::size_t>(n),
                                       failure, n < 0 ? errno : 0);
    if (!outcome) return outcome.error();
    return child->pid;
}

// ---- the child's side: async-signal-safe only

namespace {

[[noreturn]] void fail(child_plan const& p, child_step failed, int error) noexcept
{
    child_failure const failure{static_cast<int>(failed), error};
    if (p.report) {
        // The parent is suspended until this child exits: a plain store it reads afterwards.
        *p.report = failure;
        std::atomic_signal_fence(std::memory_order_seq_cst);
    } else {
        [[maybe_unused]] auto const written = ::write(p.status_fd, &failure, sizeof failure);
    }
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
    if (::setsid() < 0) fail(p, child_step::session, errno);
    // SIGKILL, not SIGTERM: a job that ignores SIGTERM would outlive a dead worker with nobody
    // left to escalate. It fires when the forking *thread* ends: spawn from the reactor thread,
    // which lives as long as the worker. If the worker died before prctl, getppid() shows it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != p.parent) ::_exit(127);
    if (::dup2(p.stdin_fd, 0) < 0 || ::dup2(p.stdout_fd, 1) < 0 || ::dup2(p.stderr_fd, 2) < 0)
        fail(p, child_step::streams, errno);
    if (p.working_directory && ::chdir(p.working_directory) != 0)
        fail(p, child_step::working_directory, errno);
    if (int const e = close_descriptors(p.status_fd, true); e != 0)
        fail(p, child_step::descriptors, e);
    if (p.cpus && ::sched_setaffinity(0, p.cpus_size, p.cpus) != 0)
        fail(p, child_step::affinity, errno);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(p.executable, p.argv, p.envp);
    fail(p, child_step::exec, errno);
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

// The prefixes of the messages made above (and by launcher::launch) for failures of the worker's
// own: every other spawn error is the job's (exec, PATH, the request's own contents).
bool is_worker_fault_message(std::string_view message)
{
    static constexpr std::string_view worker_prefixes[] = {
        "spawn: stdin ",           "spawn: stdout ",
        "spawn: stderr ",          "spawn: pipe: ",
        "spawn: clone: ",          "spawn: fork: ",
        "spawn: reading the child's status", "spawn: setsid: ",
        "spawn: redirecting ",     "spawn: closing inherited descriptors: ",
        "spawn: working directory "};
    for (auto const prefix : worker_prefixes)
        if (message.starts_with(prefix)) return true;
    return false;
}

}  // namespace torcrun::io::detail
