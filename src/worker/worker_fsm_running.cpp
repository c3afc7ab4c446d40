// One job's life after start_job, and its report: spawn, exit (resources released at once), the
// attempt's result and status, output files, failure handlers (docs/TORC-COMPATIBILITY.md §3.3),
// runtime and memory enforcement, stopping a job (its signal, the grace, SIGKILL); then reporting
// attempts: completions in one batch at a time where the server has batch completion (the
// extension; a 404 falls back to complete_job per job), records of retried attempts through
// POST /results. A report whose request fails transiently is journaled at once, and so is one
// queued behind a failed batch, so a crash loses no result; it is removed from the journal once
// the server accepts or refuses it.
#include "worker_fsm_impl.hpp"

#include "torcrun/common/units.hpp"
#include "torcrun/worker/claim_ahead.hpp"
#include "worker_text.hpp"

#include <boost/assert.hpp>

#include <algorithm>
#include <csignal>
#include <utility>

namespace torcrun::core {

namespace {

std::string job_name(std::int64_t id) { return "job " + std::to_string(id); }

}  // namespace

// The job and its phase when it is in `Phase`; otherwise a warning that `what` was ignored.
template <class Phase>
std::pair<job_entry*, Phase*> worker_fsm::impl::live(std::int64_t job_id, std::string_view what)
{
    if (auto const it = jobs.find(job_id); it != jobs.end())
        if (auto* phase = it->second.in<Phase>()) return {&it->second, phase};
    say(log_severity::warning, job_name(job_id) + ": " + std::string(what) + " ignored");
    return {nullptr, nullptr};
}

void worker_fsm::impl::on(worker::job_spawned const& e)
{
    auto const [job, spawning] = live<job_state::spawning>(e.job_id, "spawned while not starting:");
    if (!job) return;
    auto placement = std::move(spawning->placement);  // emplace destroys `spawning` first
    auto& run = job->state.emplace<job_state::running>(
        job_state::running{.placement = std::move(placement), .spawned_at = now});
    ++ledger.started;
    auto const& res = claims.requirements.at(job->job.resource_requirements_id);
    if (cfg.limits.runtime_factor && res.runtime_seconds && *res.runtime_seconds > 0)
        run.limit_at = after(*cfg.limits.runtime_factor * *res.runtime_seconds);
    say(log_severity::info, job_name(e.job_id) +
                                ": started attempt=" + std::to_string(job->job.attempt_id) +
                                " on " + describe_placement(run.placement));
    if (orphan_spawned(*job, run)) return;
    if (terminating()) stop_job(e.job_id, run, stop_cause::drain);
}

void worker_fsm::impl::on(worker::spawn_failed const& e)
{
    auto const [job, spawning] =
        live<job_state::spawning>(e.job_id, "spawn failure while not starting:");
    if (!job) return;
    if (lease.orphans.contains(e.job_id)) {  // of a lost lease: nothing to hand back
        pool.release(reservation_id{e.job_id});
        lease.orphans.erase(e.job_id);
        jobs.erase(e.job_id);
        ++ledger.lease_lost;
        say(log_severity::warning, job_name(e.job_id) + ": spawn failed: " + e.message);
        if (lease.orphans.empty()) claim_progress();
        return;
    }
    if (e.worker_fault) return spawn_refused_here(*job, e.message);
    if (e.too_late) {
        // Back to ready for an allocation with time (Torc reverts it); no claims from here on:
        // every step would be as late, and a claim would only hand back again.
        hand_back(*job, log_severity::info, e.message);
        if (!claims.too_late_for_steps)
            say(log_severity::info, "worker: stops claiming: " + e.message);
        claims.too_late_for_steps = true;
        return;
    }
    // Handed back, it would come straight back to this worker and fail again without end: the
    // attempt is over, failed, and the failure rules and max_retries decide what follows.
    pool.release(reservation_id{e.job_id});
    auto r = attempt_result(*job);
    r.status = result_status::failed;
    r.return_code = spawn_failed_exit_code;
    say(log_severity::error, job_name(e.job_id) + ": failed rc=" + std::to_string(r.return_code) +
                                 " (its process could not start: " + e.message + ")");
    claim_progress();
    attempt_over(*job, std::move(r));
}

// The worker itself cannot start jobs (its disk is full, its descriptors are gone): the job is
// not at fault, so it goes back to the server for a healthy worker, and this one claims nothing
// more - handed back and claimed again here, it would fail again at once, and failed, one broken
// node would empty the queue. Running jobs finish; the exit status says the worker failed.
void worker_fsm::impl::spawn_refused_here(job_entry& job, std::string const& why)
{
    hand_back(job, log_severity::error, "this worker cannot start jobs: " + why);
    if (stage != worker_stage::running) return;
    say(log_severity::error, "worker: stops claiming: it cannot start jobs (" + why +
                                 "); the jobs it runs finish, then it exits " +
                                 std::to_string(worker_fault_exit_code));
    exit_code = worker_fault_exit_code;
    drain(stop_reason::worker_fault);
}

// The identity and times of the job's attempt ending now; status and return code are the
// caller's.
job_result worker_fsm::impl::attempt_result(job_entry const& job) const
{
    job_result r{};
    r.job_id = job.job.id;
    r.workflow_id = workflow_id;
    r.run_id = startup.run_id;
    r.attempt_id = job.job.attempt_id;
    r.compute_node_id = startup.compute_node_id.value_or(0);
    r.completion_time = unix_at(now);
    return r;
}

// The attempt's status and return code from how it ended and why the worker stopped it
// (docs/TORC-COMPATIBILITY.md §3.2): a runtime kill is termination.timeout_exit_code (152)
// terminated, a memory kill limits.oom_exit_code (137) failed, a drain terminated (canceled for a
// canceled workflow), and a job SIGKILLed at the end time gets termination.timeout_exit_code as
// in Torc's direct mode (one that exits on the signal keeps its own code); an exit 0 after a stop
// signal is completed. A slurm-mode step the worker stops for the allocation's end (the end-time
// drain or Slurm's USR1 warning) gets termination.timeout_exit_code whatever its own code: Torc
// gives each step an `srun --time` that ends before the allocation, so there Slurm's TIMEOUT
// ends it, 152; torcrun's drain comes a little earlier, to leave time for the report. A slurm-mode step starts from Slurm's verdict (step_exit.hpp: OOM failed, time limit
// terminated unless the job exited 0, canceled from outside terminated with the job's own code),
// with the configured codes. A direct-mode job that exits non-zero while Slurm says its
// allocation is ending (job_exited::allocation_ending) is terminated with its own code, as if
// the worker's drain had stopped it: an external scancel gets one verdict whatever the timing.
job_result worker_fsm::impl::classify(job_entry const& job, job_state::running const& run,
                                      worker::job_exited const& e) const
{
    auto r = attempt_result(job);
    r.exec_time_minutes = std::chrono::duration<double>(now - run.spawned_at).count() / 60;
    r.usage = e.usage;
    r.nodes = e.nodes;
    for (auto const& share : run.placement.nodes)
        r.gpu_ids.insert(r.gpu_ids.end(), share.gpu_ids.begin(), share.gpu_ids.end());
    auto const timeout_code = cfg.termination.timeout_exit_code;
    r.return_code = e.step ? e.step->return_code : e.status.return_code();
    // Slurm's time limit and OOM codes are the configured ones; a job that handled the
    // time-limit signal and exited 0 keeps its 0 (Torc: `"TIMEOUT" if return_code != 0`).
    if (e.step && e.step->cause == step_cause::time_limit && r.return_code != 0)
        r.return_code = timeout_code;
    if (e.step && e.step->cause == step_cause::out_of_memory)
        r.return_code = cfg.limits.oom_exit_code;
    bool const zero = r.return_code == 0;
    r.status = e.step ? e.step->status : zero ? result_status::completed : result_status::failed;
    if (run.cause == stop_cause::runtime && !zero) {
        r.status = result_status::terminated;
        r.return_code = timeout_code;
    } else if (run.cause == stop_cause::memory) {
        r.status = result_status::failed;
        r.return_code = cfg.limits.oom_exit_code;
    } else if (run.cause == stop_cause::drain && !zero) {
        r.status = reason == stop_reason::workflow_canceled ? result_status::canceled
                                                            : result_status::terminated;
        if (stopping.for_time_limit && (run.killed || e.step)) r.return_code = timeout_code;
    } else if (run.cause == stop_cause::none && !zero && !e.allocation_ending.empty()) {
        // Direct mode: the allocation was ended from outside (scancel, preemption, its time
        // limit) and its SIGTERM reached the job before the worker's own SIGTERM was handled.
        // The verdict is the one a drain gives (Torc's terminate_jobs), whichever came first.
        r.status = result_status::terminated;
    }
    return r;
}

void worker_fsm::impl::on(worker::job_exited const& e)
{
    auto const [job, run] = live<job_state::running>(e.job_id, "exit while not running:");
    if (!job || orphan_exited(e.job_id)) return;
    pool.release(reservation_id{e.job_id});
    claims.job_seconds = moving_average(
        claims.job_seconds, std::chrono::duration<double>(now - run->spawned_at).count());
    auto r = classify(*job, *run, e);
    bool const zero = r.return_code == 0;
    say(zero ? log_severity::info : log_severity::warning,
        job_name(e.job_id) + ": " + std::string(to_string(r.status)) +
            " rc=" + std::to_string(r.return_code) + " (" + e.status.describe() +
            (e.step && !e.step->evidence.empty() ? "; " + e.step->evidence : "") +
            (e.allocation_ending.empty() ? "" : "; " + e.allocation_ending) + ")");
    claim_progress();
    if (run->cause == stop_cause::none && zero && !job->job.output_file_ids.empty()) {
        job->state = job_state::checking_outputs{std::move(r)};
        out.push_back(worker::check_outputs{e.job_id, job->job.output_file_ids});
        return;
    }
    attempt_over(*job, std::move(r));
}

void worker_fsm::impl::on(worker::outputs_checked const& e)
{
    auto const [job, checking] =
        live<job_state::checking_outputs>(e.job_id, "output check while not checking:");
    if (!job) return;
    auto result = std::move(checking->result);
    if (!e.missing.empty()) {
        result.return_code = 1;
        result.status = result_status::failed;
        say(log_severity::warning, job_name(e.job_id) + ": failed rc=1 (missing output files: " +
                                       join(e.missing, ", ") + ")");
    }
    attempt_over(*job, std::move(result));
}

void worker_fsm::impl::on(worker::memory_used const& e)
{
    auto const [job, run] = live<job_state::running>(e.job_id, "memory report while not running:");
    if (!job || run->cause == stop_cause::memory || !cfg.limits.enforce_memory) return;
    auto const& need = claims.requirements.at(job->job.resource_requirements_id).need;
    if (need.memory_bytes == 0 || e.used_bytes <= need.memory_bytes) return;
    say(log_severity::warning, job_name(e.job_id) + ": uses " + format_size(e.used_bytes) +
                                   ", more than its " + format_size(need.memory_bytes) +
                                   "; SIGKILL");
    run->cause = stop_cause::memory;
    run->killed = true;
    out.push_back(worker::signal_job{e.job_id, SIGKILL});
}

// A failed attempt goes through the failure handler while the worker runs; otherwise, and for
// every other status, it is reported as it is.
void worker_fsm::impl::attempt_over(job_entry& job, job_result result)
{
    if (result.status != result_status::failed || stage != worker_stage::running) {
        job.state = job_state::reporting{};
        queue_report({report_kind::complete, std::move(result)});
        return;
    }
    auto const handler_id = job.job.failure_handler_id;
    if (!handler_id) {
        decide_failure(job, std::move(result), nullptr);
    } else if (auto const it = retries.handlers.find(*handler_id); it != retries.handlers.end()) {
        decide_failure(job, std::move(result), &it->second);
    } else {
        job.state = job_state::fetching_handler{std::move(result)};
        if (retries.fetching_handlers.insert(*handler_id).second)
            send(worker::read_failure_handler{{}, *handler_id});
    }
}

void worker_fsm::impl::decide_failure(job_entry& job, job_result result,
                                      failure_handler const* handler)
{
    auto const rc = result.return_code;
    auto const* rule = handler ? match_rule(*handler, rc) : nullptr;
    if (rule && job.job.attempt_id < rule->max_retries) {
        job.state = job_state::retrying{std::move(result), *rule};
        send(worker::retry_job{{}, job.job.id, rule->max_retries, job.job.attempt_id});
        return;
    }
    if (!rule && startup.use_pending_failed) {
        result.status = result_status::pending_failed;
        say(log_severity::info, job_name(job.job.id) + ": no failure rule matches rc=" +
                                    std::to_string(rc) + "; pending_failed");
    } else if (rule) {
        say(log_severity::info,
            job_name(job.job.id) + ": attempt " + std::to_string(job.job.attempt_id) +
                " reached max_retries=" + std::to_string(rule->max_retries) + "; failed");
    }
    job.state = job_state::reporting{};
    queue_report({report_kind::complete, std::move(result)});
}

void worker_fsm::impl::on(worker::failure_handler_read const& e, worker_action const& sent)
{
    auto const id = std::get<worker::read_failure_handler>(sent).handler_id;
    retries.fetching_handlers.erase(id);
    auto& handler = retries.handlers[id] = e.handler;
    handler.id = id;
    for (auto& [job_id, job] : jobs)
        if (auto* waiting = job.in<job_state::fetching_handler>();
            waiting && job.job.failure_handler_id == id)
            decide_failure(job, std::move(waiting->result), &handler);
}

void worker_fsm::impl::handler_failed(std::int64_t handler_id, std::string const& why)
{
    retries.fetching_handlers.erase(handler_id);
    say(log_severity::warning,
        "failure handler " + std::to_string(handler_id) + ": unread, no retry: " + why);
    for (auto& [job_id, job] : jobs)
        if (auto* waiting = job.in<job_state::fetching_handler>();
            waiting && job.job.failure_handler_id == handler_id)
            decide_failure(job, std::move(waiting->result), nullptr);
}

// The retry was accepted: the job is `ready` again with attempt_id + 1. The failed attempt keeps
// its result record (POST /results; Torc v0.10 loses it), then the recovery script runs.
void worker_fsm::impl::on_retried(std::int64_t job_id, bool accepted, std::string const& why)
{
    auto const it = jobs.find(job_id);  // its retry_job request keeps it in this phase
    BOOST_ASSERT(it != jobs.end() && it->second.phase() == job_phase::retrying);
    auto* job = &it->second;
    auto retrying = std::get<job_state::retrying>(std::move(job->state));
    auto const name = job_name(job_id);
    if (!accepted) {
        say(log_severity::warning, name + ": retry refused, reported failed: " + why);
        retries.reclaimed.erase(job_id);
        job->state = job_state::reporting{};
        queue_report({report_kind::complete, std::move(retrying.result)});
        return;
    }
    auto const& rule = retrying.rule;
    auto const& result = retrying.result;
    say(log_severity::info, name + ": retried after rc=" + std::to_string(result.return_code) +
                                " (attempt " + std::to_string(job->job.attempt_id) + " of " +
                                std::to_string(rule.max_retries) + ")");
    queue_report({report_kind::record, result});
    if (rule.recovery_script)
        out.push_back(worker::run_recovery{job_id, job->job.name, job->job.attempt_id,
                                           result.return_code, *rule.recovery_script});
    ++ledger.retried;
    jobs.erase(job_id);
    if (auto next = retries.reclaimed.extract(job_id)) admit_reclaimed(std::move(next.mapped()));
    claim_progress();
}

// The retry was fenced off (409): the failed attempt is not this worker's to retry (the lease
// sweep ended it, or another node holds the job), and it is dropped. A next attempt that a claim
// of this worker returned in the meantime is this worker's all the same, and runs.
void worker_fsm::impl::retry_fenced_off(std::int64_t job_id, std::string const& why)
{
    auto next = retries.reclaimed.extract(job_id);
    fenced_off(job_id, why);
    if (!next) return;
    admit_reclaimed(std::move(next.mapped()));
    claim_progress();
}

// A job's next attempt that a claim returned while its retry was open, now held here.
void worker_fsm::impl::admit_reclaimed(claimed_job next)
{
    auto const job_id = next.id;
    ++ledger.claimed;
    disown_requests(job_id);
    auto& entry = jobs.emplace(job_id, job_entry{.job = std::move(next)}).first->second;
    if (stage != worker_stage::running) {
        hand_back(entry, log_severity::info, "the worker is stopping");
    } else {
        claims.batch.push_back(job_id);
        fetch_requirements();
    }
}

void worker_fsm::impl::job_timers()
{
    for (auto& [id, job] : jobs) {
        auto* run = job.in<job_state::running>();
        if (!run) continue;
        if (run->cause == stop_cause::none && run->limit_at && now >= *run->limit_at) {
            auto const runtime =
                *claims.requirements.at(job.job.resource_requirements_id).runtime_seconds;
            auto const factor = *cfg.limits.runtime_factor;
            say(log_severity::warning, job_name(id) + ": running longer than " +
                                           format_seconds(factor * runtime) + " s (" +
                                           format_seconds(factor) + " x its runtime of " +
                                           format_seconds(runtime) + " s); stopping it");
            stop_job(id, *run, stop_cause::runtime);
        }
        if (run->kill_at && !run->killed && now >= *run->kill_at) {
            run->killed = true;
            say(log_severity::warning, job_name(id) + ": still running after the grace; SIGKILL");
            out.push_back(worker::signal_job{id, SIGKILL});
        }
    }
}

// The configured signal, then SIGKILL after the grace; SIGKILL at once after a second SIGINT or
// with no grace (Torc's sigterm_lead_seconds 0, where Torc itself would wait unbounded).
void worker_fsm::impl::stop_job(std::int64_t job_id, job_state::running& run, stop_cause cause)
{
    if (run.cause == stop_cause::none) run.cause = cause;
    if (run.killed) return;
    if (stopping.graceless || cfg.termination.grace_seconds <= 0) {
        run.killed = true;
        out.push_back(worker::signal_job{job_id, SIGKILL});
    } else if (!run.kill_at) {
        out.push_back(worker::signal_job{job_id, cfg.termination.signal});
        run.kill_at = after(cfg.termination.grace_seconds);
    }
}

// ---- reporting

namespace {

constexpr std::size_t max_batch = 1000;

worker::report_key key_of(job_report const& r)
{
    return {r.kind, r.result.job_id, r.result.attempt_id};
}

}  // namespace

void worker_fsm::impl::queue_report(job_report report)
{
    reports.pending.push_back({std::move(report), false, std::nullopt});
}

void worker_fsm::impl::flush_reports()
{
    if (stage == worker_stage::stopped) return;
    std::vector<pending_report*> batched;
    for (auto& r : reports.pending) {
        if (r.request) continue;
        auto const& result = r.report.result;
        if (r.report.kind == report_kind::record) {
            r.request = send(worker::record_result{{}, result});
        } else if (!reports.batch_supported) {
            r.request = send(worker::complete_job{{}, result});
        } else if (!reports.batch_request && batched.size() < max_batch) {
            batched.push_back(&r);
        }
    }
    if (batched.empty()) {
        journal_waiting();
        return;
    }
    std::vector<job_result> results;
    for (auto const* r : batched) results.push_back(r->report.result);
    if (reports.exchange_supported && claim_due()) {
        // One round trip: the completions, then the claim of what is free after them (their
        // dependents included). It never waits: the completions' answer must not be held back.
        auto claim = fresh_claim({});
        claim.wait_seconds = 0;
        reports.batch_request = send(worker::complete_and_claim{{}, std::move(results), claim});
        claims.request = reports.batch_request;
        claims.sent_at = now;
        claims.sent_waits = false;
    } else {
        reports.batch_request = send(worker::complete_jobs{{}, std::move(results)});
    }
    for (auto* r : batched) r->request = reports.batch_request;
}

// A report queued behind a batch that failed waits as long as the server is away, possibly
// minutes: it is journaled like the batch, so that a crash meanwhile loses it neither.
void worker_fsm::impl::journal_waiting()
{
    if (!reports.batch_request) return;
    auto const failed = [&](pending_report const& r) {
        return r.request == reports.batch_request && r.journaled;
    };
    if (std::ranges::none_of(reports.pending, failed)) return;
    worker::journal_append append;
    for (auto& r : reports.pending) {
        if (r.request || r.journaled) continue;
        r.journaled = true;
        append.reports.push_back(r.report);
    }
    if (!append.reports.empty()) out.push_back(std::move(append));
}

void worker_fsm::impl::on(worker::jobs_reported const& e, worker_action const&)
{
    reports.batch_request.reset();
    std::vector<worker::report_key> unjournal;
    for (auto it = reports.pending.begin(); it != reports.pending.end();) {
        if (it->request != e.request) {
            ++it;
            continue;
        }
        auto const job_id = it->report.result.job_id;
        bool const accepted = std::ranges::find(e.completed, job_id) != e.completed.end();
        std::string why = "absent from the server's reply";
        auto const refusal =
            std::ranges::find(e.rejected, job_id, &worker::rejected_report::job_id);
        bool fenced = false;
        if (refusal != e.rejected.end()) {
            why = refusal->message;
            fenced = refusal->http_status == 409;
        }
        settle(*it, accepted, why, fenced, unjournal);
        it = reports.pending.erase(it);
    }
    if (!unjournal.empty()) out.push_back(worker::journal_remove{std::move(unjournal)});
}

// complete_and_claim answered: the completions first (their dependents may be among the jobs
// claimed), then the claim as claim_jobs' own answer, or its refusal.
void worker_fsm::impl::on(worker::completed_and_claimed const& e, worker_action const& sent)
{
    auto const& exchange = std::get<worker::complete_and_claim>(sent);
    auto reported = e.reported;
    reported.request = e.request;
    on(reported, sent);
    if (e.claim_error) return claim_refused(e.claim_error->message, e.claim_error->http_status);
    auto claimed = e.claimed;
    claimed.request = e.request;
    on(claimed, worker_action{exchange.claim});
}

// complete_and_claim refused as a whole: nothing of it was applied. A server without the route
// (404, 405, 501: a Torc server, an older torcrun) gets completions and claims separately from
// now on; any other refusal is the batch's (the server answers a refused claim inside a 200),
// so the completions go again alone, as complete_jobs, and get their own verdicts.
void worker_fsm::impl::exchange_refused(worker::request_failed const& e)
{
    bool const unsupported = e.http_status == 404 || e.http_status == 405 || e.http_status == 501;
    if (unsupported) {
        say(log_severity::warning, "server: no complete_and_claim_jobs (HTTP " +
                                       std::to_string(e.http_status) +
                                       "); completions and claims go separately");
        reports.exchange_supported = false;
    } else {
        say(log_severity::warning, "server: completions with a claim refused (" + e.message +
                                       "); sending the completions alone");
    }
    reports.batch_request.reset();
    for (auto& r : reports.pending)
        if (r.request == e.request) r.request.reset();
    claim_answered();
    if (unsupported) {
        claim_progress();
    } else {
        claim_no_progress(now);
    }
}

void worker_fsm::impl::report_done(request_id id, bool accepted, std::string const& why,
                                   bool fenced)
{
    std::vector<worker::report_key> unjournal;
    for (auto it = reports.pending.begin(); it != reports.pending.end();) {
        if (it->request != id) {
            ++it;
            continue;
        }
        settle(*it, accepted, why, fenced, unjournal);
        it = reports.pending.erase(it);
    }
    if (!unjournal.empty()) out.push_back(worker::journal_remove{std::move(unjournal)});
}

// The end of one report: the job (if this worker still holds it) leaves the table. A fenced
// refusal (409) is a warning: the job went on elsewhere, so its result here is stale.
void worker_fsm::impl::settle(pending_report const& entry, bool accepted, std::string const& why,
                              bool fenced, std::vector<worker::report_key>& unjournal)
{
    auto const& result = entry.report.result;
    if (entry.journaled) unjournal.push_back(key_of(entry.report));
    auto const name = "job " + std::to_string(result.job_id);
    if (entry.report.kind == report_kind::record) {
        if (!accepted)
            say(log_severity::error, name + ": the record of attempt " +
                                         std::to_string(result.attempt_id) +
                                         " was refused: " + why);
        return;
    }
    if (!accepted && fenced) {
        say(log_severity::warning, name + ": not this worker's any more; result dropped: " + why);
    } else if (!accepted) {
        say(log_severity::error, name + ": its result was refused: " + why);
    }
    if (accepted) lease.losses_in_row = 0;  // the server keeps this worker's work
    auto const it = jobs.find(result.job_id);
    if (it == jobs.end() || it->second.phase() != job_phase::reporting ||
        it->second.job.attempt_id != result.attempt_id)
        return;  // a journaled result of an earlier worker
    if (accepted && result.return_code == 0 &&
        stdio_of(cfg, it->second.job.name).delete_on_success)
        out.push_back(worker::delete_output{result.job_id, it->second.job.name, result.run_id,
                                            result.attempt_id});
    jobs.erase(it);
    if (accepted) {
        ++ledger.reported;
        claim_progress();  // its dependents may be ready now
    } else if (fenced) {
        ++ledger.fenced_off;
    } else {
        ++ledger.rejected;
    }
}

void worker_fsm::impl::batch_refused(worker::request_failed const& e)
{
    bool const unsupported = e.http_status == 404 || e.http_status == 405 || e.http_status == 501;
    if (!unsupported) {
        reports.batch_request.reset();
        report_done(e.request, false, e.message);
        return;
    }
    say(log_severity::warning, "server: no batch completion (HTTP " +
                                   std::to_string(e.http_status) +
                                   "); reporting each job with complete_job");
    reports.batch_supported = false;
    reports.batch_request.reset();
    for (auto& r : reports.pending)
        if (r.request == e.request) r.request.reset();
}

void worker_fsm::impl::report_failed(request_id id)
{
    worker::journal_append append;
    for (auto& r : reports.pending) {
        if (r.request != id || r.journaled) continue;
        r.journaled = true;
        append.reports.push_back(r.report);
    }
    if (!append.reports.empty()) out.push_back(std::move(append));
}

void worker_fsm::impl::journal_unsent()
{
    worker::journal_append append;
    for (auto& r : reports.pending) {
        if (r.journaled) continue;
        r.journaled = true;
        append.reports.push_back(r.report);
    }
    if (!append.reports.empty()) out.push_back(std::move(append));
}

}  // namespace torcrun::core
