// Reporting attempts: completions in one batch at a time where the server has batch completion
// (the extension; a 404 falls back to complete_job per job), records of retried attempts through
// POST /results. A report whose request fails transiently is journaled at once, and so is one
// queued behind a failed batch, so a crash loses no result; it is removed from the journal once
// the server accepts or refuses it.
#include "worker_fsm_impl.hpp"

#include <algorithm>

namespace torcrun::core {
namespace {

constexpr std::size_t max_batch = 1000;

worker::report_key key_of(job_report const& r)
{
    return {r.kind, r.result.job_id, r.result.attempt_id};
}

}  // namespace

void worker_fsm::impl::queue_report(job_report report)
{
    reports.push_back({std::move(report), false, std::nullopt});
}

void worker_fsm::impl::flush_reports()
{
    if (stage == worker_stage::stopped) return;
    std::vector<pending_report*> batched;
    for (auto& r : reports) {
        if (r.request) continue;
        auto const& result = r.report.result;
        if (r.report.kind == report_kind::record) {
            r.request = send(worker::record_result{{}, result});
        } else if (!batch_supported) {
            r.request = send(worker::complete_job{{}, result});
        } else if (!batch_request && batched.size() < max_batch) {
            batched.push_back(&r);
        }
    }
    if (batched.empty()) {
        journal_waiting();
        return;
    }
    worker::complete_jobs batch_action;
    for (auto const* r : batched) batch_action.results.push_back(r->report.result);
    batch_request = send(std::move(batch_action));
    for (auto* r : batched) r->request = batch_request;
}

// A report queued behind a batch that failed waits as long as the server is away, possibly
// minutes: it is journaled like the batch, so that a crash meanwhile loses it neither.
void worker_fsm::impl::journal_waiting()
{
    if (!batch_request) return;
    auto const failed = [&](pending_report const& r) {
        return r.request == batch_request && r.journaled;
    };
    if (std::ranges::none_of(reports, failed)) return;
    worker::journal_append append;
    for (auto& r : reports) {
        if (r.request || r.journaled) continue;
        r.journaled = true;
        append.reports.push_back(r.report);
    }
    if (!append.reports.empty()) out.push_back(std::move(append));
}

void worker_fsm::impl::on(worker::jobs_reported const& e, worker_action const&)
{
    batch_request.reset();
    std::vector<worker::report_key> unjournal;
    for (auto it = reports.begin(); it != reports.end();) {
        if (it->request != e.request) {
            ++it;
            continue;
        }
        auto const job_id = it->report.result.job_id;
        bool const accepted = std::ranges::find(e.completed, job_id) != e.completed.end();
        std::string why = "absent from the server's reply";
        auto const refusal =
            std::ranges::find(e.rejected, job_id, &worker::rejected_report::job_id);
        if (refusal != e.rejected.end()) why = refusal->message;
        settle(*it, accepted, why, unjournal);
        it = reports.erase(it);
    }
    if (!unjournal.empty()) out.push_back(worker::journal_remove{std::move(unjournal)});
}

void worker_fsm::impl::report_done(request_id id, bool accepted, std::string const& why)
{
    std::vector<worker::report_key> unjournal;
    for (auto it = reports.begin(); it != reports.end();) {
        if (it->request != id) {
            ++it;
            continue;
        }
        settle(*it, accepted, why, unjournal);
        it = reports.erase(it);
    }
    if (!unjournal.empty()) out.push_back(worker::journal_remove{std::move(unjournal)});
}

// The end of one report: the job (if this worker still holds it) leaves the table.
void worker_fsm::impl::settle(pending_report const& entry, bool accepted, std::string const& why,
                              std::vector<worker::report_key>& unjournal)
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
    if (!accepted) say(log_severity::error, name + ": its result was refused: " + why);
    auto const it = jobs.find(result.job_id);
    if (it == jobs.end() || it->second.phase != job_phase::reporting ||
        it->second.job.attempt_id != result.attempt_id)
        return;  // a journaled result of an earlier worker
    jobs.erase(it);
    if (accepted) {
        ++ledger.reported;
        claim_progress();  // its dependents may be ready now
    } else {
        ++ledger.rejected;
    }
}

void worker_fsm::impl::batch_refused(worker::request_failed const& e)
{
    bool const unsupported = e.http_status == 404 || e.http_status == 405 || e.http_status == 501;
    if (!unsupported) {
        batch_request.reset();
        report_done(e.request, false, e.message);
        return;
    }
    say(log_severity::warning, "server: no batch completion (HTTP " +
                                   std::to_string(e.http_status) +
                                   "); reporting each job with complete_job");
    batch_supported = false;
    batch_request.reset();
    for (auto& r : reports)
        if (r.request == e.request) r.request.reset();
}

void worker_fsm::impl::report_failed(request_id id)
{
    worker::journal_append append;
    for (auto& r : reports) {
        if (r.request != id || r.journaled) continue;
        r.journaled = true;
        append.reports.push_back(r.report);
    }
    if (!append.reports.empty()) out.push_back(std::move(append));
}

void worker_fsm::impl::journal_unsent()
{
    worker::journal_append append;
    for (auto& r : reports) {
        if (r.journaled) continue;
        r.journaled = true;
        append.reports.push_back(r.report);
    }
    if (!append.reports.empty()) out.push_back(std::move(append));
}

}  // namespace torcrun::core
