// fork/exec of one job (spawn_child.cpp: the parent's side and the child's between its start and
// exec), private to src/worker/io; the io tests include it for the descriptor sweep.
#pragma once

#include "torcrun/worker/io/launcher.hpp"

#include <sched.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace torcrun::io::detail {

// The child's setup steps; the one that fails is sent back with its errno: in the parent's memory
// with the vfork-style start (the parent is suspended until the child has exec'ed or exited), or
// through a status pipe with fork() (close-on-exec: end of file means exec succeeded).
enum class child_step : int {
    session = 1,
    streams,
    working_directory,
    descriptors,
    exec,
    affinity
};

struct child_failure {
    int step = 0;
    int error = 0;
};

struct forked_child {
    pid_t pid;
    // fork(): the status pipe's read end, close-on-exec, owned by the caller. The vfork-style
    // start: -1, the outcome is in `failure` already (step 0: exec succeeded).
    int status_fd;
    std::string executable;  // as exec was given it
    child_failure failure{};
};

#if defined(__SANITIZE_ADDRESS__)
#define TORCRUN_SPAWN_BY_FORK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TORCRUN_SPAWN_BY_FORK 1
#endif
#endif

// How the child starts (spawn_child.cpp says why): clone(CLONE_VM | CLONE_VFORK), which returns
// once the child has exec'ed or failed, or, in the sanitized build, fork(), which returns while
// the child may still be setting itself up.
#ifdef TORCRUN_SPAWN_BY_FORK
inline constexpr bool started_by_fork = true;
#else
inline constexpr bool started_by_fork = false;
#endif

// execvp's search, done in the parent so that "not found" is a clear error: argv[0] in the
// PATH of the request's environment, relative entries against its working directory.
core::result<std::string> resolve_executable(spawn_request const& r);

// Checks the request, opens its files and starts the child; it has exec'ed (or failed, which
// `failure` says), or with fork() is on its way to exec (or failing, which the status pipe says).
// `executable`: argv[0] as resolve_executable found it already; null: found here.
core::result<forked_child> fork_child(spawn_request const& request,
                                      std::string const* executable = nullptr);

// The outcome from what the status pipe gave: `bytes` read before end of file, or the read's
// errno. On failure the child, which exits at once, is reaped and the error names the step.
core::result<void> child_outcome(forked_child const& child, spawn_request const& request,
                                 std::size_t bytes, child_failure const& failure, int read_error);

// launcher::is_worker_fault, by the message's start (the messages are all made in this file).
bool is_worker_fault_message(std::string_view message);

// Both, reading the status pipe (if any) blocking: the pid once exec succeeded.
core::result<pid_t> fork_exec(spawn_request const& request);

// What the child needs, all of it built before the fork.
struct child_plan {
    char const* executable;
    char* const* argv;
    char* const* envp;
    char const* working_directory;  // nullptr: stay
    int stdin_fd, stdout_fd, stderr_fd;
    int status_fd;            // fork(): the status pipe's write end; -1 with `report`
    child_failure* report;    // the vfork-style start: the failure, written in the parent's memory
    pid_t parent;
    cpu_set_t const* cpus = nullptr;  // nullptr: not bound
    std::size_t cpus_size = 0;
};

// The child's side, from fork to exec; never returns.
[[noreturn]] void run_child(child_plan const& plan) noexcept;

// Closes every descriptor >= 3 except `keep` (-1: none). Only async-signal-safe calls, for the
// child between fork and exec. Without close_range (Linux < 5.9, or `use_close_range` false)
// it walks /proc/self/fd with getdents64. Returns 0 or an errno value.
int close_descriptors(int keep, bool use_close_range) noexcept;

}  // namespace torcrun::io::detail
