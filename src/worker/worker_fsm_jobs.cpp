// One job's life after start_job: spawn, exit (resources released at once), the attempt's result
// and status, output files, failure handlers (docs/TORC-COMPATIBILITY.md §3.3), runtime and memory
// enforcement, and stopping a job (its signal, the grace, SIGKILL).
#include "worker_fsm_impl.hpp"

#include "torcrun/common/units.hpp"
#include "worker_text.hpp"

#include <boost/assert.hpp>

#include <csignal>

namespace torcrun::core {
namespace {

constexpr int timeout_exit_code = 152;  // 128 + SIGXCPU, Slurm's TIMEOUT convention
constexpr int oom_exit_code = 137;      // 128 + SIGKILL

std::string job_name(std::int64_t id) { return "job " + std::to_string(id); }

}  // namespace

job_entry* worker_fsm::impl::live(std::int64_t job_id, job_phase phase, std::string_view what)
{
    auto const it = jobs.find(job_id);
    if (it != jobs.end() && it->second.phase == phase) return &it->second;
    say(log_severity::warning, job_name(job_id) + ": " + std::string(what) + " ignored");
    return nullptr;
}

void worker_fsm::impl::on(worker::job_spawned const& e)
{
    auto* job = live(e.job_id, job_phase::spawning, "spawned while not starting:");
    if (!job) return;
    job->phase = job_phase::running;
    job->spawned_at = now;
    ++ledger.started;
    auto const& res = resources.at(job->job.resource_requirements_id);
    if (cfg.limits.runtime_factor && res.runtime_seconds && *res.runtime_seconds > 0)
        job->limit_at = after(*cfg.limits.runtime_factor * *res.runtime_seconds);
    say(log_severity::info, job_name(e.job_id) +
                                ": started attempt=" + std::to_string(job->job.attempt_id) +
                                " on " + describe_placement(*job->placement));
    if (terminating()) stop_job(*job, stop_cause::drain);
}

void worker_fsm::impl::on(worker::spawn_failed const& e)
{
    auto* job = live(e.job_id, job_phase::spawning, "spawn failure while not starting:");
    if (job) hand_back(*job, log_severity::error, "spawn failed: " + e.message);
}

// The attempt's status and return code from how it ended and why the worker stopped it
// (docs/TORC-COMPATIBILITY.md §3.2): a runtime kill is 152 terminated, a memory kill 137 failed, a
// drain terminated (canceled for a canceled workflow); an exit 0 after a stop signal is completed.
// A slurm-mode step starts from Slurm's verdict (OOM 137 failed, time limit 152 terminated).
void worker_fsm::impl::classify(job_entry& job, worker::job_exited const& e) const
{
    auto& r = job.result;
    r.return_code = e.step ? e.step->return_code : e.status.return_code();
    bool const zero = r.return_code == 0;
    r.status = e.step ? e.step->status : zero ? result_status::completed : result_status::failed;
    if (job.cause == stop_cause::runtime && !zero) {
        r.status = result_status::terminated;
        r.return_code = timeout_exit_code;
    } else if (job.cause == stop_cause::memory) {
        r.status = result_status::failed;
        r.return_code = oom_exit_code;
    } else if (job.cause == stop_cause::drain && !zero) {
        r.status = reason == stop_reason::workflow_canceled ? result_status::canceled
                                                            : result_status::terminated;
    }
}

void worker_fsm::impl::on(worker::job_exited const& e)
{
    auto* job = live(e.job_id, job_phase::running, "exit while not running:");
    if (!job) return;
    pool.release(reservation_id{e.job_id});
    job->placement.reset();
    auto& r = job->result;
    r.job_id = e.job_id;
    r.workflow_id = workflow_id;
    r.run_id = run_id;
    r.attempt_id = job->job.attempt_id;
    r.compute_node_id = compute_node_id.value_or(0);
    r.exec_time_minutes = std::chrono::duration<double>(now - job->spawned_at).count() / 60;
    r.completion_time = unix_at(now);
    r.usage = e.usage;
    classify(*job, e);
    bool const zero = r.return_code == 0;
    say(zero ? log_severity::info : log_severity::warning,
        job_name(e.job_id) + ": " + std::string(to_string(r.status)) +
            " rc=" + std::to_string(r.return_code) + " (" + e.status.describe() +
            (e.step && !e.step->evidence.empty() ? "; " + e.step->evidence : "") + ")");
    claim_progress();
    if (job->cause == stop_cause::none && zero && !job->job.output_file_ids.empty()) {
        job->phase = job_phase::outputs;
        out.push_back(worker::check_outputs{e.job_id, job->job.output_file_ids});
        return;
    }
    attempt_over(*job);
}

void worker_fsm::impl::on(worker::outputs_checked const& e)
{
    auto* job = live(e.job_id, job_phase::outputs, "output check while not checking:");
    if (!job) return;
    if (!e.missing.empty()) {
        job->result.return_code = 1;
        job->result.status = result_status::failed;
        say(log_severity::warning, job_name(e.job_id) + ": failed rc=1 (missing output files: " +
                                       join(e.missing, ", ") + ")");
    }
    attempt_over(*job);
}

void worker_fsm::impl::on(worker::memory_used const& e)
{
    auto* job = live(e.job_id, job_phase::running, "memory report while not running:");
    if (!job || job->cause == stop_cause::memory || !cfg.limits.enforce_memory) return;
    auto const& need = resources.at(job->job.resource_requirements_id).need;
    if (need.memory_bytes == 0 || e.used_bytes <= need.memory_bytes) return;
    say(log_severity::warning, job_name(e.job_id) + ": uses " + format_size(e.used_bytes) +
                                   ", more than its " + format_size(need.memory_bytes) +
                                   "; SIGKILL");
    job->cause = stop_cause::memory;
    job->killed = true;
    out.push_back(worker::signal_job{e.job_id, SIGKILL});
}

// A failed attempt goes through the failure handler while the worker runs; otherwise, and for
// every other status, it is reported as it is.
void worker_fsm::impl::attempt_over(job_entry& job)
{
    if (job.result.status != result_status::failed || stage != worker_stage::running) {
        job.phase = job_phase::reporting;
        queue_report({report_kind::complete, job.result});
        return;
    }
    auto const handler_id = job.job.failure_handler_id;
    if (!handler_id) {
        decide_failure(job, nullptr);
    } else if (auto const it = handlers.find(*handler_id); it != handlers.end()) {
        decide_failure(job, &it->second);
    } else {
        job.phase = job_phase::handler;
        if (fetching_handlers.insert(*handler_id).second)
            send(worker::read_failure_handler{{}, *handler_id});
    }
}

void worker_fsm::impl::decide_failure(job_entry& job, failure_handler const* handler)
{
    auto const rc = job.result.return_code;
    auto const* rule = handler ? match_rule(*handler, rc) : nullptr;
    if (rule && job.job.attempt_id < rule->max_retries) {
        job.phase = job_phase::retrying;
        job.retry_rule = *rule;
        send(worker::retry_job{{}, job.job.id, rule->max_retries});
        return;
    }
    if (!rule && use_pending_failed) {
        job.result.status = result_status::pending_failed;
        say(log_severity::info, job_name(job.job.id) + ": no failure rule matches rc=" +
                                    std::to_string(rc) + "; pending_failed");
    } else if (rule) {
        say(log_severity::info,
            job_name(job.job.id) + ": attempt " + std::to_string(job.job.attempt_id) +
                " reached max_retries=" + std::to_string(rule->max_retries) + "; failed");
    }
    job.phase = job_phase::reporting;
    queue_report({report_kind::complete, job.result});
}

void worker_fsm::impl::on(worker::failure_handler_read const& e, worker_action const& sent)
{
    auto const id = std::get<worker::read_failure_handler>(sent).handler_id;
    fetching_handlers.erase(id);
    auto& handler = handlers[id] = e.handler;
    handler.id = id;
    for (auto& [job_id, job] : jobs)
        if (job.phase == job_phase::handler && job.job.failure_handler_id == id)
            decide_failure(job, &handler);
}

void worker_fsm::impl::handler_failed(std::int64_t handler_id, std::string const& why)
{
    fetching_handlers.erase(handler_id);
    say(log_severity::warning,
        "failure handler " + std::to_string(handler_id) + ": unread, no retry: " + why);
    for (auto& [job_id, job] : jobs)
        if (job.phase == job_phase::handler && job.job.failure_handler_id == handler_id)
            decide_failure(job, nullptr);
}

// The retry was accepted: the job is `ready` again with attempt_id + 1. The failed attempt keeps
// its result record (POST /results; Torc v0.10 loses it), then the recovery script runs.
void worker_fsm::impl::on_retried(std::int64_t job_id, bool accepted, std::string const& why)
{
    auto const it = jobs.find(job_id);  // its retry_job request keeps it in this phase
    BOOST_ASSERT(it != jobs.end() && it->second.phase == job_phase::retrying);
    auto* job = &it->second;
    auto const name = job_name(job_id);
    if (!accepted) {
        say(log_severity::warning, name + ": retry refused, reported failed: " + why);
        reclaimed.erase(job_id);
        job->phase = job_phase::reporting;
        queue_report({report_kind::complete, job->result});
        return;
    }
    auto const& rule = *job->retry_rule;
    say(log_severity::info, name + ": retried after rc=" + std::to_string(job->result.return_code) +
                                " (attempt " + std::to_string(job->job.attempt_id) + " of " +
                                std::to_string(rule.max_retries) + ")");
    queue_report({report_kind::record, job->result});
    if (rule.recovery_script)
        out.push_back(worker::run_recovery{job_id, job->job.name, job->job.attempt_id,
                                           job->result.return_code, *rule.recovery_script});
    ++ledger.retried;
    jobs.erase(job_id);
    if (auto const next = reclaimed.extract(job_id)) {
        ++ledger.claimed;
        auto& entry = jobs.emplace(job_id, job_entry{.job = next.mapped()}).first->second;
        if (stage != worker_stage::running) {
            hand_back(entry, log_severity::info, "the worker is stopping");
        } else {
            batch.push_back(job_id);
            fetch_requirements();
        }
    }
    claim_progress();
}

void worker_fsm::impl::job_timers()
{
    for (auto& [id, job] : jobs) {
        if (job.phase != job_phase::running) continue;
        if (job.cause == stop_cause::none && job.limit_at && now >= *job.limit_at) {
            auto const runtime = *resources.at(job.job.resource_requirements_id).runtime_seconds;
            auto const factor = *cfg.limits.runtime_factor;
            say(log_severity::warning, job_name(id) + ": running longer than " +
                                           format_seconds(factor * runtime) + " s (" +
                                           format_seconds(factor) + " x its runtime of " +
                                           format_seconds(runtime) + " s); stopping it");
            stop_job(job, stop_cause::runtime);
        }
        if (job.kill_at && !job.killed && now >= *job.kill_at) {
            job.killed = true;
            say(log_severity::warning, job_name(id) + ": still running after the grace; SIGKILL");
            out.push_back(worker::signal_job{id, SIGKILL});
        }
    }
}

// The configured signal, then SIGKILL after the grace; at once SIGKILL after a second SIGINT.
void worker_fsm::impl::stop_job(job_entry& job, stop_cause cause)
{
    if (job.cause == stop_cause::none) job.cause = cause;
    if (job.killed) return;
    if (graceless) {
        job.killed = true;
        out.push_back(worker::signal_job{job.job.id, SIGKILL});
    } else if (!job.kill_at) {
        out.push_back(worker::signal_job{job.job.id, cfg.termination.signal});
        job.kill_at = after(cfg.termination.grace_seconds);
    }
}

}  // namespace torcrun::core
