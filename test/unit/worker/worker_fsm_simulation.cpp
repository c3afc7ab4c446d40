// The simulated shell of worker_fsm_simulation.hpp: the steps of a sequence, processes, and
// the checks of every action the worker asks for.
#include "worker_fsm_simulation.hpp"

namespace fsm_sim {

simulation::simulation(std::uint64_t seed, tally& seen)
    : r_{std::mt19937_64{seed}},
      seen_(seen),
      fsm_(config_, 5, core::resource_pool::create(nodes_).value(),
           r_.chance(0.3) ? std::optional<std::uint64_t>(seed) : std::nullopt)
{
    random_workload();
    if (r_.chance(0.3)) {
        auto const from = r_.real(1, 60);
        outage_ = {from, from + r_.real(10, 120)};
    }
}

std::optional<std::string> simulation::run()
{
    if (auto bad = feed(worker::begin{unix_t0, {}})) return bad;
    auto const finale_at = r_.in(20, 300);
    for (std::size_t n = 0; n < 3000 && !exited_; ++n) {
        if (n == finale_at) {
            reliable_ = true;
            if (auto bad = feed(worker::signal_received{SIGTERM})) return bad;
        }
        if (auto bad = step()) return "step " + std::to_string(n) + ": " + *bad;
    }
    return exited_ ? finale() : std::optional<std::string>("the worker did not exit");
}

std::optional<std::string> simulation::step()
{
    ++seen_.steps;
    auto e = choose();
    if (!e) {
        t_ = std::max(t_, armed_.value_or(t_ + 1));
        e = worker::tick{};
    }
    return feed(*e);
}

std::optional<worker_event> simulation::choose()
{
    auto const roll = r_.in(0, 99);
    if (!reliable_ && signals_ < 3 && roll == 0) {
        ++signals_;
        ++seen_.signals;
        static constexpr int kinds[] = {SIGTERM, SIGINT, SIGUSR1};
        return worker::signal_received{kinds[r_.in(0, 2)]};
    }
    if (roll < 8) {
        t_ += r_.real(0, reliable_ ? 0.5 : 4);
        return worker::tick{};
    }
    if (roll == 8 && !reliable_ && r_.chance(0.1)) canceled_ = true;  // seen at the next check
    if (roll < 12 && !outputs_.empty()) {
        auto const id = outputs_.back();
        outputs_.pop_back();
        return worker::outputs_checked{
            id, r_.chance(0.3) ? std::vector<std::string>{"o"} : std::vector<std::string>{}};
    }
    if (roll < 14 && !commands_.empty()) {
        auto const id = commands_.back();
        commands_.pop_back();
        return worker::action_finished{id, r_.chance(0.8), "x"};
    }
    if (roll < 50) {
        if (auto e = process_event()) return e;
    }
    if (auto e = answer_one()) return e;
    return process_event();
}

std::optional<worker_event> simulation::process_event()
{
    if (procs_.empty()) return std::nullopt;
    auto const pick = static_cast<std::ptrdiff_t>(r_.in(0, procs_.size() - 1));
    auto const it = std::next(procs_.begin(), pick);
    auto& p = it->second;
    auto const id = p.job;
    if (!p.spawned) {
        p.spawned = true;
        if (reliable_ || !r_.chance(0.05)) return worker::job_spawned{id};
        procs_.erase(it);
        return worker::spawn_failed{id, "spawn: no"};
    }
    core::exit_status status = exited(0);
    if (p.kill) {
        status = killed(SIGKILL);
    } else if (p.term) {
        if (p.ignores_term) return std::nullopt;  // waits for SIGKILL
        status = r_.chance(0.5) ? killed(SIGTERM) : exited(0);
    } else if (reliable_) {
        return std::nullopt;
    } else {
        auto const roll = r_.in(0, 99);
        if (roll < 5) return worker::memory_used{id, 100 * gib};
        status = roll < 60   ? exited(0)
                 : roll < 80 ? exited(1)
                 : roll < 90 ? exited(3)
                             : killed(SIGSEGV);
    }
    procs_.erase(it);
    return worker::job_exited{id, status, std::nullopt, std::nullopt};
}

std::optional<std::string> simulation::feed(worker_event const& e)
{
    if (exited_) return "an event after the exit";
    for (auto const& a : fsm_.on(e, at(t_)))
        if (auto bad = check(a)) return *bad + " (" + core::describe(a) + ")";
    if (auto bad = fsm_.check_invariants()) return "invariant: " + *bad;
    return std::nullopt;
}

std::optional<std::string> simulation::check(core::worker_action const& a)
{
    if (auto id = core::request_of(a)) {
        open_[*id] = a;
        retrying_.erase(*id);
    }
    if (auto const* s = std::get_if<worker::start_job>(&a)) {
        auto const& j = jobs_.at(s->job_id);
        if (j.status != sstatus::pending || !j.claimed_here)
            return "start_job of a job not pending here";
    } else if (auto const* sp = std::get_if<worker::spawn>(&a)) {
        return check_spawn(*sp);
    } else if (auto const* sig = std::get_if<worker::signal_job>(&a)) {
        auto const it = procs_.find(sig->job_id);
        if (it == procs_.end() || !it->second.spawned) return "a signal to no live process";
        (sig->signal == SIGKILL ? it->second.kill : it->second.term) = true;
        seen_.kills += sig->signal == SIGKILL;
    } else if (auto const* c = std::get_if<worker::check_outputs>(&a)) {
        outputs_.push_back(c->job_id);
    } else if (auto const* rc = std::get_if<worker::run_commands>(&a)) {
        commands_.push_back(rc->action_id);
    } else if (auto const* ja = std::get_if<worker::journal_append>(&a)) {
        for (auto const& r : ja->reports)
            if (r.kind == core::report_kind::complete)
                journal_.insert({r.result.job_id, r.result.attempt_id});
        ++seen_.journaled;
    } else if (auto const* jr = std::get_if<worker::journal_remove>(&a)) {
        for (auto const& k : jr->keys)
            if (k.kind == core::report_kind::complete && !journal_.erase({k.job_id, k.attempt_id}))
                return "journal_remove of a result not in the journal";
    } else if (auto const* timer = std::get_if<worker::arm_timer>(&a)) {
        if (timer->at < at(t_)) return "a timer in the past";
        armed_ = std::chrono::duration<double>(timer->at.time_since_epoch()).count();
    } else if (auto const* l = std::get_if<worker::log>(&a)) {
        if (l->level == core::log_severity::error && l->message.starts_with("job "))
            errored_.insert(std::stoll(l->message.substr(4)));
        // With a reliable server the stop runs out of time only while the shell owes something.
        bool const owed = !open_.empty() || !retrying_.empty() || !procs_.empty() ||
                          !outputs_.empty() || !commands_.empty();
        if (reliable_ && !owed && l->message == "worker: the stop ran out of time; exiting now")
            return "the stop ran out of time waiting for nothing";
    } else if (auto const* x = std::get_if<worker::exit_worker>(&a)) {
        exited_ = true;
        seen_.exit_1 += x->code == 1;
    }
    return std::nullopt;
}

// The job was started on the server, has no process yet, and its shares fit beside the live
// processes: CPUs per node within capacity, no GPU id twice, whole nodes shared with nobody.
std::optional<std::string> simulation::check_spawn(worker::spawn const& s)
{
    if (jobs_.at(s.job.id).status != sstatus::running) return "spawn before start_job";
    if (procs_.contains(s.job.id)) return "a second process for one job";
    process p;
    p.job = s.job.id;
    p.ignores_term = r_.chance(0.2);
    for (auto const& share : s.placement.nodes) {
        std::uint32_t used = share.cpus;
        for (auto const& [id, other] : procs_) {
            for (auto const& [node, cpus] : other.cpus) {
                if (node != share.node_index) continue;
                if (s.placement.whole_nodes) return "a whole node shared";
                used += cpus;
            }
            for (auto const& g : share.gpu_ids)
                if (std::ranges::count(other.gpus, std::pair{share.node_index, g}) > 0)
                    return "GPU " + g + " held by two processes";
        }
        if (used > nodes_[share.node_index].cpus) return "CPUs oversubscribed";
        p.cpus.emplace_back(share.node_index, share.cpus);
        for (auto const& g : share.gpu_ids) p.gpus.emplace_back(share.node_index, g);
    }
    procs_.emplace(s.job.id, std::move(p));
    ++seen_.spawns;
    return std::nullopt;
}

std::optional<std::string> simulation::finale()
{
    auto const& l = fsm_.ledger();
    if (fsm_.live_jobs() != 0 || l.claimed != l.ended()) return "the ledger does not balance";
    for (auto const& [id, j] : jobs_)
        if (j.claimed_here && (j.status == sstatus::pending || j.status == sstatus::running) &&
            !errored_.contains(id))
            return "job " + std::to_string(id) + " stranded on the server without an error log";
    for (auto const& [id, p] : procs_)
        if (!errored_.contains(id)) return "job " + std::to_string(id) + " left running silently";
    for (auto const& [id, attempt] : journal_)
        if (!errored_.contains(id)) return "job " + std::to_string(id) + " journaled silently";
    seen_.deadline += fsm_.reason() == core::stop_reason::deadline;
    seen_.lost += fsm_.reason() == core::stop_reason::server_lost;
    seen_.idle += fsm_.reason() == core::stop_reason::idle;
    return std::nullopt;
}

std::optional<std::string> run_sequence(std::uint64_t seed, tally& seen)
{
    return simulation(seed, seen).run();
}

}  // namespace fsm_sim
