// worker_fsm against a simulated server and shell: random replies (with transient failures and
// refusals), random process exits, signals and time jumps. After every step the state machine's
// invariants hold and its actions are checked against the simulation: start_job only for jobs
// claimed by it, spawn only after start_job was accepted, no GPU or CPU of a node held by two
// live processes, signals only to live processes, timers never in the past. At the end (the
// simulation forces a SIGTERM after a while) the worker has exited, its ledger balances, and no
// job it claimed is left pending or running on the server without an error log naming it.
// Each sequence has its own seed; a failure names it, and run_sequence(seed) replays it.
#include "worker_fsm_harness.hpp"

#include <boost/test/data/test_case.hpp>

#include <map>
#include <random>
#include <set>

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

struct random_source {
    std::mt19937_64 rng;
    std::uint64_t in(std::uint64_t lo, std::uint64_t hi)
    {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    }
    double real(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
};

enum class sstatus { ready, pending, running, done };  // the server's view of a job

struct server_job {
    core::claimed_job job;
    sstatus status = sstatus::ready;
    bool claimed_here = false;
};

struct process {
    std::int64_t job = 0;
    bool spawned = false;  // job_spawned sent
    bool term = false;
    bool kill = false;
    bool ignores_term = false;
    std::vector<std::pair<std::size_t, std::string>> gpus;
    std::vector<std::pair<std::size_t, std::uint32_t>> cpus;
};

struct tally {
    std::size_t spawns = 0, retries = 0, hand_backs = 0, journaled = 0, signals = 0, kills = 0,
                deadline = 0, lost = 0, idle = 0, exit_1 = 0, steps = 0;
};

class simulation {
public:
    simulation(std::uint64_t seed, tally& seen);
    std::optional<std::string> run();

private:
    core::worker_config random_config();
    std::vector<core::node_capacity> random_pool();
    void random_workload();
    std::optional<std::string> step();
    std::optional<worker_event> choose();
    std::optional<worker_event> answer_one();
    worker_event answer(core::request_id id, core::worker_action const& a);
    worker_event claim_answer(core::request_id id, worker::claim_jobs const& c);
    worker_event report_answer(core::request_id id, std::vector<core::job_result> const& rs);
    std::optional<worker_event> process_event();
    std::optional<std::string> feed(worker_event const& e);
    std::optional<std::string> check(core::worker_action const& a);
    std::optional<std::string> check_spawn(worker::spawn const& s);
    std::optional<std::string> finale();

    random_source r_;
    tally& seen_;
    core::worker_config config_ = random_config();
    std::vector<core::node_capacity> nodes_ = random_pool();
    core::worker_fsm fsm_;
    double t_ = 0;
    std::optional<double> armed_;
    bool exited_ = false;
    bool reliable_ = false;  // the finale: no failures, prompt exits
    int signals_ = 0;
    bool canceled_ = false;
    std::pair<double, double> outage_{-1, -1};  // the server answers nothing in [first, second)
    std::map<std::int64_t, core::job_resources> rr_;
    core::failure_handler handler_{1, {}};
    std::map<std::int64_t, server_job> jobs_;
    std::map<core::request_id, core::worker_action> open_;
    std::set<core::request_id> retrying_;  // failed transiently; the worker re-sends them
    std::map<std::int64_t, process> procs_;
    std::vector<std::int64_t> outputs_;   // check_outputs to answer
    std::vector<std::int64_t> commands_;  // run_commands to answer
    std::set<std::pair<std::int64_t, std::uint32_t>> journal_;
    std::set<std::int64_t> errored_;  // jobs named by an error log
};

simulation::simulation(std::uint64_t seed, tally& seen)
    : r_{std::mt19937_64{seed}}, seen_(seen),
      fsm_(config_, 5, core::resource_pool::create(nodes_).value(),
           r_.chance(0.3) ? std::optional<std::uint64_t>(seed) : std::nullopt)
{
    random_workload();
    if (r_.chance(0.3)) {
        auto const from = r_.real(1, 60);
        outage_ = {from, from + r_.real(10, 120)};
    }
}

core::worker_config simulation::random_config()
{
    core::worker_config c;
    c.server.use_extensions = r_.chance(0.7);
    c.limits.enforce_memory = r_.chance(0.5);
    c.poll.long_poll_seconds = r_.chance(0.5) ? 30 : 0;
    c.termination.grace_seconds = r_.chance(0.3) ? 0 : 30;
    c.limits.idle_timeout_seconds = r_.chance(0.5) ? 0 : 20;
    if (r_.chance(0.3)) c.limits.runtime_factor = 2;
    c.server.retry_window_seconds = r_.chance(0.5) ? 30 : 600;
    if (r_.chance(0.3)) c.termination.end_time = unix_t0 + static_cast<double>(r_.in(60, 600));
    return c;
}

std::vector<core::node_capacity> simulation::random_pool()
{
    switch (r_.in(0, 2)) {
    case 0: return {node("n0", 8, 16 * gib, 4)};
    case 1: return {node("n0", 8, 16 * gib, 4), node("n1", 8, 16 * gib, 4)};
    default: return {node("n0", 4, 8 * gib, 0)};
    }
}

void simulation::random_workload()
{
    auto const& n = nodes_.front();
    for (std::int64_t id = 1; id <= 3; ++id) {
        auto need = needs(static_cast<std::uint32_t>(r_.in(1, n.cpus)), r_.in(0, 4) * gib,
                          static_cast<std::uint32_t>(r_.in(0, n.gpu_ids.size())));
        if (nodes_.size() > 1 && r_.chance(0.2)) need.need.num_nodes = 2;
        if (r_.chance(0.05)) need.need.num_gpus = static_cast<std::uint32_t>(n.gpu_ids.size() + 1);
        need.runtime_seconds = static_cast<double>(r_.in(10, 100));
        rr_[id] = need;
    }
    handler_.rules = {{{1}, false, "fix", 2}};
    if (r_.chance(0.5)) handler_.rules.push_back({{}, true, std::nullopt, 3});
    auto const count = static_cast<std::int64_t>(r_.in(0, 40));
    for (std::int64_t id = 100; id < 100 + count; ++id) {
        auto j = job(id, static_cast<std::int64_t>(r_.in(1, 3)));
        if (r_.chance(0.3)) j.failure_handler_id = 1;
        if (r_.chance(0.2)) j.output_file_ids = {7};
        jobs_[id] = {j};
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
        return worker::outputs_checked{id, r_.chance(0.3) ? std::vector<std::string>{"o"}
                                                          : std::vector<std::string>{}};
    }
    if (roll < 14 && !commands_.empty()) {
        auto const id = commands_.back();
        commands_.pop_back();
        return worker::commands_finished{id, r_.chance(0.8), "x"};
    }
    if (roll < 50) {
        if (auto e = process_event()) return e;
    }
    if (auto e = answer_one()) return e;
    return process_event();
}

std::optional<worker_event> simulation::answer_one()
{
    if (open_.empty()) return std::nullopt;
    auto const pick = static_cast<std::ptrdiff_t>(r_.in(0, open_.size() - 1));
    auto const it = std::next(open_.begin(), pick);
    auto const id = it->first;
    auto const action = it->second;
    open_.erase(it);
    bool const outage = !reliable_ && t_ >= outage_.first && t_ < outage_.second;
    auto const roll = outage ? 0 : reliable_ ? 99 : r_.in(0, 99);
    if (roll < 12) {
        static constexpr http_failure kinds[] = {http_failure::connect, http_failure::timeout,
                                                 http_failure::reset, http_failure::http_5xx};
        retrying_.insert(id);
        return worker::request_failed{id, kinds[r_.in(0, 3)], 0, "down"};
    }
    if (roll < 15) {
        bool const batch = std::holds_alternative<worker::complete_jobs>(action);
        int const status = batch && r_.chance(0.5) ? 404 : 422;
        return worker::request_failed{id, http_failure::http_4xx, status, "refused"};
    }
    return answer(id, action);
}

// What the server does for a request it answers (it did nothing for failed ones).
worker_event simulation::answer(core::request_id id, core::worker_action const& a)
{
    auto done = [id] { return worker_event{worker::request_done{id}}; };
    auto refuse = [id] { return worker_event{worker::request_failed{id, http_failure::http_4xx, 422, "no"}}; };
    return std::visit(
        [&](auto const& x) -> worker_event {
            using A = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<A, worker::register_node>) {
                return worker::node_registered{id, 9};
            } else if constexpr (std::is_same_v<A, worker::read_workflow>) {
                return worker::workflow_read{id, 1, r_.chance(0.3)};
            } else if constexpr (std::is_same_v<A, worker::read_pending_actions>) {
                std::vector<core::workflow_action> actions;
                if (r_.chance(0.3)) actions.push_back({7, "run_commands", {"c"}});
                if (r_.chance(0.2)) actions.push_back({8, "schedule_nodes", {}});
                return worker::pending_actions_read{id, actions};
            } else if constexpr (std::is_same_v<A, worker::claim_action>) {
                return worker::action_claim_read{id, r_.chance(0.7)};
            } else if constexpr (std::is_same_v<A, worker::claim_jobs>) {
                return claim_answer(id, x);
            } else if constexpr (std::is_same_v<A, worker::read_requirements>) {
                return worker::requirements_read{id, rr_.at(x.requirements_id)};
            } else if constexpr (std::is_same_v<A, worker::read_failure_handler>) {
                return worker::failure_handler_read{id, handler_};
            } else if constexpr (std::is_same_v<A, worker::start_job>) {
                auto& j = jobs_.at(x.job_id);
                if (j.status != sstatus::pending) return refuse();
                j.status = sstatus::running;
                return done();
            } else if constexpr (std::is_same_v<A, worker::hand_back>) {
                jobs_.at(x.job_id).status = sstatus::ready;
                ++seen_.hand_backs;
                return done();
            } else if constexpr (std::is_same_v<A, worker::retry_job>) {
                auto& j = jobs_.at(x.job_id);
                if (j.status != sstatus::running || j.job.attempt_id >= x.max_retries) return refuse();
                j.status = sstatus::ready;
                ++j.job.attempt_id;
                ++seen_.retries;
                return done();
            } else if constexpr (std::is_same_v<A, worker::complete_job>) {
                auto const reply = report_answer(id, {x.result});
                auto const& r = std::get<worker::jobs_reported>(reply);
                return r.completed.empty() ? refuse() : done();
            } else if constexpr (std::is_same_v<A, worker::complete_jobs>) {
                return report_answer(id, x.results);
            } else if constexpr (std::is_same_v<A, worker::check_workflow>) {
                bool const complete = std::ranges::all_of(
                    jobs_, [](auto const& j) { return j.second.status == sstatus::done; });
                return worker::workflow_state_read{id, complete || canceled_, canceled_};
            } else {
                return done();  // record_result, deactivate_node
            }
        },
        a);
}

// Mostly what fits the claim (per job against one node, then greedily); now and then more.
worker_event simulation::claim_answer(core::request_id id, worker::claim_jobs const& c)
{
    worker::jobs_claimed reply{id, {}};
    if (canceled_) return reply;
    bool const sloppy = !reliable_ && r_.chance(0.05);
    auto left = c.per_node;
    for (auto& [job_id, j] : jobs_) {
        if (j.status != sstatus::ready) continue;
        if (reply.jobs.size() >= c.limit + (sloppy ? 2 : 0)) break;
        auto const& need = rr_.at(j.job.resource_requirements_id).need;
        bool const fits = need.num_cpus <= left.cpus && need.num_gpus <= left.gpus &&
                          need.memory_bytes <= left.memory_bytes && need.num_nodes <= c.num_nodes;
        if (!fits && !sloppy) continue;
        if (need.num_nodes == 1 && fits) {
            left.cpus -= need.num_cpus;
            left.gpus -= need.num_gpus;
            left.memory_bytes -= need.memory_bytes;
        }
        j.status = sstatus::pending;
        j.claimed_here = true;
        reply.jobs.push_back(j.job);
    }
    return reply;
}

worker_event simulation::report_answer(core::request_id id,
                                       std::vector<core::job_result> const& results)
{
    worker::jobs_reported reply{id, {}, {}};
    for (auto const& result : results) {
        auto& j = jobs_.at(result.job_id);
        if (j.status != sstatus::running) {
            reply.rejected.push_back({result.job_id, "not running"});
            continue;
        }
        j.status = sstatus::done;
        reply.completed.push_back(result.job_id);
    }
    return reply;
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
        status = roll < 60 ? exited(0) : roll < 80 ? exited(1) : roll < 90 ? exited(3)
                                                                         : killed(SIGSEGV);
    }
    procs_.erase(it);
    return worker::job_exited{id, status, std::nullopt};
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
        if (j.status != sstatus::pending || !j.claimed_here) return "start_job of a job not pending here";
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
            if (r.kind == core::report_kind::complete) journal_.insert({r.result.job_id, r.result.attempt_id});
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

constexpr std::uint64_t base_seed = 0x776f'726b'6572'0000;
constexpr std::uint64_t batches = 10;
constexpr std::uint64_t per_batch = 1'000;

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_random)

// 10,000 sequences in 10 batches. To replay a failure, call run_sequence(<printed seed>, ...).
BOOST_DATA_TEST_CASE(random_sequences_keep_every_invariant, bdata::xrange(batches), batch)
{
    std::size_t passed = 0;
    tally seen;
    for (std::uint64_t i = 0; i < per_batch; ++i) {
        auto const seed = base_seed + batch * per_batch + i;
        if (auto const bad = run_sequence(seed, seen)) {
            BOOST_ERROR("seed " << seed << ": " << *bad);
            break;
        }
        ++passed;
    }
    BOOST_TEST(passed == per_batch);
    for (auto const count : {seen.spawns / 10, seen.retries, seen.hand_backs / 10, seen.journaled,
                             seen.signals, seen.kills, seen.deadline, seen.lost, seen.idle,
                             seen.exit_1})
        BOOST_TEST(count >= 5u);
    BOOST_TEST_MESSAGE("spawns " << seen.spawns << ", retries " << seen.retries << ", hand backs "
                                 << seen.hand_backs << ", journal appends " << seen.journaled
                                 << ", signals " << seen.signals << ", SIGKILLs " << seen.kills
                                 << ", deadline " << seen.deadline << ", server lost " << seen.lost
                                 << ", idle " << seen.idle << ", exit 1 " << seen.exit_1
                                 << ", steps " << seen.steps);
}

BOOST_AUTO_TEST_SUITE_END()
