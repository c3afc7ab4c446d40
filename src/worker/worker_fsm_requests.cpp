// Requests to the server: ids, transient failures re-sent after an exponential backoff (with
// optional jitter), 4xx answers given up with what each request's failure means for the worker,
// and the server counted lost after server.retry_window_seconds without an answer.
#include "worker_fsm_impl.hpp"

#include "worker_text.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>

namespace torcrun::core {
namespace {

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};

constexpr double retry_cap_seconds = 30;

bool is_report(worker_action const& a)
{
    return std::holds_alternative<worker::complete_job>(a) ||
           std::holds_alternative<worker::complete_jobs>(a) ||
           std::holds_alternative<worker::record_result>(a);
}

}  // namespace

request_id worker_fsm::impl::send(worker_action action)
{
    request_id const id{++last_request};
    std::visit(
        [id](auto& a) {
            if constexpr (requires { a.request; }) a.request = id;
        },
        action);
    out.push_back(action);
    requests.emplace(id, request_entry{.action = std::move(action)});
    return id;
}

std::optional<worker_action> worker_fsm::impl::take(request_id id)
{
    auto const it = requests.find(id);
    if (it == requests.end()) {
        say(log_severity::warning,
            "worker: a reply to unknown request " + number(id) + " was ignored");
        return std::nullopt;
    }
    auto action = std::move(it->second.action);
    requests.erase(it);
    return action;
}

void worker_fsm::impl::on(worker::request_failed const& e)
{
    auto const it = requests.find(e.request);
    if (it == requests.end() || it->second.retry_at) {
        say(log_severity::warning,
            "worker: a failure of unknown request " + number(e.request) + " was ignored");
        return;
    }
    if (e.kind == http_failure::http_4xx) {  // the server answered: it is reachable
        auto const action = std::move(it->second.action);
        requests.erase(it);
        note_reachable();
        give_up(action, e);
        return;
    }
    auto& r = it->second;
    ++r.failures;
    if (!unreachable_since) unreachable_since = now;
    auto const delay = backoff(r.failures);
    r.retry_at = after(delay);
    say(log_severity::warning, "server: " + e.message + " (" + std::string(to_string(e.kind)) +
                                   ", failure " + std::to_string(r.failures) + "); retrying in " +
                                   format_seconds(delay) + " s");
    if (is_report(r.action)) report_failed(e.request);
}

void worker_fsm::impl::give_up(worker_action const& action, worker::request_failed const& e)
{
    auto const& why = e.message;
    std::visit(
        overloaded{
            [&](worker::register_node const&) {
                refused_at_start("worker: registration refused: " + why);
            },
            [&](worker::read_workflow const&) {
                refused_at_start("worker: workflow " + std::to_string(workflow_id) +
                                 " refused: " + why);
            },
            [&](worker::read_pending_actions const& a) {
                say(log_severity::warning,
                    "action: " + std::string(to_string(a.trigger)) + " actions unread: " + why);
                action_step_failed(e.request);
            },
            [&](worker::claim_action const& a) {
                say(e.http_status == 409 ? log_severity::info : log_severity::warning,
                    "action " + std::to_string(a.action_id) + ": not claimed: " + why);
                action_step_failed(e.request);
            },
            [&](worker::claim_jobs const&) { claim_refused(why); },
            [&](worker::read_requirements const& a) {
                requirements_failed(a.requirements_id, why);
            },
            [&](worker::start_job const& a) {
                if (auto it = jobs.find(a.job_id); it != jobs.end())
                    hand_back(it->second, log_severity::error, "start_job refused: " + why);
            },
            [&](worker::hand_back const& a) { on_handed_back(a.job_id, false, why); },
            [&](worker::read_failure_handler const& a) { handler_failed(a.handler_id, why); },
            [&](worker::retry_job const& a) { on_retried(a.job_id, false, why); },
            [&](worker::complete_jobs const&) { batch_refused(e); },
            [&](worker::check_workflow const&) {
                say(log_severity::warning, "worker: workflow status unread: " + why);
                status_check.reset();
            },
            [&](worker::deactivate_node const&) {
                say(log_severity::error, "worker: deactivation refused: " + why);
                finish(exit_code);
            },
            [&](auto const&) { report_done(e.request, false, why); },
        },
        action);
}

// Nothing can run without a registered node and a run id: exit 1, deactivating the node first
// when it was registered.
void worker_fsm::impl::refused_at_start(std::string const& message)
{
    say(log_severity::error, message);
    action_request.reset();
    reason = stop_reason::fatal;
    exit_code = 1;
    stage = worker_stage::stopping;
    deactivate();
}

void worker_fsm::impl::resend_due()
{
    for (auto it = requests.begin(); it != requests.end();) {
        auto& r = it->second;
        if (!r.retry_at || *r.retry_at > now) {
            ++it;
            continue;
        }
        r.retry_at.reset();
        if (std::holds_alternative<worker::claim_jobs>(r.action)) {
            if (stage != worker_stage::running) {  // stopping: the claim is not needed any more
                claim.reset();
                it = requests.erase(it);
                continue;
            }
            r.action = fresh_claim(it->first);  // what is free now, not at the first attempt
            claim_sent_at = now;
        }
        out.push_back(r.action);
        ++it;
    }
}

void worker_fsm::impl::note_reachable()
{
    if (!unreachable_since) return;
    unreachable_since.reset();
    std::size_t waiting = 0;
    for (auto& [id, r] : requests) {
        if (!r.retry_at) continue;
        r.retry_at = now;
        ++waiting;
    }
    say(log_severity::info,
        "server: answering again" +
            (waiting == 0 ? std::string()
                          : "; re-sending " + std::to_string(waiting) + " requests now"));
    if (server_lost && stage == worker_stage::draining && reason == stop_reason::server_lost) {
        server_lost = false;
        stage = worker_stage::running;
        reason = stop_reason::none;
        exit_code = 0;
        claim_progress();
        say(log_severity::info, "worker: claiming resumes");
    }
    server_lost = false;
}

void worker_fsm::impl::check_server_lost()
{
    if (server_lost || !unreachable_since ||
        now < *unreachable_since + seconds(cfg.server.retry_window_seconds))
        return;
    server_lost = true;
    say(log_severity::error, "server: no answer for " +
                                 format_seconds(cfg.server.retry_window_seconds) +
                                 " s (server.retry_window_seconds); results are journaled");
    if (stage == worker_stage::running) {
        drain(stop_reason::server_lost);
    } else if (stage == worker_stage::starting || stage == worker_stage::stopping) {
        if (reason == stop_reason::none) reason = stop_reason::server_lost;
        finish(1);
    }
}

double worker_fsm::impl::backoff(int failures)
{
    double const base = cfg.poll.min_interval_seconds;
    double const cap = std::max(retry_cap_seconds, base);
    double const upper = std::min(cap, base * std::exp2(std::min(failures - 1, 40)));
    if (!random) return upper;
    // splitmix64: a fixed sequence per seed, so a run can be replayed
    std::uint64_t z = (*random += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    double const unit = static_cast<double>(z >> 11) * 0x1.0p-53;
    return base + (upper - base) * unit;
}

}  // namespace torcrun::core
