// The simulated shells of worker_fsm_simulation.hpp: the steps of a sequence, time (every
// worker's timer fires when due, and what a shell does at once - a spawn, the death of a
// SIGKILLed process - happens before time moves on), processes, and the checks of every action
// a worker asks for.
#include "worker_fsm_simulation.hpp"

#include <array>

namespace fsm_sim {

simulation::simulation(std::uint64_t seed, tally& seen, std::ostream* trace)
    : r_{std::mt19937_64{seed}}, seen_(seen), trace_(trace)
{
    auto const count = r_.chance(0.5) ? 1 : r_.in(2, 3);
    seen_.multi += count > 1;
    for (std::uint64_t i = 0; i < count; ++i) {
        auto const jitter = r_.chance(0.3) ? std::optional<std::uint64_t>(seed + i) : std::nullopt;
        workers_.push_back(std::make_unique<sim_worker>(random_config(), nodes_, jitter));
    }
    lease_ = static_cast<double>(std::array{10, 30, 120}[r_.in(0, 2)]);
    starts_claims_ = r_.chance(0.8);
    random_workload();
    if (r_.chance(0.3)) {
        auto const from = r_.real(1, 60);
        outage_ = {from, from + r_.real(10, 120)};
    }
}

std::optional<std::string> simulation::run()
{
    for (auto& w : workers_)
        if (auto bad = feed(*w, worker::begin{unix_t0, {}})) return bad;
    auto const finale_at = r_.in(20, 300) * workers_.size();
    auto const live = [&] {
        return std::ranges::any_of(workers_, [](auto const& w) { return !w->exited; });
    };
    for (std::size_t n = 0; n < 3000 * workers_.size() && live(); ++n) {
        if (n == finale_at) {
            reliable_ = true;
            for (auto& w : workers_)
                if (!w->exited)
                    if (auto bad = feed(*w, worker::signal_received{SIGTERM})) return bad;
        }
        if (auto bad = step()) return "step " + std::to_string(n) + ": " + *bad;
    }
    if (live()) return "a worker did not exit";
    if (violation_) return violation_;
    t_ += lease_ + 1;  // the leases of nodes nobody beats for any more run out
    sweep();
    for (auto const& w : workers_)
        if (auto bad = finale(*w)) return bad;
    return std::nullopt;
}

std::optional<std::string> simulation::step()
{
    ++seen_.steps;
    std::vector<sim_worker*> live;
    for (auto& w : workers_)
        if (!w->exited) live.push_back(w.get());
    auto& w = *live[r_.in(0, live.size() - 1)];
    if (violation_) return violation_;
    if (!reliable_ && r_.chance(0.002)) return restart_server();
    auto const roll = r_.in(0, 99);
    if (roll < 8) {
        if (auto bad = advance(t_ + r_.real(0, reliable_ ? 0.5 : 4))) return bad;
        return w.exited ? std::nullopt : feed(w, worker::tick{});
    }
    auto e = choose(w);
    if (!e) {
        if (auto bad = advance(std::max(t_, w.armed.value_or(t_ + 1)))) return bad;
        return w.exited ? std::nullopt : feed(w, worker::tick{});
    }
    return feed(w, *e);
}

// Moves time to `to`: first what every shell does at once, then each timer due on the way, in
// time order, each followed again by what the shells do at once.
std::optional<std::string> simulation::advance(double to)
{
    int same = 0;  // ticks at one time in a row
    for (;;) {
        for (auto& w : workers_)
            while (!w->exited)
                if (auto e = prompt_event(*w)) {
                    if (auto bad = feed(*w, *e)) return bad;
                } else {
                    break;
                }
        sim_worker* due = nullptr;
        for (auto& w : workers_)
            if (!w->exited && w->armed && *w->armed <= to && (!due || *w->armed < *due->armed))
                due = w.get();
        if (!due) break;
        auto const when = std::max(t_, *due->armed);
        same = when == t_ ? same + 1 : 0;
        if (same > 100) return "timers due at " + std::to_string(t_) + " that never end";
        t_ = when;
        due->armed.reset();
        if (auto bad = feed(*due, worker::tick{})) return bad;
    }
    t_ = std::max(t_, to);
    return std::nullopt;
}

std::optional<worker_event> simulation::choose(sim_worker& w)
{
    auto const roll = r_.in(0, 99);
    if (!reliable_ && w.signals < 3 && roll == 0) {
        ++w.signals;
        ++seen_.signals;
        static constexpr int kinds[] = {SIGTERM, SIGINT, SIGUSR1};
        return worker::signal_received{kinds[r_.in(0, 2)]};
    }
    if (roll == 8 && !reliable_ && r_.chance(0.1)) canceled_ = true;  // seen at the next check
    if (roll < 12 && !w.outputs.empty()) {
        auto const id = w.outputs.back();
        w.outputs.pop_back();
        return worker::outputs_checked{
            id, r_.chance(0.3) ? std::vector<std::string>{"o"} : std::vector<std::string>{}};
    }
    if (roll < 14 && !w.commands.empty()) {
        auto const id = w.commands.back();
        w.commands.pop_back();
        return worker::action_finished{id, r_.chance(0.8), "x"};
    }
    if (roll < 50) {
        if (auto e = process_event(w)) return e;
    }
    if (auto e = answer_one(w)) return e;
    return process_event(w);
}

// A spawn is answered, and a SIGKILLed process dies, before time moves on.
std::optional<worker_event> simulation::prompt_event(sim_worker& w)
{
    for (auto it = w.procs.begin(); it != w.procs.end(); ++it) {
        auto& p = it->second;
        auto const id = p.job;
        if (!p.spawned) {
            p.spawned = true;
            if (reliable_ || !r_.chance(0.05)) return worker::job_spawned{id};
            w.procs.erase(it);
            return worker::spawn_failed{id, "spawn: no"};
        }
        if (p.kill) {
            w.procs.erase(it);
            return worker::job_exited{id, killed(SIGKILL), std::nullopt, std::nullopt, "", {}};
        }
    }
    return std::nullopt;
}

std::optional<worker_event> simulation::process_event(sim_worker& w)
{
    if (w.procs.empty()) return std::nullopt;
    auto const pick = static_cast<std::ptrdiff_t>(r_.in(0, w.procs.size() - 1));
    auto const it = std::next(w.procs.begin(), pick);
    auto& p = it->second;
    if (!p.spawned || p.kill) return prompt_event(w);
    auto const id = p.job;
    core::exit_status status = exited(0);
    if (p.term) {
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
    w.procs.erase(it);
    return worker::job_exited{id, status, std::nullopt, std::nullopt, "", {}};
}

std::optional<std::string> simulation::feed(sim_worker& w, worker_event const& e)
{
    if (w.exited) return "an event after the exit";
    if (auto const* r = std::get_if<worker::node_registered>(&e)) {  // what the shell learns
        w.node = r->compute_node_id;
        w.nodes.insert(w.node);
    }
    if (trace_) *trace_ << t_ << " node " << w.node << ": event " << e.index() << '\n';
    for (auto const& a : w.fsm.on(e, at(t_))) {
        if (trace_) *trace_ << "    " << core::describe(a) << '\n';
        if (auto bad = check(w, a)) return *bad + " (" + core::describe(a) + ")";
    }
    if (auto bad = w.fsm.check_invariants()) return "invariant: " + *bad;
    return std::nullopt;
}

std::optional<std::string> simulation::check(sim_worker& w, core::worker_action const& a)
{
    if (auto id = core::request_of(a)) {
        w.open[*id] = a;
        w.sent_by[*id] = w.node;
        w.retrying.erase(*id);
    }
    if (auto const* s = std::get_if<worker::start_job>(&a)) {
        if (!w.claimed.contains(s->job_id)) return "start_job of a job never claimed here";
    } else if (auto const* sp = std::get_if<worker::spawn>(&a)) {
        return check_spawn(w, *sp);
    } else if (auto const* sig = std::get_if<worker::signal_job>(&a)) {
        auto const it = w.procs.find(sig->job_id);
        if (it == w.procs.end() || !it->second.spawned) return "a signal to no live process";
        (sig->signal == SIGKILL ? it->second.kill : it->second.term) = true;
        seen_.kills += sig->signal == SIGKILL;
    } else if (auto const* rec = std::get_if<worker::run_recovery>(&a)) {
        if (!retry_made_by(w, rec->job_id, rec->attempt_id))
            return "a recovery script for a retry none of this worker's nodes made";
    } else if (auto const* rr = std::get_if<worker::record_result>(&a)) {
        if (!retry_made_by(w, rr->result.job_id, rr->result.attempt_id))
            return "a record of an attempt whose retry none of this worker's nodes made";
    } else if (auto const* c = std::get_if<worker::check_outputs>(&a)) {
        w.outputs.push_back(c->job_id);
    } else if (auto const* rc = std::get_if<worker::run_commands>(&a)) {
        w.commands.push_back(rc->action_id);
    } else if (auto const* ja = std::get_if<worker::journal_append>(&a)) {
        for (auto const& r : ja->reports)
            if (r.kind == core::report_kind::complete)
                w.journal.insert({r.result.job_id, r.result.attempt_id});
        ++seen_.journaled;
    } else if (auto const* jr = std::get_if<worker::journal_remove>(&a)) {
        for (auto const& k : jr->keys)
            if (k.kind == core::report_kind::complete && !w.journal.erase({k.job_id, k.attempt_id}))
                return "journal_remove of a result not in the journal";
    } else if (auto const* timer = std::get_if<worker::arm_timer>(&a)) {
        if (timer->at < at(t_)) return "a timer in the past";
        w.armed = std::chrono::duration<double>(timer->at.time_since_epoch()).count();
    } else if (auto const* l = std::get_if<worker::log>(&a)) {
        if (l->level == core::log_severity::error && l->message.starts_with("job "))
            w.errored.insert(std::stoll(l->message.substr(4)));
        seen_.leases_lost += l->message.find(" is lost (") != std::string::npos;
        seen_.reregistered += l->message.starts_with("worker: registered again");
        seen_.reconciled += l->message.starts_with("worker: reconciled");
        // With a reliable server the stop runs out of time only while the shell owes something.
        bool const owed = !w.open.empty() || !w.retrying.empty() || !w.procs.empty() ||
                          !w.outputs.empty() || !w.commands.empty();
        if (reliable_ && !owed && l->message == "worker: the stop ran out of time; exiting now")
            return "the stop ran out of time waiting for nothing";
    } else if (auto const* x = std::get_if<worker::exit_worker>(&a)) {
        w.exited = true;
        seen_.exit_1 += x->code == 1;
    }
    return std::nullopt;
}

bool simulation::retry_made_by(sim_worker const& w, std::int64_t job, std::uint32_t attempt) const
{
    auto const it = retried_.find({job, attempt});
    return it != retried_.end() && w.nodes.contains(it->second);
}

// The job was started on the server by one of this worker's nodes, has no process yet, its
// attempt runs nowhere else (whatever the lost_lease_policy), and its shares fit beside
// the live processes: CPUs per node within capacity, no GPU id twice, whole nodes shared with
// nobody.
std::optional<std::string> simulation::check_spawn(sim_worker& w, worker::spawn const& s)
{
    auto const& j = jobs_.at(s.job.id);
    if (j.status != sstatus::running || !w.nodes.contains(j.holder) ||
        j.job.attempt_id != s.job.attempt_id)
        return "spawn before start_job";
    if (w.procs.contains(s.job.id)) return "a second process for one job";
    for (auto const& other : workers_) {
        if (other.get() == &w || other->exited) continue;
        auto const it = other->procs.find(s.job.id);
        if (it != other->procs.end() && it->second.attempt == s.job.attempt_id)
            return "attempt " + std::to_string(s.job.attempt_id) + " of job " +
                   std::to_string(s.job.id) + " runs on two nodes";
    }
    process p;
    p.job = s.job.id;
    p.attempt = s.job.attempt_id;
    p.ignores_term = r_.chance(0.2);
    for (auto const& share : s.placement.nodes) {
        std::uint32_t used = share.cpus;
        for (auto const& [id, other] : w.procs) {
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
    w.procs.emplace(s.job.id, std::move(p));
    w.ran.insert({s.job.id, s.job.attempt_id});
    ++seen_.spawns;
    return std::nullopt;
}

std::optional<std::string> simulation::finale(sim_worker const& w)
{
    auto const& l = w.fsm.ledger();
    if (w.fsm.live_jobs() != 0 || l.claimed != l.ended()) return "the ledger does not balance";
    for (auto const& [id, j] : jobs_)
        if (w.nodes.contains(j.holder) &&
            (j.status == sstatus::pending || j.status == sstatus::running) &&
            !w.errored.contains(id))
            return "job " + std::to_string(id) + " stranded on the server without an error log (" +
                   (j.status == sstatus::pending ? "pending" : "running") + " on compute node " +
                   std::to_string(j.holder) + ")";
    for (auto const& [id, p] : w.procs)
        if (!w.errored.contains(id)) return "job " + std::to_string(id) + " left running silently";
    for (auto const& [id, attempt] : w.journal)
        if (!w.errored.contains(id)) return "job " + std::to_string(id) + " journaled silently";
    seen_.deadline += w.fsm.reason() == core::stop_reason::deadline;
    seen_.lost += w.fsm.reason() == core::stop_reason::server_lost;
    seen_.idle += w.fsm.reason() == core::stop_reason::idle;
    return std::nullopt;
}

std::optional<std::string> run_sequence(std::uint64_t seed, tally& seen, std::ostream* trace)
{
    return simulation(seed, seen, trace).run();
}

}  // namespace fsm_sim
