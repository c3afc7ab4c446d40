// See job_guardian.hpp. The worker's side sends fixed-size records over a SOCK_SEQPACKET pair
// (one record a message, no framing to get wrong, MSG_NOSIGNAL instead of SIGPIPE when the
// guardian is gone); the guardian's side (guard, at the end of this file) reads them until the
// socket closes, then cancels the steps and kills the groups it still holds.
#include "torcrun/worker/io/job_guardian.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/slurm/step_list.hpp"
#include "torcrun/worker/io/proc_sampler.hpp"
#include "torcrun/worker/proc_stat.hpp"
#include "spawn_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

extern char** environ;

namespace torcrun::io {

namespace {

// One message. op: 'g' a group started, 'G' it was reaped; 's' a step started, 'S' it ended.
struct guardian_record {
    char op = 0;
    pid_t group = 0;
    char slurm_job[32] = {};
    char name[96] = {};  // core::step_name: at most 4 numbers of 20 digits and 9 characters
};

template <std::size_t N>
void copy_field(char (&field)[N], std::string const& text)
{
    text.copy(field, N - 1);
}

std::string errno_text(int e) { return std::system_category().message(e); }

// ---- the guardian's side

struct held_step {
    std::string slurm_job, name;
    bool operator==(held_step const&) const = default;
};

struct held {
    std::vector<pid_t> groups;
    std::vector<held_step> steps;

    void apply(guardian_record const& r)
    {
        held_step const step{std::string(r.slurm_job, strnlen(r.slurm_job, sizeof r.slurm_job)),
                             std::string(r.name, strnlen(r.name, sizeof r.name))};
        switch (r.op) {
        case 'g': groups.push_back(r.group); break;
        case 'G': std::erase(groups, r.group); break;
        case 's': steps.push_back(step); break;
        case 'S': std::erase(steps, step); break;
        default: break;
        }
    }
};

// Runs argv (PATH lookup in the worker's environment) and returns its stdout; "" on failure.
std::string run_for_output(std::vector<std::string> const& args)
{
    std::vector<char*> argv;
    for (auto const& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return {};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    pid_t pid = 0;
    int const rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    std::string text;
    if (rc == 0) {
        char buffer[4096];
        ssize_t n;
        while ((n = ::read(out[0], buffer, sizeof buffer)) != 0) {
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
        }
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    ::close(out[0]);
    return text;
}

// scancel of each step still held, found by its name among the steps of its Slurm job: SIGKILL
// to its tasks at once, then the step's end (a plain scancel alone would wait KillWait).
std::size_t cancel_steps(std::vector<held_step> const& steps)
{
    std::size_t cancelled = 0;
    for (auto const& step : steps) {
        auto const listed =
            run_for_output({"squeue", "-h", "-s", "-j", step.slurm_job, "-o", "%i %j"});
        if (auto const id = core::step_id_named(listed, step.name)) {
            run_for_output({"scancel", "--signal=KILL", *id});
            run_for_output({"scancel", *id});
            ++cancelled;
        }
    }
    return cancelled;
}

// SIGKILL to every living process of the groups or their sessions (one that moved to another
// group of its session) and to each group, round after round until a round finds none alive
// (at most about 2 s: a process forking faster than that is caught by a later round). Zombies do
// not count: their parent is gone and init reaps them. Returns how many the first round found.
std::size_t kill_groups(std::vector<pid_t> const& groups)
{
    auto const ours = [&groups](core::proc_stat const& p) {
        return p.alive() && std::ranges::any_of(groups, [&p](pid_t g) {
                   return p.pgrp == g || p.session == g;
               });
    };
    std::size_t found = 0;
    for (int round = 0; round < 100 && !groups.empty(); ++round) {
        std::size_t alive = 0;
        for (auto const& p : read_process_table())
            if (ours(p) && p.pid != ::getpid()) {
                ::kill(p.pid, SIGKILL);
                ++alive;
            }
        for (pid_t group : groups) ::kill(-group, SIGKILL);
        if (round == 0) found = alive;
        if (alive == 0) break;
        ::usleep(20'000);
    }
    return found;
}

void say(std::string const& line)
{
    auto const text = line + "\n";
    [[maybe_unused]] auto const written = ::write(2, text.data(), text.size());
}

[[noreturn]] void guard(int socket) noexcept
{
    ::setsid();
    ::prctl(PR_SET_NAME, "torcrun-guard");
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    for (int s = 1; s < NSIG; ++s) {
        if (s == SIGKILL || s == SIGSTOP) continue;
        bool const ignored = s == SIGTERM || s == SIGINT || s == SIGHUP || s == SIGUSR1 ||
                             s == SIGUSR2 || s == SIGQUIT || s == SIGPIPE;
        action.sa_handler = ignored ? SIG_IGN : SIG_DFL;
        ::sigaction(s, &action, nullptr);
    }
    int const null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, 0);
        ::dup2(null, 1);
    }
    detail::close_descriptors(socket, true);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    try {
        held jobs;
        guardian_record record;
        for (;;) {
            auto const n = ::recv(socket, &record, sizeof record, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n != static_cast<ssize_t>(sizeof record)) break;  // closed, or broken
            jobs.apply(record);
        }
        if (jobs.groups.empty() && jobs.steps.empty()) ::_exit(0);
        auto const steps = cancel_steps(jobs.steps);
        auto const processes = kill_groups(jobs.groups);
        say(format_log_line(log_level::warning, "guardian",
                            "the worker is gone; its jobs are stopped",
                            {{"groups", std::to_string(jobs.groups.size())},
                             {"processes_killed", std::to_string(processes)},
                             {"steps_cancelled", std::to_string(steps)}}));
    } catch (...) {
        say("guardian: failed while stopping the jobs of a gone worker");
        ::_exit(1);
    }
    ::_exit(0);
}

}  // namespace

core::result<std::shared_ptr<job_guardian>> job_guardian::start(logger log)
{
    int sockets[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
        return core::error{detail::cat("job guardian: socketpair: ", errno_text(errno))};
    // All signals blocked across the fork, so no worker handler runs in the guardian before it
    // has set its own dispositions.
    sigset_t all, previous;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t const pid = ::fork();
    if (pid == 0) {
        ::close(sockets[0]);
        guard(sockets[1]);
    }
    int const fork_errno = errno;
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    ::close(sockets[1]);
    if (pid < 0) {
        ::close(sockets[0]);
        return core::error{detail::cat("job guardian: fork: ", errno_text(fork_errno))};
    }
    return std::shared_ptr<job_guardian>(new job_guardian(pid, sockets[0], std::move(log)));
}

job_guardian::job_guardian(pid_t pid, int socket, logger log)
    : pid_(pid), socket_(socket), log_(std::move(log))
{
}

job_guardian::~job_guardian()
{
    ::close(socket_);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
}

void job_guardian::watch_group(pid_t group) { send('g', group, {}, {}); }
void job_guardian::forget_group(pid_t group) { send('G', group, {}, {}); }

void job_guardian::watch_step(std::string const& slurm_job_id, std::string const& name)
{
    send('s', 0, slurm_job_id, name);
}

void job_guardian::forget_step(std::string const& slurm_job_id, std::string const& name)
{
    send('S', 0, slurm_job_id, name);
}

void job_guardian::send(char op, pid_t group, std::string const& slurm_job_id,
                        std::string const& name)
{
    guardian_record record;
    record.op = op;
    record.group = group;
    copy_field(record.slurm_job, slurm_job_id);
    copy_field(record.name, name);
    ssize_t n;
    while ((n = ::send(socket_, &record, sizeof record, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    if (n == static_cast<ssize_t>(sizeof record) || warned_) return;
    warned_ = true;
    log_.write(log_level::warning, "guardian",
               "the job guardian cannot be told of jobs any more: should the worker die, their "
               "processes may outlive it",
               {{"pid", std::to_string(pid_)}, {"error", errno_text(errno)}});
}

}  // namespace torcrun::io
