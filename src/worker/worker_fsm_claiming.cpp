// Claiming: when to ask for jobs and what to ask for (from the pool), the claim reply (more jobs
// than asked, jobs already held), resource requirements (cached by id), placement through the
// pool, start_job, and handing jobs back when anything between claim and spawn fails. Also the
// workflow status check and the idle timer, which both follow from what claims return.
//
// The claim-ahead queue: while the server keeps a lease for this worker, its claims also ask for
// claim_ahead_depth() jobs beyond the free resources (claim_ahead.hpp: from the jobs' measured
// wall time, the claims' round trip and the lease), each fitting the pool's node on its own. A
// claimed job that does not fit the free resources then waits here, `queued`, the worker's under
// its lease (the server holds it for this node, running when the claim started it); a slot that
// frees starts the next queued job that fits, in claim order, without a round trip. A queued job
// goes back to ready (hand_back, as any job not yet started) when the worker drains (a signal, the
// allocation's end, idleness, the workflow's end), when the lease is lost, and when it waited a
// quarter of the lease for resources that the jobs behind it took; after a kill -9 the server's
// lease sweep puts it back with the running ones. No lease (a Torc server), no queue: claims ask
// only for what is free, as before. Only a one-node pool queues (direct mode): a slurm-mode
// worker places steps across nodes, where a step costs more than the round trip saved.
#include "worker_fsm_impl.hpp"

#include "worker_text.hpp"

#include "torcrun/worker/claim_ahead.hpp"
#include "torcrun/worker/never_fits.hpp"

#include <boost/assert.hpp>

#include <algorithm>
#include <csignal>

namespace torcrun::core {

namespace {

// Seconds to the allocation's end (not to the drain before it); nullopt: no end known.
std::optional<double> seconds_to_end(std::optional<fsm_time> end_at, fsm_time now)
{
    if (!end_at) return std::nullopt;
    return std::max(0.0, std::chrono::duration<double>(*end_at - now).count());
}

}  // namespace

bool worker_fsm::impl::claim_possible() const
{
    auto const cap = cfg.limits.max_parallel_jobs;
    return stage == worker_stage::running && !startup.end_pending && !claims.request &&
           !claims.too_late_for_steps && claims.batch.empty() && lease_allows_claims() &&
           (pool.largest_free_per_node().cpus >= 1 || ahead_wanted()) &&
           (!cap || static_cast<std::int64_t>(jobs.size()) < *cap);
}

// A claim may go now. The only worker (torcrun run), its last claim empty: the status check
// reads what is ready first, so jobs that can never run here are named at once rather than after
// a parked claim, which the stop would also have to wait for.
bool worker_fsm::impl::claim_due() const
{
    if (!claim_possible() || now < claims.not_before) return false;
    return !(cfg.limits.sole_worker && claims.last_empty &&
             (claims.status_wanted || claims.status_check));
}

// ---- the claim-ahead queue

// The lease that queued jobs are held under; nullopt: no queue (no extensions, a server without
// heartbeats, a lease not yet named or lost, a pool of several nodes).
std::optional<double> worker_fsm::impl::queue_lease() const
{
    if (!cfg.server.extensions || lease.unsupported || !lease.next_beat ||
        lease.status != lease_status::held || !lease.seconds || pool.size() != 1)
        return std::nullopt;
    return lease.seconds;
}

// A claim for the queue alone (no free resources): only after progress. An answer with fewer
// jobs than asked says nothing more is ready; asking again before a job ends or a report goes
// in would only poll (and, in a chain, hold the claim that should go with the next completion).
bool worker_fsm::impl::ahead_wanted() const
{
    return !claims.last_empty && !claims.short_answer && queue_room() > 0;
}

// How many more jobs the queue wants now.
std::size_t worker_fsm::impl::queue_room() const
{
    auto const lease_seconds = queue_lease();
    if (!lease_seconds) return 0;
    std::size_t placed = 0;
    std::size_t queued = 0;
    for (auto const& [id, job] : jobs) {
        if (job.placement()) ++placed;
        if (job.phase() == job_phase::queued) ++queued;
    }
    auto const depth = claim_ahead_depth(
        {claims.job_seconds, claims.round_trip_seconds, placed, lease_seconds});
    return depth > queued ? depth - queued : 0;
}

void worker_fsm::impl::queue_job(job_entry& job)
{
    job.state = job_state::queued{now};
    say(log_severity::debug, "job " + std::to_string(job.job.id) + ": queued for free resources");
}

// Starts the queued jobs that fit the free resources, in claim order (the job ids). One the
// claim started goes to its spawn at once: the lease held, the server holds it for this node. One
// that waited past queued_wait_limit_seconds goes back to ready.
void worker_fsm::impl::place_queued()
{
    auto const lease_seconds = queue_lease();
    for (auto& [id, job] : jobs) {
        auto* queued = job.in<job_state::queued>();
        if (!queued) continue;
        if (stage != worker_stage::running || !lease_seconds) {
            hand_back(job, log_severity::info,
                      stage != worker_stage::running ? "the worker is stopping"
                                                     : "no lease to hold it under");
            continue;
        }
        auto const& need = claims.requirements.at(job.job.resource_requirements_id).need;
        if (pool.check(need) == fit::now) {
            auto placement = pool.reserve(need, reservation_id{id});
            BOOST_ASSERT(placement);  // check() said it fits now
            job.state = job_state::starting{std::move(*placement)};
            if (job.job.started)
                on_started(id);
            else
                send(worker::start_job{{}, id, job.job.attempt_id});
            continue;
        }
        auto const limit = queued_wait_limit_seconds(*lease_seconds);
        if (now >= queued->since + seconds(limit))
            hand_back(job, log_severity::info,
                      "it waited " + format_seconds(limit) +
                          " s (a quarter of the lease) for free resources");
    }
}

void worker_fsm::impl::hand_back_queued(std::string const& why)
{
    for (auto& [id, job] : jobs)
        if (job.in<job_state::queued>()) hand_back(job, log_severity::info, why);
}

worker::claim_jobs worker_fsm::impl::fresh_claim(request_id id) const
{
    worker::claim_jobs c;
    c.request = id;
    c.per_node = pool.largest_free_per_node();
    for (std::size_t i = 0; i < pool.size(); ++i) {
        c.nodes.push_back(pool.available(i));
        c.limit += c.nodes.back().cpus;
    }
    // Claim ahead: jobs for the queue, each fitting the node as a whole (the pool's only node),
    // so that a queued job never needs what this worker cannot have.
    if (auto const room = queue_room(); room > 0) {
        auto const& node = pool.capacity().front();
        c.per_node = {node.cpus, node.memory_bytes,
                      static_cast<std::uint32_t>(node.gpu_ids.size())};
        c.limit += static_cast<std::uint32_t>(room);
    }
    if (auto const cap = cfg.limits.max_parallel_jobs) {
        auto const room = std::max<std::int64_t>(0, *cap - static_cast<std::int64_t>(jobs.size()));
        c.limit = static_cast<std::uint32_t>(std::min<std::int64_t>(c.limit, room));
    }
    c.num_nodes = static_cast<std::uint32_t>(std::max<std::size_t>(1, pool.idle_node_count()));
    // Torc's claim window: what is left to the allocation's end plus its grace (never_fits.hpp).
    if (auto const left = seconds_to_end(startup.end_at, now))
        c.time_limit_seconds = *left + claim_grace_seconds;
    // A parked claim carries the resources free when it was sent, and no second claim may go
    // out until it answers; so while any job holds resources here, its exit would leave them
    // idle for up to the whole wait. With nothing held, nothing here can free up meanwhile.
    // The only worker (torcrun run) parks a claim only once an empty claim was followed by the
    // status check that reads what is ready: the first claim after progress comes back at once,
    // so jobs that can never run here are named within a second of the last one ending.
    bool const parks = !cfg.limits.sole_worker || claims.last_empty;
    if (cfg.server.extensions && pool.idle() && parks) c.wait_seconds = cfg.poll.long_poll_seconds;
    // The claim asks only for what fits the free resources, so each job it gets is placed and
    // spawned as soon as its requirements are known: the server may start them in the claim.
    c.start = cfg.server.extensions;
    return c;
}

void worker_fsm::impl::try_claim()
{
    if (!claim_due()) return;
    auto claim = fresh_claim({});
    claims.sent_waits = claim.wait_seconds > 0;
    claims.request = send(std::move(claim));
    claims.sent_at = now;
}

// A claim's answer came: its round trip sizes the queue, unless the server could park it.
void worker_fsm::impl::claim_answered()
{
    if (claims.request && !claims.sent_waits)
        claims.round_trip_seconds = moving_average(
            claims.round_trip_seconds, std::chrono::duration<double>(now - claims.sent_at).count());
    claims.request.reset();
}

void worker_fsm::impl::on(worker::jobs_claimed const& e, worker_action const& sent)
{
    claim_answered();
    bool const stale = e.request == lease.stale_claim;  // claimed under a lost registration
    if (stale) lease.stale_claim.reset();
    if (e.jobs.empty()) {
        claims.status_wanted = jobs.empty();  // with jobs live the workflow cannot be complete
        // Something freed resources while the claim was out (a job ended): the answer was for
        // the resources offered then, so claim again at once rather than after the backoff.
        if (claims.progress_at > claims.sent_at) {
            claim_progress();
            return;
        }
        claims.last_empty = true;
        claim_no_progress(claims.sent_at);
        return;
    }
    claims.last_empty = false;
    claims.idle_since.reset();
    auto const limit = std::get<worker::claim_jobs>(sent).limit;
    std::size_t accepted = 0;
    std::size_t extra = 0;
    for (auto const& job : e.jobs) {
        if (auto const held = jobs.find(job.id);
            held != jobs.end() && job.attempt_id > held->second.job.attempt_id) {
            auto const phase = held->second.phase();
            if (phase == job_phase::retrying) {
                retries.reclaimed.insert_or_assign(job.id, job);
                continue;
            }
            // Exited here, its outcome not yet told: the server ended that attempt (the lease
            // sweep), so whatever this worker would send of it is fenced off; the next attempt
            // is this worker's.
            if (phase == job_phase::outputs || phase == job_phase::handler ||
                phase == job_phase::reporting)
                fenced_off(job.id, "a claim returned its attempt " +
                                       std::to_string(job.attempt_id) + ", so attempt " +
                                       std::to_string(held->second.job.attempt_id) +
                                       " is over on the server");
        }
        if (jobs.contains(job.id)) {
            say(log_severity::error,
                "claim: job " + std::to_string(job.id) + " is already held here; ignored");
            continue;
        }
        ++ledger.claimed;
        disown_requests(job.id);
        auto& entry = jobs.emplace(job.id, job_entry{.job = job}).first->second;
        if (accepted == limit) {
            ++extra;
            hand_back(entry, log_severity::warning, "");  // one line for all, below
        } else if (stage != worker_stage::running) {
            hand_back(entry, log_severity::info, "the worker is stopping");
        } else if (stale || lease.status != lease_status::held) {
            hand_back(entry, log_severity::info, "claimed under a lease that was lost");
        } else {
            ++accepted;
            claims.batch.push_back(job.id);
        }
    }
    if (extra > 0)
        say(log_severity::warning, "claim: the server returned " + std::to_string(e.jobs.size()) +
                                       " jobs for a limit of " + std::to_string(limit) + "; " +
                                       std::to_string(extra) + " handed back");
    fetch_requirements(true);
    claims.short_answer = e.jobs.size() < limit;  // after the placement's claim_progress
}

void worker_fsm::impl::fetch_requirements(bool fresh)
{
    for (auto const id : claims.batch) {
        auto const rr = jobs.at(id).job.resource_requirements_id;
        if (claims.requirements.contains(rr) || claims.fetching_requirements.contains(rr)) continue;
        claims.fetching_requirements.insert(rr);
        send(worker::read_requirements{{}, rr});
    }
    place_batch(fresh);
}

void worker_fsm::impl::on(worker::requirements_read const& e, worker_action const& sent)
{
    auto const rr = std::get<worker::read_requirements>(sent).requirements_id;
    claims.fetching_requirements.erase(rr);
    auto& cached = claims.requirements[rr] = e.resources;
    cached.id = rr;
    place_batch();
}

void worker_fsm::impl::requirements_failed(std::int64_t requirements_id, std::string const& why)
{
    claims.fetching_requirements.erase(requirements_id);
    for (auto const id : claims.batch) {
        auto const it = jobs.find(id);
        if (it == jobs.end()) continue;
        auto& job = it->second;
        if (job.phase() == job_phase::requirements &&
            job.job.resource_requirements_id == requirements_id)
            hand_back(
                job, log_severity::error,
                "resource requirements " + std::to_string(requirements_id) + " unread: " + why);
    }
    place_batch();
}

// Places the claimed jobs in the server's order once all their requirements are known. A job the
// claim started spawns at once only while the claim's answer is `fresh` (placed in the event
// that brought it): after a round trip for its requirements the node may have lost it meanwhile
// (its lease ran out, it was handed to another node), so start_job asks first, which the server
// answers as a repeat while the job is still this node's and with 409 once it is not.
void worker_fsm::impl::place_batch(bool fresh)
{
    if (!claims.fetching_requirements.empty()) return;
    bool placed = false;
    bool refused = false;
    for (auto const id : std::exchange(claims.batch, {})) {
        auto const it = jobs.find(id);  // one handed back meanwhile may be gone
        if (it == jobs.end() || it->second.phase() != job_phase::requirements) continue;
        auto& job = it->second;
        if (stage != worker_stage::running) {
            hand_back(job, log_severity::info, "the worker is stopping");
            continue;
        }
        auto const& need = claims.requirements.at(job.job.resource_requirements_id).need;
        auto const verdict = pool.check(need);
        if (verdict == fit::now) {
            auto placement = pool.reserve(need, reservation_id{id});
            BOOST_ASSERT(placement);  // check() said it fits now
            job.state = job_state::starting{std::move(*placement)};
            if (job.job.started && fresh)
                on_started(id);  // the claim started it: adopted as start_job's answer
            else
                send(worker::start_job{{}, id, job.job.attempt_id});
            placed = true;
        } else if (verdict == fit::not_now && queue_lease()) {
            queue_job(job);  // claimed ahead; placed when resources free up
        } else {
            refused = true;
            if (verdict == fit::not_now)
                hand_back(job, log_severity::info, "it does not fit the free resources");
            else
                hand_back(job, log_severity::error,
                          "it can never run here: " + pool.why_never(need).value_or(""));
        }
    }
    // A job that did not fit would come straight back from an immediate claim.
    if (refused) {
        claim_no_progress(now);
    } else if (placed) {
        claim_progress();
    }
}

void worker_fsm::impl::on_started(std::int64_t job_id)
{
    auto const it = jobs.find(job_id);
    auto* const starting =
        it == jobs.end() ? nullptr : std::get_if<job_state::starting>(&it->second.state);
    if (!starting) return;
    auto& job = it->second;
    if (stage != worker_stage::running) {
        hand_back(job, log_severity::info, "the worker is stopping");
        return;
    }
    auto placement = std::move(starting->placement);  // emplace destroys `starting` first
    auto& spawning =
        job.state.emplace<job_state::spawning>(job_state::spawning{std::move(placement)});
    std::optional<double> left;
    if (startup.end_at) left = std::chrono::duration<double>(*startup.end_at - now).count();
    out.push_back(worker::spawn{job.job, claims.requirements.at(job.job.resource_requirements_id),
                                spawning.placement, startup.run_id, left});
}

void worker_fsm::impl::hand_back(job_entry& job, log_severity level, std::string const& why)
{
    if (job.placement()) pool.release(reservation_id{job.job.id});
    job.state = job_state::handing_back{};
    if (!why.empty()) say(level, "job " + std::to_string(job.job.id) + ": handed back: " + why);
    send(worker::hand_back{{}, job.job.id, job.job.attempt_id});
}

void worker_fsm::impl::on_handed_back(std::int64_t job_id, bool accepted, std::string const& why)
{
    auto const it = jobs.find(job_id);
    if (it == jobs.end()) return;
    jobs.erase(it);
    if (accepted) {
        ++ledger.handed_back;
        return;
    }
    ++ledger.abandoned;
    say(log_severity::error, "job " + std::to_string(job_id) +
                                 ": not handed back; it stays pending on the server: " + why);
}

// The server refused a transition of the job with 409: another node holds it, or it moved on.
// It is not this worker's any more: its process (if one runs) is killed, and it is neither
// reported, handed back nor retried.
void worker_fsm::impl::fenced_off(std::int64_t job_id, std::string const& why)
{
    auto const it = jobs.find(job_id);
    if (it == jobs.end()) return;
    auto& job = it->second;
    if (auto* run = job.in<job_state::running>(); run && !run->killed)
        out.push_back(worker::signal_job{job_id, SIGKILL});
    if (job.placement()) pool.release(reservation_id{job_id});
    retries.reclaimed.erase(job_id);
    say(log_severity::warning,
        "job " + std::to_string(job_id) + ": not this worker's any more; dropped: " + why);
    jobs.erase(it);
    ++ledger.fenced_off;
}

void worker_fsm::impl::claim_refused(std::string const& why, int http_status)
{
    claim_answered();
    say(log_severity::error, "claim: refused: " + why);
    // e.g. "compute node N is inactive": the heartbeat's answer says whether the lease is gone
    if (http_status == 409 && lease.next_beat && !lease.beat) lease.next_beat = now;
    claim_no_progress(now);
}

// Something changed that may make jobs claimable: claim at once, and count idle time afresh.
void worker_fsm::impl::claim_progress()
{
    claims.last_empty = false;
    claims.short_answer = false;
    claims.delay = cfg.poll.min_interval_seconds;
    claims.not_before = now;
    claims.progress_at = now;
}

void worker_fsm::impl::claim_no_progress(fsm_time from)
{
    claims.not_before = from + seconds(claims.delay);
    claims.delay = std::min(claims.delay * 2, cfg.poll.interval_seconds);
}

void worker_fsm::impl::try_status_check()
{
    if (claims.status_check) return;
    if (!claims.status_wanted &&
        now < claims.last_status_check + seconds(cfg.poll.interval_seconds))
        return;
    claims.status_wanted = false;
    claims.last_status_check = now;
    // Nothing held and nothing claimable: also read what is ready, to name jobs that never fit.
    claims.status_check = send(worker::check_workflow{{}, jobs.empty() && claims.last_empty});
}

void worker_fsm::impl::on(worker::workflow_state_read const& e, worker_action const&)
{
    claims.status_check.reset();
    if (stage != worker_stage::running) return;
    auto const workflow = "worker: workflow " + std::to_string(workflow_id);
    if (e.is_canceled) {
        say(log_severity::info, workflow + " was canceled; stopping");
        drain(stop_reason::workflow_canceled);
    } else if (e.is_complete) {
        say(log_severity::info, workflow + " is complete; stopping");
        drain(stop_reason::workflow_complete);
    }
}

// The ready jobs, read while nothing was held: when every one of them can never run here, the
// worker says which and why and stops with its own exit status instead of idling — at once when
// it is the only worker (torcrun run), else when it would stop for idleness.
void worker_fsm::impl::on(worker::ready_jobs_read const& e, worker_action const& sent)
{
    on(e.state, sent);
    claims.never_fit.clear();
    if (stage != worker_stage::running || !jobs.empty() || !claims.last_empty || e.more ||
        e.jobs.empty())
        return;
    auto const left = seconds_to_end(startup.end_at, now);
    std::vector<std::string> reasons;
    for (auto const& job : e.jobs) {
        // Another label's job is its workers' (extension); only the sole worker names it.
        if (!serves_label(job, cfg.label)) {
            if (cfg.limits.sole_worker) reasons.push_back(label_not_served(job, cfg.label));
            continue;
        }
        auto why = never_fits(job, pool.capacity(), left, claim_grace_seconds);
        if (!why) return;  // it fits: claims will get it once the server hands it out
        reasons.push_back(std::move(*why));
    }
    if (reasons.empty()) return;  // only other labels' jobs: not this worker's to judge
    claims.never_fit = std::move(reasons);
    if (cfg.limits.sole_worker) stop_never_fits();
}

void worker_fsm::impl::stop_never_fits()
{
    auto const n = claims.never_fit.size();
    say(log_severity::error, "worker: " + std::to_string(n) +
                                 (n == 1 ? " ready job" : " ready jobs") +
                                 " can never run in this allocation; stopping");
    for (auto const& why : claims.never_fit) say(log_severity::error, "never fits: " + why);
    claims.never_fit.clear();
    exit_code = never_fits_exit_code;
    drain(stop_reason::never_fits);
}

void worker_fsm::impl::check_idle()
{
    if (!jobs.empty() || !claims.last_empty) claims.never_fit.clear();
    if (cfg.limits.idle_timeout_seconds <= 0 || !jobs.empty() || !claims.last_empty) {
        claims.idle_since.reset();
        return;
    }
    if (!claims.idle_since) claims.idle_since = now;
    if (now < *claims.idle_since + seconds(cfg.limits.idle_timeout_seconds)) return;
    if (actions_keep_alive()) return;
    if (!claims.never_fit.empty()) return stop_never_fits();
    say(log_severity::info,
        "worker: idle for " + format_seconds(cfg.limits.idle_timeout_seconds) + " s; stopping");
    drain(stop_reason::idle);
}

}  // namespace torcrun::core
