// Claiming: when to ask for jobs and what to ask for (from the pool), the claim reply (more jobs
// than asked, jobs already held), resource requirements (cached by id), placement through the
// pool, start_job, and handing jobs back when anything between claim and spawn fails. Also the
// workflow status check and the idle timer, which both follow from what claims return.
#include "worker_fsm_impl.hpp"

#include "worker_text.hpp"

#include <algorithm>

namespace torcrun::core {

bool worker_fsm::impl::claim_possible() const
{
    return stage == worker_stage::running && !claim && batch.empty() &&
           pool.largest_free_per_node().cpus >= 1;
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
    c.num_nodes = static_cast<std::uint32_t>(std::max<std::size_t>(1, pool.idle_node_count()));
    if (auto const at = drain_at())
        c.time_limit_seconds = std::max(0.0, std::chrono::duration<double>(*at - now).count());
    // A parked claim carries the resources free when it was sent, and no second claim may go
    // out until it answers; so while any job holds resources here, its exit would leave them
    // idle for up to the whole wait. With nothing held, nothing here can free up meanwhile.
    if (cfg.server.use_extensions && pool.idle()) c.wait_seconds = cfg.poll.long_poll_seconds;
    return c;
}

void worker_fsm::impl::try_claim()
{
    if (!claim_possible() || now < claim_not_before) return;
    claim = send(fresh_claim({}));
    claim_sent_at = now;
}

void worker_fsm::impl::on(worker::jobs_claimed const& e, worker_action const& sent)
{
    claim.reset();
    if (e.jobs.empty()) {
        last_claim_empty = true;
        status_wanted = jobs.empty();  // with jobs live the workflow cannot be complete
        claim_no_progress(claim_sent_at);
        return;
    }
    last_claim_empty = false;
    idle_since.reset();
    auto const limit = std::get<worker::claim_jobs>(sent).limit;
    std::size_t accepted = 0;
    std::size_t extra = 0;
    for (auto const& job : e.jobs) {
        if (auto const held = jobs.find(job.id); held != jobs.end() &&
                                                  held->second.phase == job_phase::retrying &&
                                                  job.attempt_id > held->second.job.attempt_id) {
            reclaimed.insert_or_assign(job.id, job);
            continue;
        }
        if (jobs.contains(job.id)) {
            say(log_severity::error,
                "claim: job " + std::to_string(job.id) + " is already held here; ignored");
            continue;
        }
        ++ledger.claimed;
        auto& entry = jobs.emplace(job.id, job_entry{.job = job}).first->second;
        if (accepted == limit) {
            ++extra;
            hand_back(entry, log_severity::warning, "");  // one line for all, below
        } else if (stage != worker_stage::running) {
            hand_back(entry, log_severity::info, "the worker is stopping");
        } else {
            ++accepted;
            batch.push_back(job.id);
        }
    }
    if (extra > 0)
        say(log_severity::warning, "claim: the server returned " + std::to_string(e.jobs.size()) +
                                       " jobs for a limit of " + std::to_string(limit) + "; " +
                                       std::to_string(extra) + " handed back");
    fetch_requirements();
}

void worker_fsm::impl::fetch_requirements()
{
    for (auto const id : batch) {
        auto const rr = jobs.at(id).job.resource_requirements_id;
        if (resources.contains(rr) || fetching_resources.contains(rr)) continue;
        fetching_resources.insert(rr);
        send(worker::read_requirements{{}, rr});
    }
    place_batch();
}

void worker_fsm::impl::on(worker::requirements_read const& e, worker_action const& sent)
{
    auto const rr = std::get<worker::read_requirements>(sent).requirements_id;
    fetching_resources.erase(rr);
    auto& cached = resources[rr] = e.resources;
    cached.id = rr;
    place_batch();
}

void worker_fsm::impl::requirements_failed(std::int64_t requirements_id, std::string const& why)
{
    fetching_resources.erase(requirements_id);
    for (auto const id : batch) {
        auto const it = jobs.find(id);
        if (it == jobs.end()) continue;
        auto& job = it->second;
        if (job.phase == job_phase::requirements &&
            job.job.resource_requirements_id == requirements_id)
            hand_back(
                job, log_severity::error,
                "resource requirements " + std::to_string(requirements_id) + " unread: " + why);
    }
    place_batch();
}

// Places the claimed jobs in the server's order once all their requirements are known.
void worker_fsm::impl::place_batch()
{
    if (!fetching_resources.empty()) return;
    bool placed = false;
    bool refused = false;
    for (auto const id : std::exchange(batch, {})) {
        auto const it = jobs.find(id);  // one handed back meanwhile may be gone
        if (it == jobs.end() || it->second.phase != job_phase::requirements) continue;
        auto& job = it->second;
        if (stage != worker_stage::running) {
            hand_back(job, log_severity::info, "the worker is stopping");
            continue;
        }
        auto const& need = resources.at(job.job.resource_requirements_id).need;
        auto const verdict = pool.check(need);
        if (verdict == fit::now) {
            job.placement = pool.reserve(need, reservation_id{id});
            job.phase = job_phase::starting;
            send(worker::start_job{{}, id});
            placed = true;
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
    if (it == jobs.end() || it->second.phase != job_phase::starting) return;
    auto& job = it->second;
    if (stage != worker_stage::running) {
        hand_back(job, log_severity::info, "the worker is stopping");
        return;
    }
    job.phase = job_phase::spawning;
    std::optional<double> left;
    if (end_at) left = std::chrono::duration<double>(*end_at - now).count();
    out.push_back(worker::spawn{job.job, resources.at(job.job.resource_requirements_id),
                                *job.placement, run_id, left});
}

void worker_fsm::impl::hand_back(job_entry& job, log_severity level, std::string const& why)
{
    if (job.placement) {
        pool.release(reservation_id{job.job.id});
        job.placement.reset();
    }
    job.phase = job_phase::handing_back;
    if (!why.empty()) say(level, "job " + std::to_string(job.job.id) + ": handed back: " + why);
    send(worker::hand_back{{}, job.job.id});
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

void worker_fsm::impl::claim_refused(std::string const& why)
{
    claim.reset();
    say(log_severity::error, "claim: refused: " + why);
    claim_no_progress(now);
}

// Something changed that may make jobs claimable: claim at once, and count idle time afresh.
void worker_fsm::impl::claim_progress()
{
    last_claim_empty = false;
    claim_delay = cfg.poll.min_interval_seconds;
    claim_not_before = now;
}

void worker_fsm::impl::claim_no_progress(fsm_time from)
{
    claim_not_before = from + seconds(claim_delay);
    claim_delay = std::min(claim_delay * 2, cfg.poll.interval_seconds);
}

void worker_fsm::impl::try_status_check()
{
    if (status_check) return;
    if (!status_wanted && now < last_status_check + seconds(cfg.poll.interval_seconds)) return;
    status_wanted = false;
    last_status_check = now;
    status_check = send(worker::check_workflow{});
}

void worker_fsm::impl::on(worker::workflow_state_read const& e, worker_action const&)
{
    status_check.reset();
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

void worker_fsm::impl::check_idle()
{
    if (cfg.limits.idle_timeout_seconds <= 0 || !jobs.empty() || !last_claim_empty) {
        idle_since.reset();
        return;
    }
    if (!idle_since) idle_since = now;
    if (now < *idle_since + seconds(cfg.limits.idle_timeout_seconds)) return;
    say(log_severity::info,
        "worker: idle for " + format_seconds(cfg.limits.idle_timeout_seconds) + " s; stopping");
    drain(stop_reason::idle);
}

}  // namespace torcrun::core
