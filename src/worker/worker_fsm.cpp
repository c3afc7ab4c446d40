// worker_fsm's core: event dispatch (a reply is matched to the request it answers and refused
// when it is of the wrong kind; events before `begin` are ignored), requests to the server (ids,
// transient failures re-sent after an exponential backoff with optional jitter, 4xx answers given
// up with what each request's failure means, the server counted lost after
// server.retry_window_seconds without an answer), the pass that runs after every event (what is
// due, what can start, the one timer), the invariants, and the public members.
#include "torcrun/worker/worker_fsm.hpp"

#include "worker_fsm_impl.hpp"
#include "worker_text.hpp"

#include "torcrun/worker/claim_ahead.hpp"

#include <boost/assert.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace torcrun::core {

namespace {

// Which request each kind of reply answers.
bool answers(worker::node_registered const&, worker_action const& a)
{
    return std::holds_alternative<worker::register_node>(a);
}
bool answers(worker::workflow_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_workflow>(a);
}
bool answers(worker::pending_actions_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_pending_actions>(a);
}
bool answers(worker::action_claim_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::claim_action>(a);
}
bool answers(worker::jobs_claimed const&, worker_action const& a)
{
    return std::holds_alternative<worker::claim_jobs>(a);
}
bool answers(worker::requirements_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_requirements>(a);
}
bool answers(worker::failure_handler_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_failure_handler>(a);
}
bool answers(worker::workflow_state_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::check_workflow>(a);
}
bool answers(worker::ready_jobs_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::check_workflow>(a);
}
bool answers(worker::jobs_reported const&, worker_action const& a)
{
    return std::holds_alternative<worker::complete_jobs>(a);
}
bool answers(worker::completed_and_claimed const&, worker_action const& a)
{
    return std::holds_alternative<worker::complete_and_claim>(a);
}
bool answers(worker::heartbeat_answered const&, worker_action const& a)
{
    return std::holds_alternative<worker::heartbeat>(a);
}
bool answers(worker::held_jobs_read const&, worker_action const& a)
{
    return std::holds_alternative<worker::read_held_jobs>(a);
}
bool answers(worker::node_released const&, worker_action const& a)
{
    return std::holds_alternative<worker::release_node>(a);
}
bool answers(worker::request_done const&, worker_action const& a)
{
    return std::holds_alternative<worker::start_job>(a) ||
           std::holds_alternative<worker::hand_back>(a) ||
           std::holds_alternative<worker::retry_job>(a) ||
           std::holds_alternative<worker::record_result>(a) ||
           std::holds_alternative<worker::complete_job>(a) ||
           std::holds_alternative<worker::deactivate_node>(a);
}

template <class T>
constexpr bool is_reply = requires(T const& e, worker_action const& a)
{
    answers(e, a);
};

}  // namespace

void worker_fsm::impl::handle(worker_event const& event)
{
    std::visit(
        [this](auto const& e) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, worker::tick>) {
                return;
            } else if constexpr (is_reply<E>) {
                if (!startup.begun) return;
                auto sent = take(e.request);
                if (!sent) return;
                note_reachable();
                if (requests.stale.erase(e.request)) return;
                if (!answers(e, *sent)) {
                    say(log_severity::error,
                        "worker: a reply of the wrong kind answers \"" + describe(*sent) + '"');
                    give_up(*sent, {e.request, http_failure::http_4xx, 0, "wrong reply"});
                    return;
                }
                if constexpr (std::is_same_v<E, worker::request_done>)
                    done(*sent, e.request);
                else
                    on(e, *sent);
            } else if constexpr (std::is_same_v<E, worker::begin>) {
                if (startup.begun)
                    say(log_severity::warning, "worker: a second begin was ignored");
                else
                    on(e);
            } else if (!startup.begun) {
                say(log_severity::warning, "worker: an event before begin was ignored");
            } else {
                on(e);
            }
        },
        event);
}

// request_done, by the request it answers (answers() admitted only these).
void worker_fsm::impl::done(worker_action const& sent, request_id id)
{
    if (lease.returning.erase(id)) return;  // a job reconciliation handed back; never held here
    if (auto const* a = std::get_if<worker::start_job>(&sent)) {
        on_started(a->job_id);
    } else if (auto const* b = std::get_if<worker::hand_back>(&sent)) {
        on_handed_back(b->job_id, true);
    } else if (auto const* r = std::get_if<worker::retry_job>(&sent)) {
        on_retried(r->job_id, true);
    } else if (std::holds_alternative<worker::deactivate_node>(sent)) {
        say(log_severity::info,
            "worker: compute node " + std::to_string(*startup.compute_node_id) + " deactivated");
        out.push_back(worker::journal_node{*startup.compute_node_id, false});
        finish(exit_code);
    } else {
        report_done(id, true, "");  // record_result, complete_job
    }
}

// ---- requests

namespace {

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;  // clang 14 deduces no aggregate's arguments by itself

constexpr double retry_cap_seconds = 30;

bool is_report(worker_action const& a)
{
    return std::holds_alternative<worker::complete_job>(a) ||
           std::holds_alternative<worker::complete_jobs>(a) ||
           std::holds_alternative<worker::complete_and_claim>(a) ||
           std::holds_alternative<worker::record_result>(a);
}

}  // namespace

request_id worker_fsm::impl::send(worker_action action)
{
    request_id const id{++requests.last_id};
    std::visit(
        [id](auto& a) {
            if constexpr (requires { a.request; }) a.request = id;
        },
        action);
    out.push_back(action);
    requests.open.emplace(id, request_entry{.action = std::move(action)});
    return id;
}

std::optional<worker_action> worker_fsm::impl::take(request_id id)
{
    auto const it = requests.open.find(id);
    if (it == requests.open.end()) {
        say(log_severity::warning,
            "worker: a reply to unknown request " + number(id) + " was ignored");
        return std::nullopt;
    }
    auto action = std::move(it->second.action);
    requests.open.erase(it);
    return action;
}

void worker_fsm::impl::on(worker::request_failed const& e)
{
    if (requests.stale.erase(e.request)) {  // not re-sent: the job is held here anew
        requests.open.erase(e.request);
        return;
    }
    auto const it = requests.open.find(e.request);
    if (it == requests.open.end() || it->second.retry_at) {
        say(log_severity::warning,
            "worker: a failure of unknown request " + number(e.request) + " was ignored");
        return;
    }
    if (std::holds_alternative<worker::heartbeat>(it->second.action)) {
        requests.open.erase(it);
        beat_failed(e);
        return;
    }
    if (e.kind == http_failure::http_4xx) {  // the server answered: it is reachable
        auto const action = std::move(it->second.action);
        requests.open.erase(it);
        note_reachable();
        give_up(action, e);
        return;
    }
    auto& r = it->second;
    ++r.failures;
    r.ambiguous = e.kind == http_failure::timeout || e.kind == http_failure::reset;
    if (!requests.unreachable_since) requests.unreachable_since = now;
    auto const delay = backoff(r.failures);
    r.retry_at = after(delay);
    say(log_severity::warning, "server: " + e.message + " (" + std::string(to_string(e.kind)) +
                                   ", failure " + std::to_string(r.failures) + "); retrying in " +
                                   format_seconds(delay) + " s");
    if (is_report(r.action)) report_failed(e.request);
    // No answer, but the server may have applied it: what it holds for this node is read once
    // the claims are quiet (a claim re-sent under its key is answered from the first one, but a
    // restarted server may have forgotten that).
    if (r.ambiguous && (std::holds_alternative<worker::claim_jobs>(r.action) ||
                      std::holds_alternative<worker::complete_and_claim>(r.action) ||
                      std::holds_alternative<worker::start_job>(r.action) ||
                      std::holds_alternative<worker::hand_back>(r.action)))
        want_reconcile();
}

// A 409 on a job transition is the fence: the server says the job is not this worker's any more
// (another node holds it, it moved on, or this node was deactivated).
void worker_fsm::impl::give_up(worker_action const& action, worker::request_failed const& e)
{
    auto const& why = e.message;
    bool const fenced = e.http_status == 409;
    if (lease.returning.erase(e.request)) {
        say(log_severity::warning,
            "worker: a job reconciliation found was not handed back: " + why);
        return;
    }
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
            [&](worker::claim_jobs const&) { claim_refused(why, e.http_status); },
            [&](worker::read_requirements const& a) {
                requirements_failed(a.requirements_id, why);
            },
            [&](worker::start_job const& a) {
                if (fenced) return fenced_off(a.job_id, why);
                if (auto it = jobs.find(a.job_id); it != jobs.end())
                    hand_back(it->second, log_severity::error, "start_job refused: " + why);
            },
            [&](worker::hand_back const& a) {
                if (fenced) return fenced_off(a.job_id, why);
                on_handed_back(a.job_id, false, why);
            },
            [&](worker::read_failure_handler const& a) { handler_failed(a.handler_id, why); },
            [&](worker::retry_job const& a) {
                if (fenced) return retry_fenced_off(a.job_id, why);
                on_retried(a.job_id, false, why);
            },
            [&](worker::complete_jobs const&) { batch_refused(e); },
            [&](worker::complete_and_claim const&) { exchange_refused(e); },
            [&](worker::check_workflow const&) {
                say(log_severity::warning, "worker: workflow status unread: " + why);
                claims.status_check.reset();
            },
            [&](worker::deactivate_node const&) {
                say(log_severity::error, "worker: deactivation refused: " + why);
                finish(exit_code);
            },
            [&](worker::heartbeat const&) { beat_failed(e); },
            [&](worker::read_held_jobs const&) {
                say(log_severity::warning, "worker: held jobs unread: " + why);
                lease.reconciling.reset();
            },
            [&](worker::release_node const& a) {
                release_refused(a.compute_node_id, e.request, why);
            },
            [&](auto const&) { report_done(e.request, false, why, fenced); },
        },
        action);
}

void worker_fsm::impl::disown_requests(std::int64_t job_id)
{
    for (auto const& [id, r] : requests.open) {
        bool const of_job = std::visit(
            [&](auto const& a) {
                using A = std::decay_t<decltype(a)>;
                if constexpr (std::is_same_v<A, worker::start_job> ||
                              std::is_same_v<A, worker::hand_back> ||
                              std::is_same_v<A, worker::retry_job>)
                    return a.job_id == job_id;
                else
                    return false;
            },
            r.action);
        if (of_job) requests.stale.insert(id);
    }
}

void worker_fsm::impl::resend_due()
{
    for (auto it = requests.open.begin(); it != requests.open.end();) {
        auto& r = it->second;
        if (!r.retry_at || *r.retry_at > now) {
            ++it;
            continue;
        }
        r.retry_at.reset();
        // A transition of an earlier holding of a job claimed here anew is not sent again: the
        // claim shows the server applied it (a hand-back whose answer was lost) or that it no
        // longer matters, and sent again it would act on the new holding, which has the same
        // node and attempt (a hand-back of a job this worker has just started).
        if (requests.stale.erase(it->first)) {
            lease.returning.erase(it->first);
            it = requests.open.erase(it);
            continue;
        }
        if (std::holds_alternative<worker::claim_jobs>(r.action)) {
            // Stopping, the claim is not needed any more - unless the server may have applied
            // it: then it goes again under its key, and the jobs it took are handed back.
            if (stage != worker_stage::running && !(r.ambiguous && cfg.server.extensions)) {
                claims.request.reset();
                it = requests.open.erase(it);
                continue;
            }
            if (stage == worker_stage::running) r.action = fresh_claim(it->first);
            claims.sent_at = now;
            claims.sent_waits = std::get<worker::claim_jobs>(r.action).wait_seconds > 0;
        }
        if (auto* x = std::get_if<worker::complete_and_claim>(&r.action)) {
            // The completions go again as they are (a repeat the server answers as one); the
            // claim, under the same key, with what is free now - or, stopping and never applied,
            // not at all.
            if (stage == worker_stage::running) {
                x->claim = fresh_claim(it->first);
                x->claim.wait_seconds = 0;
            } else if (!r.ambiguous) {
                claims.request.reset();
                r.action = worker::complete_jobs{it->first, std::move(x->results)};
            }
            claims.sent_at = now;
            claims.sent_waits = false;
        }
        out.push_back(r.action);
        ++it;
    }
}

void worker_fsm::impl::note_reachable()
{
    if (!requests.unreachable_since) return;
    requests.unreachable_since.reset();
    std::size_t waiting = 0;
    for (auto& [id, r] : requests.open) {
        if (!r.retry_at) continue;
        r.retry_at = now;
        ++waiting;
    }
    say(log_severity::info,
        "server: answering again" +
            (waiting == 0 ? std::string()
                          : "; re-sending " + std::to_string(waiting) + " requests now"));
    if (requests.server_lost && stage == worker_stage::draining &&
        reason == stop_reason::server_lost) {
        requests.server_lost = false;
        stage = worker_stage::running;
        reason = stop_reason::none;
        exit_code = 0;
        claim_progress();
        say(log_severity::info, "worker: claiming resumes");
    }
    requests.server_lost = false;
}

void worker_fsm::impl::check_server_lost()
{
    if (requests.server_lost || !requests.unreachable_since ||
        now < *requests.unreachable_since + seconds(cfg.server.retry_window_seconds))
        return;
    requests.server_lost = true;
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
    if (!requests.jitter) return upper;
    // splitmix64: a fixed sequence per seed, so a run can be replayed
    std::uint64_t z = (*requests.jitter += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    double const unit = static_cast<double>(z >> 11) * 0x1.0p-53;
    return base + (upper - base) * unit;
}

// ---- the pass after every event


worker_fsm::impl::impl(worker_config config, std::int64_t workflow, resource_pool resource_pool,
                       std::optional<std::uint64_t> seed)
    : cfg(std::move(config)),
      workflow_id(workflow),
      pool(std::move(resource_pool)),
      claims(cfg.poll.min_interval_seconds),
      reports(cfg.server.extensions)
{
    requests.jitter = seed;
}

void worker_fsm::impl::advance()
{
    if (armed && *armed <= now) armed.reset();
    for (int round = 0; round < 3 && stage != worker_stage::stopped; ++round) {
        pass();
        auto const wake = next_wake();
        if (!wake || *wake > now) break;
    }
    if (stage == worker_stage::stopped) return;
    if (auto const wake = next_wake(); wake && wake != armed) {
        out.push_back(worker::arm_timer{*wake});
        armed = wake;
    }
}

void worker_fsm::impl::pass()
{
    resend_due();
    check_server_lost();
    check_lease();
    register_due();
    beat_due();
    if (auto const at = drain_at(); stage == worker_stage::running && at && now >= *at) {
        say(log_severity::info,
            "worker: the allocation ends in " +
                format_seconds(std::chrono::duration<double>(*startup.end_at - now).count()) +
                " s; stopping");
        stopping.for_time_limit = true;
        drain(stop_reason::deadline);
    }
    if (stage == worker_stage::running) check_idle();
    job_timers();
    hard_stop_due();
    if (stage == worker_stage::running) place_queued();  // before claiming: it takes free slots
    flush_reports();  // before claiming: a report may make dependents claimable
    if (stage == worker_stage::running) {
        reconcile_due();
        try_claim();
        try_status_check();
        poll_job_actions();
    }
    maybe_stop();
}

std::optional<fsm_time> worker_fsm::impl::next_wake() const
{
    std::optional<fsm_time> wake;
    auto consider = [&](std::optional<fsm_time> t) {
        if (t && (!wake || *t < *wake)) wake = t;
    };
    for (auto const& [id, r] : requests.open) consider(r.retry_at);
    auto const queue_lease_seconds = queue_lease();
    for (auto const& [id, j] : jobs) {
        if (auto const* queued = std::get_if<job_state::queued>(&j.state);
            queued && queue_lease_seconds)
            consider(queued->since + seconds(queued_wait_limit_seconds(*queue_lease_seconds)));
        auto const* run = std::get_if<job_state::running>(&j.state);
        if (!run) continue;
        if (run->cause == stop_cause::none) consider(run->limit_at);
        if (!run->killed) consider(run->kill_at);
    }
    consider(stopping.hard_stop_at);
    if (!lease.beat && lease.status != lease_status::lost) consider(lease.next_beat);
    consider(lease_deadline());
    consider(lease.register_at);
    if (requests.unreachable_since && !requests.server_lost)
        consider(*requests.unreachable_since + seconds(cfg.server.retry_window_seconds));
    if (stage != worker_stage::running) return wake;
    if (claim_possible() && claims.not_before > now) consider(claims.not_before);
    consider(drain_at());
    if (claims.idle_since && cfg.limits.idle_timeout_seconds > 0) {
        // Past due while an action step holds the worker: its end is the next event to wait for.
        auto const due = *claims.idle_since + seconds(cfg.limits.idle_timeout_seconds);
        if (due > now || !(actions.request || actions.current)) consider(due);
    }
    if (!claims.status_check)
        consider(claims.last_status_check + seconds(cfg.poll.interval_seconds));
    if (actions.job_actions && !actions.request && !actions.current) consider(actions.next_poll);
    return wake;
}

void worker_fsm::impl::say(log_severity level, std::string message)
{
    out.push_back(worker::log{level, std::move(message)});
}

fsm_time worker_fsm::impl::after(double s) const { return now + seconds(s); }

double worker_fsm::impl::unix_at(fsm_time t) const
{
    return startup.unix_offset + std::chrono::duration<double>(t.time_since_epoch()).count();
}

std::optional<fsm_time> worker_fsm::impl::drain_at() const
{
    if (!startup.end_at) return std::nullopt;
    auto const& t = cfg.termination;
    auto const lead = std::max(t.drain_buffer_seconds, t.grace_seconds + report_budget);
    return *startup.end_at - seconds(lead);
}

// The jobs' own view first (a job holds a reservation in the pool exactly while its phase has a
// placement, no GPU in two jobs), then that view against the pool's, then the ledger.
std::optional<std::string> worker_fsm::impl::invariants() const
{
    std::set<std::pair<std::size_t, std::string>> gpus;
    std::size_t placed = 0;
    for (auto const& [id, j] : jobs) {
        auto const name = "job " + std::to_string(id);
        auto const* placement = j.placement();
        bool const held = pool.reservations().contains(reservation_id{id});
        if (held != (placement != nullptr))
            return name + (placement ? " holds no reservation" : " holds a reservation") +
                   " while " + std::string(to_string(j.phase()));
        if (!placement) continue;
        ++placed;
        for (auto const& share : placement->nodes)
            for (auto const& gpu : share.gpu_ids)
                if (!gpus.emplace(share.node_index, gpu).second)
                    return "GPU " + gpu + " of " + share.node_name + " is held by two jobs";
    }
    if (auto bad = pool.check_invariants()) return "pool: " + *bad;
    for (auto const& [id, j] : jobs) {
        auto const* placement = j.placement();
        if (placement && pool.reservations().at(reservation_id{id}) != *placement)
            return "job " + std::to_string(id) + ": the pool does not hold its reservation";
    }
    if (placed != pool.reservations().size()) return "the pool holds a reservation of no job";
    if (ledger.claimed != ledger.ended() + jobs.size()) return "the job ledger does not balance";
    if (stage == worker_stage::stopped && !jobs.empty()) return "stopped with live jobs";
    for (auto const id : lease.orphans)
        if (!jobs.contains(id)) return "job " + std::to_string(id) + " is an orphan of no job";
    return std::nullopt;
}

// ---- the public face

worker_fsm::worker_fsm(worker_config config, std::int64_t workflow_id, resource_pool pool,
                       std::optional<std::uint64_t> jitter_seed)
    : impl_(std::make_unique<impl>(std::move(config), workflow_id, std::move(pool), jitter_seed))
{
}
worker_fsm::worker_fsm(worker_fsm&&) noexcept = default;
worker_fsm& worker_fsm::operator=(worker_fsm&&) noexcept = default;
worker_fsm::~worker_fsm() = default;

std::vector<worker_action> worker_fsm::on(worker_event const& event, time_point now)
{
    auto& s = *impl_;
    BOOST_ASSERT(now >= s.now);
    s.now = std::max(s.now, now);
    s.out.clear();
    if (s.stage != worker_stage::stopped) {
        s.handle(event);
        s.advance();
    }
    BOOST_ASSERT_MSG(!s.invariants(), s.invariants().value_or("").c_str());
    return std::exchange(s.out, {});
}

std::optional<std::string> worker_fsm::check_invariants() const { return impl_->invariants(); }
worker_stage worker_fsm::stage() const { return impl_->stage; }
stop_reason worker_fsm::reason() const { return impl_->reason; }
job_ledger const& worker_fsm::ledger() const { return impl_->ledger; }
std::size_t worker_fsm::live_jobs() const { return impl_->jobs.size(); }
resource_pool const& worker_fsm::pool() const { return impl_->pool; }

std::string_view to_string(job_phase phase)
{
    static constexpr std::string_view names[] = {
        "reading requirements",        "queued",   "starting", "spawning",  "running",
        "checking outputs",
        "reading its failure handler", "retrying", "reporting", "handing back"};
    return names[static_cast<int>(phase)];
}

std::string_view to_string(worker_stage stage)
{
    static constexpr std::string_view names[] = {"starting", "running", "draining", "stopping",
                                                 "stopped"};
    return names[static_cast<int>(stage)];
}

std::string_view to_string(stop_reason reason)
{
    static constexpr std::string_view names[] = {
        "none", "signal",      "deadline", "workflow canceled", "workflow complete",
        "idle", "server lost", "fatal",    "never fits",       "lease lost", "worker fault"};
    return names[static_cast<int>(reason)];
}

}  // namespace torcrun::core
