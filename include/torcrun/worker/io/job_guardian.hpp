// The job guardian: a small process forked at the worker's start that outlives the worker for
// one purpose, that no process of the worker's jobs outlives the worker, however it dies
// (SIGKILL included).
//
// The worker tells it, over a socket pair, each process group it starts (a job, a recovery
// script, a Slurm command: every launcher child is the leader of its own session and group) and
// each one it has reaped, and in slurm mode the name of each step it started. When the socket
// closes - the worker exited or was killed - the guardian
//   1. `scancel`s each step it was told of and not told ended (found by name in
//      `squeue -s -j JOB`): the step's tasks on every node die, TERM-ignoring or not;
//   2. SIGKILLs each group, then every process of those sessions (one that moved to another
//      group of its session with setpgid), again until none is left;
// and exits. A worker that exits normally has reaped everything, so the guardian finds nothing.
//
// Limits: a process that leaves its job's session (setsid: a double-forking daemon) is not
// found; in an allocation Slurm's process tracking ends it with the allocation, on a workstation
// nothing does. A group the worker reaped in the instant before it died, before it could say
// so, is SIGKILLed once more by its id, which reaches a process only if the kernel has given
// that id to a new group in between. If the guardian itself is killed, jobs fall back to their
// parent-death signal (the leader only).
//
// The guardian is forked, not exec'd: it is the worker's image, it closes every descriptor but
// its end of the socket and stderr, ignores the signals that stop a worker (SIGTERM, SIGINT,
// SIGHUP, SIGUSR1, SIGUSR2, SIGQUIT: a drain signal to the worker's group must not end it before
// the worker), is named `torcrun-guard` (/proc/PID/comm) and lives in a session of its own. In
// `torcrun run` it is forked while the embedded server's threads run; the child then takes no
// lock another thread could hold except malloc's, which glibc resets in the child of a fork.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/io/logger.hpp"

#include <sys/types.h>

#include <memory>
#include <string>

namespace torcrun::io {

class job_guardian {
public:
    // Forks the guardian. Errors: `job guardian: socketpair: ...`, `job guardian: fork: ...`.
    static core::result<std::shared_ptr<job_guardian>> start(logger log);

    job_guardian(job_guardian const&) = delete;
    job_guardian& operator=(job_guardian const&) = delete;
    // Closes the socket (the guardian kills what it still knows of) and reaps the guardian.
    ~job_guardian();

    pid_t pid() const noexcept { return pid_; }

    void watch_group(pid_t group);
    void forget_group(pid_t group);
    // slurm mode: the step srun starts under --job-name=`name` in Slurm job `slurm_job_id`.
    void watch_step(std::string const& slurm_job_id, std::string const& name);
    void forget_step(std::string const& slurm_job_id, std::string const& name);

private:
    job_guardian(pid_t pid, int socket, logger log);
    void send(char op, pid_t group, std::string const& slurm_job_id, std::string const& name);

    pid_t pid_;
    int socket_;
    logger log_;
    bool warned_ = false;  // a failed send is logged once
};

}  // namespace torcrun::io
