// The worker's decisions as a pure state machine: `on(event, now)` returns the actions the io
// shell carries out; nothing here performs I/O or reads a clock (docs/ARCHITECTURE.md, "The
// worker as a state machine").
//
// Worker stages (any stage -> stopped through exit_worker):
//
//   starting --register, read run id, on_workflow_start / on_worker_start actions--> running
//   running  --signal | deadline | workflow complete or canceled | idle | never fits
//              | server lost--> draining
//   draining --no job left (or the hard stop)--> stopping
//   stopping --[on_workflow_complete], on_worker_complete actions, deactivate node--> stopped
//   starting --signal--> stopping (deactivate) or stopped (not registered yet)
//
// The code follows the worker's life, one file per phase in src/worker/: worker_fsm.cpp (the
// core: event dispatch, requests and their retries, the pass after each event, invariants),
// worker_fsm_startup.cpp (registration and the workflow actions), worker_fsm_claiming.cpp
// (claims, requirements, placement, hand-backs), worker_fsm_running.cpp (a job from its spawn to
// its report) and worker_fsm_draining.cpp (signals, draining, exit). Each phase keeps its own
// state struct (worker_fsm_impl.hpp).
//
// One job, from its claim to its end (every claimed job ends reported, handed back, retried,
// or - only when the server stays unreachable - journaled or abandoned with an error log). Its
// phase is a std::variant of one struct per phase (worker_fsm_state.hpp), each holding only
// what that phase has, and each transition builds the next from the last:
//
//   awaiting_requirements --reserve--> starting{placement} --start_job--> spawning{placement}
//     --spawn--> running{placement, spawned_at, limit_at, kill_at, cause, killed}
//     --exit (placement released)--> [checking_outputs{result}] --> [fetching_handler{result}]
//     --> retrying{result, rule} (back to ready)  or  reporting (result in the report queue)
//   awaiting_requirements --claimed ahead, not fitting now--> queued --resources free-->
//     starting (--> spawning at once when the claim started it)
//   awaiting_requirements, queued, starting, spawning --refused, no fit, stopping, lease lost,
//     waited a quarter of the lease (queued)--> handing_back
//   running --signal, grace, SIGKILL (cause, kill_at, killed)--> exit as above
//   spawning --spawn_failed (placement released)--> a failed attempt, spawn_failed_exit_code:
//     [fetching_handler] --> retrying or reporting, as after an exit
//   spawning --spawn_failed, the worker's own fault--> handing_back; the worker drains
//     (stop_reason::worker_fault, exit 5): a broken node must not empty the queue
//
// Claim and start: with use_extensions every claim asks the server to start what it hands out
// (start=true); a job the reply lists `running` was started by the claim and goes from its
// reservation straight to spawning, without start_job, when it is placed in the event of the
// claim's answer (its requirements known already). One placed later (after a requirements read)
// and one a reply lists `pending` (a server without the extension) get start_job as before: for
// the first the server answers a repeat, or 409 when the node lost it meanwhile. A claim re-sent after a lost answer is
// answered with the first answer's jobs, running: they are adopted the same way, never started
// twice; the ones a forgetful server does not list again are found by reconciliation and handed
// back (running -> ready, fenced by node and attempt).
//
// Placement: a job starts only when resource_pool::reserve succeeds; its GPU ids come from the
// reservation; what a claim asks for comes from the same pool. Resources are released when the
// child is reaped, whatever the server says later (Torc returns them only after a successful
// complete_job, so a refused one shrinks its pool for good; docs/TORC-COMPATIBILITY.md §6.2).
//
// Claims: one at a time and never while claimed jobs wait for placement; with a lease, also for
// a few jobs beyond the free resources (the claim-ahead queue, worker_fsm_claiming.cpp). On
// torcrun's server completions waiting when a claim is due go with it in one complete_and_claim
// (worker_fsm_running.cpp), so one request is both the claim and the report batch in flight.
// With use_extensions
// and poll.long_poll_seconds > 0 the server holds the claim open; otherwise an empty reply
// backs off from poll.min_interval_seconds, doubling to poll.interval_seconds; any progress
// (a job claimed, ended or reported) claims again at once.
//
// The shell's side: answer every request action exactly once (its reply event, request_done,
// or request_failed with the kind; a transient failure is re-sent by the machine under the same
// id); answer spawn with job_spawned or spawn_failed, then job_exited once; check_outputs with
// outputs_checked; run_commands with action_finished. Keep one timer: arm_timer replaces it,
// and its expiry is a tick. exit_worker ends the process; nothing is handled after it.
//
// Never fits: a status check sent while nothing is held and the last claim came back empty also
// reads the ready jobs (check_workflow with_ready_jobs). When every one of them can never run
// on the pool's nodes within the time left (never_fits.hpp), each is logged at error level and
// the worker drains with never_fits_exit_code; a job that fits keeps the worker claiming.
//
// Time: steady time points come in with every event; `begin` carries the wall clock once, to
// place the allocation end (termination.end_time or end_time_learned, Unix seconds) on the
// steady clock. Draining for the deadline starts max(drain_buffer_seconds, grace_seconds + 5)
// before the end, so that signal, grace and reports fit; that lead is applied once.
#pragma once

#include "torcrun/config/config.hpp"
#include "torcrun/worker/resource_pool.hpp"
#include "torcrun/worker/worker_actions.hpp"
#include "torcrun/worker/worker_events.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

enum class worker_stage { starting, running, draining, stopping, stopped };

enum class stop_reason {
    none,
    signal,             // SIGTERM, SIGINT, SIGUSR1: running jobs are terminated
    deadline,           // the allocation ends: running jobs are terminated
    workflow_canceled,  // running jobs are terminated and reported `canceled`
    workflow_complete,  // nothing left to run
    idle,               // nothing ran or could be claimed for limits.idle_timeout_seconds
    server_lost,        // unreachable for server.retry_window_seconds: jobs finish, then exit 1
    fatal,              // the server refused registration or the workflow: exit 1
    never_fits,         // nothing runs and every ready job can never run here: exit 3
    lease_lost,         // the lease lost again and again with no job completed: exit 4
    worker_fault,       // a job could not start for the worker's own trouble (disk, fds): exit 5
};

// The worker's exit status when every job left can never run in this allocation.
inline constexpr int never_fits_exit_code = 3;
// ... when its lease was lost max_lease_losses times in a row with no job completed between:
// a server that keeps forgetting this worker (or a proxy that keeps answering 404 for it) would
// otherwise have it register compute node after compute node.
inline constexpr int lease_lost_exit_code = 4;
inline constexpr int max_lease_losses = 5;
// ... when a job could not start for a reason of the worker's own (spawn_failed::worker_fault):
// the job went back, running ones finish, and nothing more is claimed.
inline constexpr int worker_fault_exit_code = 5;

// The return code of an attempt whose process could not be started (its attempt directory or
// files could not be written, exec failed): 126, the shells' "cannot execute".
inline constexpr int spawn_failed_exit_code = 126;

std::string_view to_string(worker_stage stage);
std::string_view to_string(stop_reason reason);

// What became of every job this worker claimed. claimed == the sum of the others + live.
struct job_ledger {
    std::size_t claimed = 0;
    std::size_t started = 0;      // spawned (not an end)
    std::size_t reported = 0;     // the server accepted the attempt's completion
    std::size_t rejected = 0;     // the server refused the completion (4xx); logged
    std::size_t handed_back = 0;  // back to ready before it ran
    std::size_t retried = 0;      // back to ready by a failure rule
    std::size_t journaled = 0;    // result only in the journal at exit (server unreachable)
    std::size_t abandoned = 0;    // left pending/running on the server at exit; logged
    std::size_t fenced_off = 0;   // the server said it is not this worker's any more (409)
    std::size_t lease_lost = 0;   // dropped when the lease was lost (its process killed first)

    std::size_t ended() const
    {
        return reported + rejected + handed_back + retried + journaled + abandoned + fenced_off +
               lease_lost;
    }
};

class worker_fsm {
public:
    using time_point = std::chrono::steady_clock::time_point;

    // `pool` is what this worker may place jobs on (direct: its own node; slurm: every node).
    // With a jitter seed, retry delays are spread over [min, backoff]; without, they are exact.
    worker_fsm(worker_config config, std::int64_t workflow_id, resource_pool pool,
               std::optional<std::uint64_t> jitter_seed = std::nullopt);
    worker_fsm(worker_fsm&&) noexcept;
    worker_fsm& operator=(worker_fsm&&) noexcept;
    ~worker_fsm();

    // Handles one event at `now` (never earlier than the last call's) and everything that is
    // due by then. The invariants are checked after every call (BOOST_ASSERT).
    std::vector<worker_action> on(worker_event const& event, time_point now);

    // The first violated invariant, or nullopt: the pool's own invariants, each reservation held
    // by exactly one placed job and each placed job holding one, no GPU id in two jobs, and the
    // ledger balancing.
    std::optional<std::string> check_invariants() const;

    worker_stage stage() const;
    stop_reason reason() const;
    job_ledger const& ledger() const;
    std::size_t live_jobs() const;  // claimed and not ended
    resource_pool const& pool() const;

private:
    friend struct worker_fsm_tamper;  // the unit tests corrupt state to test the checker
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace torcrun::core
