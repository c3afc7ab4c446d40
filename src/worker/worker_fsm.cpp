// worker_fsm's front: the pass that runs after every event (what is due, what can start, the
// one timer), the invariants, and the public members.
#include "torcrun/worker/worker_fsm.hpp"

#include "worker_fsm_impl.hpp"
#include "worker_text.hpp"

#include <boost/assert.hpp>

#include <set>
#include <utility>

namespace torcrun::core {

worker_fsm::impl::impl(worker_config config, std::int64_t workflow, resource_pool resource_pool,
                       std::optional<std::uint64_t> seed)
    : cfg(std::move(config)),
      workflow_id(workflow),
      pool(std::move(resource_pool)),
      random(seed),
      claim_delay(cfg.poll.min_interval_seconds),
      batch_supported(cfg.server.use_extensions)
{
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
        say(log_severity::info,
            "worker: the allocation ends in " +
                format_seconds(std::chrono::duration<double>(*end_at - now).count()) +
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

// The jobs' own view first (phase and reservation agree, no GPU in two jobs), then that view
// against the pool's, then the ledger.
std::optional<std::string> worker_fsm::impl::invariants() const
{
    std::set<std::pair<std::size_t, std::string>> gpus;
    std::size_t placed = 0;
    for (auto const& [id, j] : jobs) {
        auto const name = "job " + std::to_string(id);
        bool const should = j.phase == job_phase::starting || j.phase == job_phase::spawning ||
                            j.phase == job_phase::running;
        if (should != j.placement.has_value())
            return name + (should ? " holds no reservation" : " holds a reservation") +
                   " while " + std::string(to_string(j.phase));
        if (!j.placement) continue;
        ++placed;
        for (auto const& share : j.placement->nodes)
            for (auto const& gpu : share.gpu_ids)
                if (!gpus.emplace(share.node_index, gpu).second)
                    return "GPU " + gpu + " of " + share.node_name + " is held by two jobs";
    }
    if (auto bad = pool.check_invariants()) return "pool: " + *bad;
    for (auto const& [id, j] : jobs) {
        auto const held = pool.reservations().find(reservation_id{id});
        if (j.placement && (held == pool.reservations().end() || held->second != *j.placement))
            return "job " + std::to_string(id) + ": the pool does not hold its reservation";
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
        "reading requirements",        "starting", "spawning",  "running",     "checking outputs",
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
        "idle", "server lost", "fatal"};
    return names[static_cast<int>(reason)];
}

}  // namespace torcrun::core
