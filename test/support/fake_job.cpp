// A job for the io tests (Process v2's target.cpp pattern): one mode per behaviour the launcher
// and the sampler must handle. Output goes straight to the descriptors with write(2), so what
// a test reads from the log file is exactly what was written, unbuffered, in order.
//
//   exit N                  exit with N
//   sleep MS                sleep, then exit 0
//   ignore-term MS [N]      ignore SIGTERM, fork N children (which inherit that), print their
//                           pids and "ready", sleep
//   fork-tree N MS [LEAD]   fork N children that ignore SIGTERM and sleep MS; print their pids
//                           and "ready"; sleep LEAD ms (default MS) with the default SIGTERM
//                           action, then exit 0 (leaving the children behind)
//   print-env [VAR...]      every variable, sorted (or the named ones: VAR=value / VAR unset)
//   list-fds                "fd target" for every open descriptor
//   alloc MB MS             touch MB MiB of memory, print "ready", sleep
//   print-pgid              "pid=P pgid=G sid=S"
//   print-cwd               the working directory
//   print-signals           the SigBlk and SigIgn lines of /proc/self/status
//   spin MS [N]             burn MS of CPU time in each of N processes (default 1)
//   write OUT ERR           OUT to stdout, ERR to stderr
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

void say(std::string const& line, int fd = 1)
{
    auto const text = line + "\n";
    for (std::size_t done = 0; done < text.size();) {
        auto const n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

void sleep_ms(long ms)
{
    timespec left{ms / 1000, (ms % 1000) * 1000000L};
    while (::nanosleep(&left, &left) != 0) {
    }
}

void ignore_term() { ::signal(SIGTERM, SIG_IGN); }

// Forks `n` children that sleep `ms` and exit; prints their pids, then "ready". SIGTERM is
// ignored before the fork, so that a child cannot be caught before it ignores it.
void fork_children(int n, long ms, bool children_ignore_term)
{
    auto const previous = children_ignore_term ? ::signal(SIGTERM, SIG_IGN) : SIG_DFL;
    std::vector<pid_t> pids;
    for (int i = 0; i < n; ++i) {
        pid_t const pid = ::fork();
        if (pid == 0) {
            sleep_ms(ms);
            ::_exit(0);
        }
        pids.push_back(pid);
    }
    if (children_ignore_term) ::signal(SIGTERM, previous);
    for (auto pid : pids) say(std::to_string(pid));
    say("ready");
}

// Burns `ms` of CPU time (not wall time, so the amount is the same on a loaded machine) in
// `n` processes: the leader and n - 1 children, which it waits for.
int spin(long ms, int n)
{
    std::vector<pid_t> pids;
    bool child = false;
    for (int i = 1; i < n && !child; ++i) {
        pid_t const pid = ::fork();
        child = pid == 0;
        if (!child) pids.push_back(pid);
    }
    auto cpu_ms = [] {
        timespec t{};
        ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
    };
    volatile unsigned long counter = 0;
    while (cpu_ms() < ms)
        for (int i = 0; i < 100000; ++i) counter = counter + 1;
    if (child) ::_exit(0);
    for (auto pid : pids) ::waitpid(pid, nullptr, 0);
    return 0;
}

int print_env(int argc, char** argv)
{
    if (argc == 0) {
        std::vector<std::string> all;
        for (char** e = environ; *e; ++e) all.emplace_back(*e);
        std::sort(all.begin(), all.end());
        for (auto const& line : all) say(line);
        return 0;
    }
    for (int i = 0; i < argc; ++i) {
        char const* value = std::getenv(argv[i]);
        say(std::string(argv[i]) + (value ? "=" + std::string(value) : " unset"));
    }
    return 0;
}

int list_fds()
{
    DIR* dir = ::opendir("/proc/self/fd");
    if (!dir) return 2;
    std::vector<int> fds;
    while (auto* entry = ::readdir(dir))
        if (entry->d_name[0] != '.' && std::atoi(entry->d_name) != ::dirfd(dir))
            fds.push_back(std::atoi(entry->d_name));
    ::closedir(dir);
    std::sort(fds.begin(), fds.end());
    for (int fd : fds) {
        char target[PATH_MAX] = {};
        auto const link = "/proc/self/fd/" + std::to_string(fd);
        auto const n = ::readlink(link.c_str(), target, sizeof target - 1);
        say(std::to_string(fd) + " " + (n > 0 ? std::string(target, n) : "?"));
    }
    return 0;
}

int alloc(long mb, long ms)
{
    auto const bytes = static_cast<std::size_t>(mb) << 20;
    auto* memory = static_cast<char*>(std::malloc(bytes));
    if (!memory) return 3;
    std::memset(memory, 1, bytes);
    say("ready");
    sleep_ms(ms);
    std::free(memory);
    return 0;
}

int print_signals()
{
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.starts_with("SigBlk:") || line.starts_with("SigIgn:")) say(line);
    return 0;
}

long arg(char** argv, int i) { return std::atol(argv[i]); }

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) return 64;
    std::string const mode = argv[1];
    int const extra = argc - 2;
    if (mode == "exit" && extra == 1) return static_cast<int>(arg(argv, 2));
    if (mode == "sleep" && extra == 1) return sleep_ms(arg(argv, 2)), 0;
    if (mode == "ignore-term" && (extra == 1 || extra == 2)) {
        ignore_term();
        fork_children(extra == 2 ? static_cast<int>(arg(argv, 3)) : 0, arg(argv, 2), true);
        return sleep_ms(arg(argv, 2)), 0;
    }
    if (mode == "fork-tree" && (extra == 2 || extra == 3)) {
        fork_children(static_cast<int>(arg(argv, 2)), arg(argv, 3), true);
        return sleep_ms(arg(argv, extra == 3 ? 4 : 3)), 0;
    }
    if (mode == "print-env") return print_env(extra, argv + 2);
    if (mode == "list-fds" && extra == 0) return list_fds();
    if (mode == "alloc" && extra == 2) return alloc(arg(argv, 2), arg(argv, 3));
    if (mode == "print-pgid" && extra == 0) {
        say("pid=" + std::to_string(::getpid()) + " pgid=" + std::to_string(::getpgrp()) +
            " sid=" + std::to_string(::getsid(0)));
        return 0;
    }
    if (mode == "print-cwd" && extra == 0) {
        char cwd[PATH_MAX] = {};
        return ::getcwd(cwd, sizeof cwd) ? (say(cwd), 0) : 4;
    }
    if (mode == "print-signals" && extra == 0) return print_signals();
    if (mode == "spin" && (extra == 1 || extra == 2))
        return spin(arg(argv, 2), extra == 2 ? static_cast<int>(arg(argv, 3)) : 1);
    if (mode == "write" && extra == 2) return say(argv[2], 1), say(argv[3], 2), 0;
    say("fake_job: unknown mode or wrong arguments: " + mode, 2);
    return 64;
}
