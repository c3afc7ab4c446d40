// worker_fsm's front: event dispatch (a reply is matched to the request it answers), the pass
// that runs after every event (what is due, what can start, the one timer), and the invariants.
#include "torcrun/core/worker_fsm.hpp"

#include "worker_fsm_impl.hpp"
#include "worker_text.hpp"

#include <boost/assert.hpp>

#include <set>
#include <utility>

namespace torcrun::core {
namespace {

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};

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
bool answers(worker::jobs_reported const&, worker_action const& a)
{
    return std::holds_alternative<worker::complete_jobs>(a);
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
constexpr bool is_reply = requires(T const& e, worker_action const& a) { answers(e, a); };

}  // namespace

worker_fsm::impl::impl(worker_config config, std::int64_t workflow, resource_pool resource_pool,
                       std::optional<std::uint64_t> seed)
    : cfg(std::move(config)), workflow_id(workflow), pool(std::move(resource_pool)), random(seed),
      claim_delay(cfg.poll.min_interval_seconds),
      batch_supported(cfg.server.use_extensions)
{
}

void worker_fsm::impl::handle(worker_event const& event)
{
    std::visit(
        [this](auto const& e) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, worker::tick>) {
                return;
            } else if constexpr (is_reply<E>) {
                if (!begun) return;
                auto sent = take(e.request);
                if (!sent) return;
                note_reachable();
                if (!answers(e, *sent)) {
                    say(log_severity::error,
                        "worker: a reply of the wrong kind answers \"" + describe(*sent) + '"');
                    give_up(*sent, {e.request, http_failure::http_4xx, 0, "wrong reply"});
                    return;
                }
                if constexpr (std::is_same_v<E, worker::request_done>)
                    std::visit([&](auto const& a) { done(a, e.request); }, *sent);
                else
                    on(e, *sent);
            } else if constexpr (std::is_same_v<E, worker::begin>) {
                if (begun)
                    say(log_severity::warning, "worker: a second begin was ignored");
                else
                    on(e);
            } else if (!begun) {
                say(log_severity::warning, "worker: an event before begin was ignored");
            } else {
                on(e);
            }
        },
        event);
}

// request_done, by the request it answers.
void worker_fsm::impl::done(worker::start_job const& a, request_id) { on_started(a.job_id); }
void worker_fsm::impl::done(worker::hand_back const& a, request_id)
{
    on_handed_back(a.job_id, true);
}
void worker_fsm::impl::done(worker::retry_job const& a, request_id) { on_retried(a.job_id, true); }
void worker_fsm::impl::done(worker::record_result const&, request_id id)
{
    report_done(id, true, "");
}
void worker_fsm::impl::done(worker::complete_job const&, request_id id)
{
    report_done(id, true, "");
}
void worker_fsm::impl::done(worker::deactivate_node const&, request_id)
{
    say(log_severity::info, "worker: compute node " + std::to_string(*compute_node_id) +
                                " deactivated");
    finish(exit_code);
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
    if (auto const at = drain_at(); stage == worker_stage::running && at && now >= *at) {
        say(log_severity::info, "worker: the allocation ends in " +
                                    format_seconds(std::chrono::duration<double>(*end_at - now)
                                                       .count()) +
                                    " s; stopping");
        drain(stop_reason::deadline);
    }
    if (stage == worker_stage::running) check_idle();
    job_timers();
    hard_stop_due();
    flush_reports();  // before claiming: a report may make dependents claimable
    if (stage == worker_stage::running) {
        try_claim();
        try_status_check();
    }
    maybe_stop();
}

std::optional<fsm_time> worker_fsm::impl::next_wake() const
{
    std::optional<fsm_time> wake;
    auto consider = [&](std::optional<fsm_time> t) {
        if (t && (!wake || *t < *wake)) wake = t;
    };
    for (auto const& [id, r] : requests) consider(r.retry_at);
    for (auto const& [id, j] : jobs) {
        if (j.phase != job_phase::running) continue;
        if (j.cause == stop_cause::none) consider(j.limit_at);
        if (!j.killed) consider(j.kill_at);
    }
    consider(hard_stop_at);
    if (unreachable_since && !server_lost)
        consider(*unreachable_since + seconds(cfg.server.retry_window_seconds));
    if (stage != worker_stage::running) return wake;
    if (claim_possible() && claim_not_before > now) consider(claim_not_before);
    consider(drain_at());
    if (idle_since && cfg.limits.idle_timeout_seconds > 0)
        consider(*idle_since + seconds(cfg.limits.idle_timeout_seconds));
    if (!status_check) consider(last_status_check + seconds(cfg.poll.interval_seconds));
    return wake;
}

void worker_fsm::impl::say(log_severity level, std::string message)
{
    out.push_back(worker::log{level, std::move(message)});
}

fsm_time::duration worker_fsm::impl::seconds(double s)
{
    return std::chrono::duration_cast<fsm_time::duration>(std::chrono::duration<double>(s));
}

fsm_time worker_fsm::impl::after(double s) const { return now + seconds(s); }

double worker_fsm::impl::unix_at(fsm_time t) const
{
    return unix_offset + std::chrono::duration<double>(t.time_since_epoch()).count();
}

std::optional<fsm_time> worker_fsm::impl::drain_at() const
{
    if (!end_at) return std::nullopt;
    auto const& t = cfg.termination;
    return *end_at - seconds(std::max(t.drain_buffer_seconds, t.grace_seconds + report_budget));
}

std::optional<std::string> worker_fsm::impl::invariants() const
{
    if (auto bad = pool.check_invariants()) return "pool: " + *bad;
    std::set<std::pair<std::size_t, std::string>> gpus;
    std::size_t placed = 0;
    for (auto const& [id, j] : jobs) {
        auto const name = "job " + std::to_string(id);
        bool const should = j.phase == job_phase::starting || j.phase == job_phase::spawning ||
                            j.phase == job_phase::running;
        if (should != j.placement.has_value())
            return name + (should ? " holds no reservation" : " holds a reservation") +
                   " in its phase";
        if (!j.placement) continue;
        ++placed;
        auto const held = pool.reservations().find(reservation_id{id});
        if (held == pool.reservations().end() || held->second != *j.placement)
            return name + ": the pool does not hold its reservation";
        for (auto const& share : j.placement->nodes)
            for (auto const& gpu : share.gpu_ids)
                if (!gpus.emplace(share.node_index, gpu).second)
                    return "GPU " + gpu + " of " + share.node_name + " is held by two jobs";
    }
    if (placed != pool.reservations().size()) return "the pool holds a reservation of no job";
    if (ledger.claimed != ledger.ended() + jobs.size()) return "the job ledger does not balance";
    if (stage == worker_stage::stopped && !jobs.empty()) return "stopped with live jobs";
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
        "reading requirements", "starting", "spawning", "running", "checking outputs",
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
        "none", "signal", "deadline", "workflow canceled", "workflow complete", "idle",
        "server lost", "fatal"};
    return names[static_cast<int>(reason)];
}

}  // namespace torcrun::core
