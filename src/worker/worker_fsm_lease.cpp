// The node's lease: heartbeats (with use_extensions, from registration on), the lease each
// answer names, and what the worker does once it is lost (server.lost_lease_policy) - the server
// says the node is inactive or gone (409 or 404 on a heartbeat), or no beat was answered for the
// lease minus a margin. Also reconciliation: after an answer that never came (a timeout or a
// reset: the server may have applied the request), the worker reads which jobs the server holds
// for its node and hands back each it does not know; and at start, the nodes an earlier worker
// in the same output directory left registered (it was killed: the job guardian killed its jobs)
// are released before the first claim, so their jobs run again at once instead of after a lease.
//
// stop: every running job is killed at once (SIGKILL: the lease deadline leaves a margin before the
// server's) and reported never; jobs not yet running are handed back; a fresh node is registered at
// once, and claims wait until the last old process is reaped, so a job the server hands out again
// never runs beside its old process here. finish: the running jobs go on; after a silence the
// worker keeps beating the old node and only stops claiming (a server that comes back with the
// lease held loses nothing); once the server says the node is gone, a fresh node is registered and
// the jobs' results are reported under it, where the server's fence takes them only if that attempt
// is this node's again. Either way one line at warning level says what happened.
//
// Never a tight loop: the fresh registration waits 1, 2, 4, 8 s after the 1st to 4th loss in a
// row (no job completed between), and the 5th (max_lease_losses) stops the worker with exit 4.
// A server without the heartbeat endpoint (a Torc server, or a proxy over Torc's contract in front
// of torcrun's: 404 before any beat was answered, or 405 / 501) is not a lost lease: heartbeats
// stop for good, with one warning, and the worker goes on without a lease as with Torc.
#include "worker_fsm_impl.hpp"

#include "worker_text.hpp"

#include "torcrun/config/config.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>

namespace torcrun::core {

namespace {

constexpr double first_interval = 15;  // seconds between beats before a lease is named
constexpr double min_interval = 0.5;

// How long before the server's lease runs out the worker counts it lost: max(2 s, lease / 5),
// at most half the lease.
double lease_margin(double lease_seconds)
{
    return std::min(std::max(2.0, lease_seconds / 5), lease_seconds / 2);
}

}  // namespace

// Three beats per lease, so one late beat does not cost a live worker its lease.
double worker_fsm::impl::beat_interval() const
{
    if (!lease.seconds) return first_interval;
    return std::clamp(*lease.seconds / 3, min_interval, first_interval);
}

// When the lease counts as lost without word from the server: the lease minus a margin of
// max(2 s, lease / 5) (at most half the lease) after the last beat that was answered.
std::optional<fsm_time> worker_fsm::impl::lease_deadline() const
{
    // Stopping, the node is being deactivated: a lost lease changes nothing any more.
    if (lease.status != lease_status::held || !lease.seconds || !lease.renewed_at ||
        stage == worker_stage::stopping || stage == worker_stage::stopped)
        return std::nullopt;
    return *lease.renewed_at + seconds(*lease.seconds - lease_margin(*lease.seconds));
}

void worker_fsm::impl::start_beats()
{
    // A node registered while the worker stops is deactivated at once: no lease to keep.
    if (!cfg.server.extensions || lease.unsupported || stage == worker_stage::stopping) return;
    lease.status = lease_status::held;
    lease.seconds.reset();
    lease.renewed_at.reset();
    lease.next_beat = now;  // the first at once: until then the server holds no lease for it
}

void worker_fsm::impl::beat_due()
{
    if (!lease.next_beat || lease.beat || now < *lease.next_beat || !startup.compute_node_id ||
        lease.status == lease_status::lost || stage == worker_stage::stopped)
        return;
    lease.beat_sent_at = now;
    lease.beat = send(worker::heartbeat{{}, beat_interval()});
}

void worker_fsm::impl::on(worker::heartbeat_answered const& e, worker_action const&)
{
    if (e.request != lease.beat) return;  // a beat of a node given up
    lease.beat.reset();
    lease.ever_answered = true;
    if (e.lease_seconds) lease.seconds = e.lease_seconds;
    lease.renewed_at = lease.beat_sent_at;
    lease.next_beat = lease.beat_sent_at + seconds(beat_interval());
    if (e.lease_seconds) check_retry_window_once(*e.lease_seconds);
    if (lease.status == lease_status::silent) {
        lease.status = lease_status::held;
        say(log_severity::warning, "worker: the lease of compute node " +
                                       std::to_string(*startup.compute_node_id) +
                                       " is held again; claiming resumes");
        claim_progress();
    }
}

// The first answer that names the lease settles server.retry_window_seconds against it
// (core::check_retry_window): a window longer than the lease, not asked for, would have the
// worker retry on after its jobs went to other workers. A window nobody set follows the lease:
// it becomes the lease less the worker's margin (lease_deadline's), so a server with a short
// lease works with a worker's defaults. One that was set beyond the lease is refused: the worker
// stops as on SIGTERM and exits 2 (bad input).
void worker_fsm::impl::check_retry_window_once(double lease_seconds)
{
    if (lease.window_checked) return;
    lease.window_checked = true;
    auto& window = cfg.server.retry_window_seconds;
    if (!cfg.server.retry_window_set && !cfg.server.allow_retry_beyond_lease &&
        window > lease_seconds) {
        window = lease_seconds - lease_margin(lease_seconds);
        say(log_severity::info, "worker: server.retry_window_seconds follows the server's " +
                                    format_seconds(lease_seconds) + " s lease: " +
                                    format_seconds(window) + " s");
        return;
    }
    auto const ok = check_retry_window(cfg, lease_seconds);
    if (ok) return;
    say(log_severity::error, ok.error().message);
    exit_code = 2;
    if (stage == worker_stage::starting || stage == worker_stage::running)
        drain(stop_reason::signal);
}

// Heartbeats are not re-sent like other requests: the next beat is the retry, due at once after
// a transient failure, at the usual interval after other refusals.
void worker_fsm::impl::beat_failed(worker::request_failed const& e)
{
    if (e.request != lease.beat) return;
    lease.beat.reset();
    bool const missing = e.http_status == 405 || e.http_status == 501 ||
                         (e.http_status == 404 && !lease.ever_answered);
    if (missing) {
        lease.unsupported = true;
        lease.next_beat.reset();
        lease.seconds.reset();
        lease.renewed_at.reset();
        lease.status = lease_status::held;
        say(log_severity::warning,
            "worker: the server has no heartbeat endpoint (" + e.message +
                "); going on without a lease, as with a Torc server: a job this worker holds "
                "when it dies stays with its compute node until that node is deactivated");
        return;
    }
    if (e.http_status == 409 || e.http_status == 404) {
        lease_lost("the server says: " + e.message);
        return;
    }
    if (e.kind == http_failure::http_4xx) {
        say(log_severity::warning, "worker: heartbeat refused: " + e.message);
        lease.next_beat = after(beat_interval());
        return;
    }
    say(log_severity::debug, "worker: heartbeat failed: " + e.message);
    lease.next_beat = after(std::min(beat_interval(), 1.0));
}

void worker_fsm::impl::check_lease()
{
    auto const deadline = lease_deadline();
    if (!deadline || now < *deadline) return;
    auto const silent = std::chrono::duration<double>(now - *lease.renewed_at).count();
    auto const why = "no heartbeat answered for " + format_seconds(silent) + " s of a " +
                     format_seconds(*lease.seconds) + " s lease";
    if (cfg.server.lost_lease == lost_lease_policy::finish) {
        lease.status = lease_status::silent;
        say(log_severity::warning,
            "worker: the lease of compute node " + std::to_string(*startup.compute_node_id) +
                " may be lost (" + why + "); policy finish: " + std::to_string(jobs.size()) +
                " jobs go on, no claims until the server answers");
        return;
    }
    lease_lost(why);
}

// The lease is gone (or, with policy stop, presumed gone): see the file comment.
void worker_fsm::impl::lease_lost(std::string const& why)
{
    if (lease.status == lease_status::lost || stage == worker_stage::stopped) return;
    bool const stop = cfg.server.lost_lease == lost_lease_policy::stop;
    lease.status = lease_status::lost;
    lease.beat.reset();
    lease.next_beat.reset();
    if (claims.request) lease.stale_claim = claims.request;
    std::size_t running = 0;
    std::size_t returned = 0;
    std::vector<std::int64_t> gone;
    for (auto& [id, job] : jobs) {
        if (auto* run = job.in<job_state::running>()) {
            ++running;
            lease.orphans.insert(id);
            if (stop) kill_orphan(id, *run);
        } else if (job.in<job_state::spawning>()) {
            ++running;
            lease.orphans.insert(id);  // stopped once its process is there
        } else if (job.in<job_state::awaiting_requirements>() || job.in<job_state::queued>() ||
                   job.in<job_state::starting>()) {
            ++returned;
            hand_back(job, log_severity::debug, "the lease was lost");
        }
    }
    auto const node = std::to_string(startup.compute_node_id.value_or(0));
    ++lease.losses_in_row;
    bool const give_up = lease.losses_in_row >= max_lease_losses;
    bool const again =
        !give_up && (stage == worker_stage::running || stage == worker_stage::starting);
    double const wait = std::exp2(lease.losses_in_row - 1);
    say(log_severity::warning,
        "worker: the lease of compute node " + node + " is lost (" + why + "); policy " +
            std::string(to_string(cfg.server.lost_lease)) + ": " + std::to_string(running) +
            " running jobs " + (stop ? "stopped, none reported" : "go on") + ", " +
            std::to_string(returned) + " handed back" +
            (again ? "; registering a fresh compute node in " + format_seconds(wait) + " s" : ""));
    if (again) {
        lease.register_at = after(wait);
    } else if (give_up) {
        say(log_severity::error,
            "worker: the lease was lost " + std::to_string(lease.losses_in_row) +
                " times in a row with no job completed between (the last: " + why +
                "); stopping with exit " + std::to_string(lease_lost_exit_code) +
                ": check that the server keeps its compute nodes and that nothing between "
                "answers for it");
        exit_code = lease_lost_exit_code;
        drain(stop_reason::lease_lost);
    }
}

void worker_fsm::impl::register_due()
{
    if (!lease.register_at || now < *lease.register_at) return;
    lease.register_at.reset();
    if (stage == worker_stage::running || stage == worker_stage::starting) register_again();
}

void worker_fsm::impl::register_again()
{
    lease.registering = send(registration());
}

bool worker_fsm::impl::lease_allows_claims() const
{
    return lease.status == lease_status::held && lease.orphans.empty() && !lease.registering &&
           !lease.register_at && !lease.reconciling && lease.releasing.empty();
}

// SIGKILL, without the grace: the server has handed the job back or will, so nothing the job
// does in a grace period counts, and another node may start the job once the lease runs out.
void worker_fsm::impl::kill_orphan(std::int64_t job_id, job_state::running& run)
{
    run.cause = stop_cause::lease;
    if (run.killed) return;
    run.killed = true;
    out.push_back(worker::signal_job{job_id, SIGKILL});
}

// A process of a lost registration started after all: with policy stop, it is killed at once
// (true); with finish it runs on like any other (false).
bool worker_fsm::impl::orphan_spawned(job_entry& job, job_state::running& run)
{
    if (!lease.orphans.contains(job.job.id) || cfg.server.lost_lease != lost_lease_policy::stop)
        return false;
    kill_orphan(job.job.id, run);
    return true;
}

// A process of a lost registration ended. With policy stop it is dropped unreported (true);
// with finish its result goes the usual way, under the fresh node (false).
bool worker_fsm::impl::orphan_exited(std::int64_t job_id)
{
    if (!lease.orphans.erase(job_id)) return false;
    if (lease.orphans.empty()) claim_progress();
    if (cfg.server.lost_lease == lost_lease_policy::finish) return false;
    auto const it = jobs.find(job_id);
    if (it == jobs.end()) return true;
    if (it->second.placement()) pool.release(reservation_id{job_id});
    jobs.erase(it);
    ++ledger.lease_lost;
    say(log_severity::info, "job " + std::to_string(job_id) +
                                ": its process of the lost lease ended; not reported");
    return true;
}

// ---- reconciliation

void worker_fsm::impl::want_reconcile()
{
    if (cfg.server.extensions && startup.compute_node_id) lease.reconcile_wanted = true;
}

// Once no claim is in flight (a claim's jobs are known here only when its answer came).
void worker_fsm::impl::reconcile_due()
{
    if (!lease.reconcile_wanted || lease.reconciling || claims.request ||
        stage != worker_stage::running || lease.status != lease_status::held ||
        lease.registering)
        return;
    lease.reconcile_wanted = false;
    lease.reconciling = send(worker::read_held_jobs{});
}

// Jobs held here are adopted as they are; a pending or running job this worker never received
// (a claim whose answer was lost) goes back to ready, fenced by this node and its attempt.
void worker_fsm::impl::on(worker::held_jobs_read const& e, worker_action const&)
{
    if (e.request != lease.reconciling) return;
    lease.reconciling.reset();
    std::size_t returned = 0;
    for (auto const& held : e.jobs) {
        if (jobs.contains(held.job_id)) continue;
        if (held.status != "pending" && held.status != "running") continue;
        ++returned;
        say(log_severity::warning,
            "job " + std::to_string(held.job_id) + ": held by compute node " +
                std::to_string(*startup.compute_node_id) + " on the server but unknown here (" +
                held.status + "); handed back");
        lease.returning.insert(send(worker::hand_back{{}, held.job_id, held.attempt_id}));
    }
    say(log_severity::info, "worker: reconciled with the server: " +
                                std::to_string(e.jobs.size()) + " jobs held, " +
                                std::to_string(returned) + " handed back");
    claim_progress();
}

// ---- an earlier worker's nodes

// Only with the extensions: a Torc v0.10 server puts nothing back when a node is deactivated.
void worker_fsm::impl::on(worker::earlier_nodes_found const& e)
{
    auto const& nodes = e.compute_node_ids;
    if (!cfg.server.extensions || nodes.empty()) return;
    say(log_severity::info, "worker: " + std::to_string(nodes.size()) +
                                " compute nodes of an earlier worker in the journal; releasing "
                                "their jobs before the first claim");
    for (auto const node : nodes)
        lease.releasing.emplace(send(worker::release_node{{}, node, workflow_id}), node);
}

void worker_fsm::impl::on(worker::node_released const& e, worker_action const&)
{
    if (!lease.releasing.erase(e.request)) return;
    auto const node = "compute node " + std::to_string(e.compute_node_id);
    std::size_t running = 0;
    for (auto const& held : e.jobs) running += held.status == "running";
    switch (e.outcome) {
    case worker::earlier_node::released:
        say(e.jobs.empty() ? log_severity::info : log_severity::warning,
            "worker: " + node + " of an earlier worker deactivated; the server put back the " +
                std::to_string(e.jobs.size()) + " jobs it held (" + std::to_string(running) +
                " of them running)");
        break;
    case worker::earlier_node::inactive:
        say(log_severity::info, "worker: " + node +
                                    " of an earlier worker is inactive already; nothing to release");
        break;
    case worker::earlier_node::foreign:
        say(log_severity::warning, "worker: " + node + " in the journal belongs to another "
                                                       "workflow; left alone");
        break;
    case worker::earlier_node::unknown:
        say(log_severity::warning, "worker: " + node + " in the journal is unknown to the server");
        break;
    }
    out.push_back(worker::journal_node{e.compute_node_id, false});
    claim_progress();
}

// Refused (not transient): the node stays in the journal for the next worker; claims go on, the
// node's lease, if it holds one, puts its jobs back in time.
void worker_fsm::impl::release_refused(std::int64_t compute_node_id, request_id id,
                                       std::string const& why)
{
    if (!lease.releasing.erase(id)) return;
    say(log_severity::warning, "worker: compute node " + std::to_string(compute_node_id) +
                                   " of an earlier worker not released: " + why);
    claim_progress();
}

}  // namespace torcrun::core
