// The simulated server of worker_fsm_simulation.hpp: the workload, the configuration drawn for
// each worker, and the answer to each request (or its failure): the fence of job transitions
// by node and attempt, re-sent requests answered as the first (claims by their key, retries by the
// server's memory of which node retried which attempt), node leases
// renewed by heartbeats and expired by the sweep, deactivated nodes' jobs back to ready (running
// ones on a new attempt), replies lost after the server applied the request, and restarts.
#include "worker_fsm_simulation.hpp"

namespace fsm_sim {

core::worker_config simulation::random_config()
{
    core::worker_config c;
    c.server.extensions = r_.chance(0.7);
    c.server.lost_lease =
        r_.chance(0.7) ? core::lost_lease_policy::stop : core::lost_lease_policy::finish;
    c.limits.enforce_memory = r_.chance(0.5);
    c.poll.long_poll_seconds = r_.chance(0.5) ? 30 : 0;
    c.termination.grace_seconds = r_.chance(0.3) ? 0 : 30;
    c.limits.idle_timeout_seconds = r_.chance(0.5) ? 0 : 20;
    if (r_.chance(0.3)) c.limits.runtime_factor = 2;
    c.server.retry_window_seconds = r_.chance(0.5) ? 30 : 600;
    // Windows past the lease are explored here; refusing them is worker_fsm_lease's test.
    c.server.allow_retry_beyond_lease = true;
    if (r_.chance(0.3)) c.termination.end_time = unix_t0 + static_cast<double>(r_.in(60, 600));
    return c;
}

std::vector<core::node_capacity> simulation::random_pool()
{
    switch (r_.in(0, 2)) {
    case 0:
        return {node("n0", 8, 16 * gib, 4)};
    case 1:
        return {node("n0", 8, 16 * gib, 4), node("n1", 8, 16 * gib, 4)};
    default:
        return {node("n0", 4, 8 * gib, 0)};
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

// Nodes whose last heartbeat is older than the lease are lost: their jobs go back to ready (the
// server's lost_worker_jobs ready). Nodes that never beat hold no lease.
void simulation::sweep()
{
    for (auto& [id, n] : server_nodes_) {
        if (!n.active || n.last_beat < 0 || t_ - n.last_beat <= lease_) continue;
        n.active = false;
        ++seen_.leases_expired;
        release_node(id);
    }
}

// A lost or deactivated node's jobs: pending ones on their attempt, running ones on the next (the
// old attempt's process may live on with lost_lease_policy finish), as the real server does.
void simulation::release_node(std::int64_t node)
{
    for (auto& [id, j] : jobs_) {
        if (j.holder != node || (j.status != sstatus::pending && j.status != sstatus::running))
            continue;
        if (j.status == sstatus::running) ++j.job.attempt_id;
        j.status = sstatus::ready;
        j.holder = 0;
    }
}

// Every request in flight fails; every active node gets a full lease from now; claim keys may
// be forgotten (a server that keeps them in memory).
std::optional<std::string> simulation::restart_server()
{
    ++seen_.restarts;
    bool const forget = r_.chance(0.5);
    for (auto& [id, n] : server_nodes_) {
        if (n.last_beat >= 0) n.last_beat = t_;
        if (forget) n.claims.clear();
    }
    for (auto& w : workers_) {
        std::vector<core::request_id> flying;
        for (auto const& [id, a] : w->open) flying.push_back(id);
        for (auto const id : flying) {
            w->open.erase(id);
            w->retrying.insert(id);
            if (w->exited) continue;
            if (auto bad = feed(*w, worker::request_failed{id, http_failure::reset, 0, "restart"}))
                return bad;
        }
    }
    return std::nullopt;
}

std::optional<worker_event> simulation::answer_one(sim_worker& w)
{
    if (w.open.empty()) return std::nullopt;
    auto const pick = static_cast<std::ptrdiff_t>(r_.in(0, w.open.size() - 1));
    auto const it = std::next(w.open.begin(), pick);
    auto const id = it->first;
    auto const action = it->second;
    w.open.erase(it);
    if (trace_) *trace_ << "  answering " << core::describe(action) << '\n';
    bool const outage = !reliable_ && t_ >= outage_.first && t_ < outage_.second;
    auto const roll = outage ? 0 : reliable_ ? 99 : r_.in(0, 99);
    if (roll < 12) {
        static constexpr http_failure kinds[] = {http_failure::connect, http_failure::timeout,
                                                 http_failure::reset, http_failure::http_5xx};
        w.retrying.insert(id);
        return worker::request_failed{id, kinds[r_.in(0, 3)], 0, "down"};
    }
    if (roll < 15 && !std::holds_alternative<worker::heartbeat>(action)) {
        bool const batch = std::holds_alternative<worker::complete_jobs>(action) ||
                           std::holds_alternative<worker::complete_and_claim>(action);
        int const status = batch && r_.chance(0.5) ? 404 : 422;
        return worker::request_failed{id, http_failure::http_4xx, status, "refused"};
    }
    sweep();
    auto reply = answer(w, id, action);
    // Applied, but the reply never came. Without the extensions a re-sent claim carries no key,
    // so nothing can find the jobs the first one took (as with Torc v0.10's own workers).
    if (roll < 19 && w.config.server.extensions) {
        ++seen_.replies_lost;
        w.retrying.insert(id);
        return worker::request_failed{
            id, r_.chance(0.5) ? http_failure::timeout : http_failure::reset, 0, "lost"};
    }
    return reply;
}

// What the server does with a job transition from node `by`: the fence first (the node holds
// the job on that attempt), a request that repeats one applied already answered as it was.
// nullopt for every other request.
std::optional<worker_event> simulation::job_answer(sim_worker& w, core::request_id id,
                                                   core::worker_action const& a)
{
    auto const by = w.sent_by.at(id);
    worker_event const done = worker::request_done{id};
    worker_event const fenced =
        worker::request_failed{id, http_failure::http_4xx, 409, "not this node's"};
    auto const holds = [&](server_job const& j, std::uint32_t attempt) {
        return j.holder == by && j.job.attempt_id == attempt && server_nodes_.at(by).active;
    };
    if (auto const* s = std::get_if<worker::start_job>(&a)) {
        auto& j = jobs_.at(s->job_id);
        if (!holds(j, s->attempt_id)) return fenced;
        if (j.status == sstatus::pending) j.status = sstatus::running;
        return j.status == sstatus::running ? done : fenced;
    }
    if (auto const* h = std::get_if<worker::hand_back>(&a)) {
        auto& j = jobs_.at(h->job_id);
        if (j.status == sstatus::ready && j.holder == 0) return done;
        if (!holds(j, h->attempt_id) || j.status == sstatus::done) return fenced;
        j.status = sstatus::ready;
        j.holder = 0;
        ++seen_.hand_backs;
        return done;
    }
    if (auto const* r = std::get_if<worker::retry_job>(&a)) {
        auto& j = jobs_.at(r->job_id);
        auto const key = std::pair{r->job_id, r->attempt_id};
        if (auto const it = retried_.find(key); it != retried_.end() && it->second == by) {
            ++seen_.retries_repeated;
            return done;
        }
        if (!holds(j, r->attempt_id) || j.status != sstatus::running) {
            seen_.retries_bumped += j.job.attempt_id > r->attempt_id && !retried_.contains(key);
            return fenced;
        }
        if (j.job.attempt_id >= r->max_retries)
            return worker::request_failed{id, http_failure::http_4xx, 422, "no"};
        j.status = sstatus::ready;
        j.holder = 0;
        ++j.job.attempt_id;
        retried_[key] = by;
        ++seen_.retries;
        return done;
    }
    return std::nullopt;
}

worker_event simulation::answer(sim_worker& w, core::request_id id, core::worker_action const& a)
{
    if (auto e = job_answer(w, id, a)) return *e;
    worker_event const done = worker::request_done{id};
    worker_event const refuse = worker::request_failed{id, http_failure::http_4xx, 422, "no"};
    auto const by = w.sent_by.at(id);
    return std::visit(
        [&](auto const& x) -> worker_event {
            using A = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<A, worker::register_node>) {
                auto const node = next_node_++;
                server_nodes_[node] = {true, -1, {}};
                return worker::node_registered{id, node};
            } else if constexpr (std::is_same_v<A, worker::heartbeat>) {
                auto& n = server_nodes_.at(by);
                if (!n.active)
                    return worker::request_failed{id, http_failure::http_4xx, 409, "inactive"};
                n.last_beat = t_;
                return worker::heartbeat_answered{id, lease_};
            } else if constexpr (std::is_same_v<A, worker::read_held_jobs>) {
                return held_answer(w, id);
            } else if constexpr (std::is_same_v<A, worker::read_workflow>) {
                return worker::workflow_read{id, 1, r_.chance(0.3)};
            } else if constexpr (std::is_same_v<A, worker::read_pending_actions>) {
                std::vector<core::workflow_action> actions;
                if (r_.chance(0.3)) actions.push_back(fsm_test::commands_action(7, {"c"}));
                if (r_.chance(0.2)) actions.push_back(fsm_test::other_action(8, "schedule_nodes"));
                return worker::pending_actions_read{id, actions};
            } else if constexpr (std::is_same_v<A, worker::claim_action>) {
                return worker::action_claim_read{id, r_.chance(0.7), std::nullopt};
            } else if constexpr (std::is_same_v<A, worker::claim_jobs>) {
                return claim_answer(w, id, x);
            } else if constexpr (std::is_same_v<A, worker::read_requirements>) {
                return worker::requirements_read{id, rr_.at(x.requirements_id)};
            } else if constexpr (std::is_same_v<A, worker::read_failure_handler>) {
                return worker::failure_handler_read{id, handler_};
            } else if constexpr (std::is_same_v<A, worker::complete_job>) {
                auto const reply = report_answer(w, id, {x.result});
                auto const& r = std::get<worker::jobs_reported>(reply);
                if (!r.completed.empty()) return done;
                return worker::request_failed{id, http_failure::http_4xx, 409, "not this node's"};
            } else if constexpr (std::is_same_v<A, worker::complete_jobs>) {
                return report_answer(w, id, x.results);
            } else if constexpr (std::is_same_v<A, worker::complete_and_claim>) {
                // the completions, then the claim in the same step; a refused claim (an
                // inactive node) is answered beside the completions
                worker::completed_and_claimed out{id, {}, {}, std::nullopt};
                out.reported = std::get<worker::jobs_reported>(report_answer(w, id, x.results));
                auto claim = claim_answer(w, id, x.claim);
                if (auto const* refused = std::get_if<worker::request_failed>(&claim))
                    out.claim_error = worker::claim_refusal{refused->http_status, refused->message};
                else
                    out.claimed = std::get<worker::jobs_claimed>(claim);
                ++seen_.exchanges;
                return out;
            } else if constexpr (std::is_same_v<A, worker::check_workflow>) {
                bool const complete = std::ranges::all_of(
                    jobs_, [](auto const& j) { return j.second.status == sstatus::done; });
                return worker::workflow_state_read{id, complete || canceled_, canceled_};
            } else if constexpr (std::is_same_v<A, worker::deactivate_node>) {
                server_nodes_.at(by).active = false;
                release_node(by);
                return done;
            } else {
                (void)refuse;
                return done;  // record_result
            }
        },
        a);
}

// Mostly what fits the claim (per job against one node, then greedily); now and then more. A
// claim with `start` makes them running for the node (unless this server ignores it, as Torc's
// does); a claim re-sent under its key gets the first answer's jobs that the node still holds
// pending, or running when it starts; an inactive node gets a 409.
worker_event simulation::claim_answer(sim_worker& w, core::request_id id,
                                      worker::claim_jobs const& c)
{
    auto const by = w.sent_by.at(id);
    auto& node = server_nodes_.at(by);
    if (!node.active)
        return worker::request_failed{id, http_failure::http_4xx, 409,
                                      "compute node " + std::to_string(by) + " is inactive"};
    worker::jobs_claimed reply{id, {}};
    bool const start = c.start && starts_claims_;
    auto const handed = [&](server_job const& j) {
        auto out = j.job;
        out.started = j.status == sstatus::running;
        reply.jobs.push_back(out);
    };
    if (auto const first = node.claims.find(id); first != node.claims.end()) {
        for (auto const job_id : first->second)
            if (auto const& j = jobs_.at(job_id);
                j.holder == by && (j.status == sstatus::pending ||
                                   (start && j.status == sstatus::running))) {
                seen_.started_again += j.status == sstatus::running;
                handed(j);
            }
        return reply;
    }
    auto& keyed = node.claims[id];
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
        j.status = start ? sstatus::running : sstatus::pending;
        j.holder = by;
        seen_.started_by_claims += start;
        w.claimed.insert(job_id);
        keyed.push_back(job_id);
        handed(j);
    }
    return reply;
}

// Each result is accepted when its node holds the running attempt, or repeats the completion
// the server accepted from that node; otherwise fenced off (409).
worker_event simulation::report_answer(sim_worker& w, core::request_id id,
                                       std::vector<core::job_result> const& results)
{
    worker::jobs_reported reply{id, {}, {}};
    for (auto const& result : results) {
        auto& j = jobs_.at(result.job_id);
        auto const node = result.compute_node_id;
        bool const attempt = j.job.attempt_id == result.attempt_id;
        if (j.status == sstatus::done && j.done_by == node && attempt) {
            reply.completed.push_back(result.job_id);
            continue;
        }
        auto const known = server_nodes_.find(node);
        if (j.status != sstatus::running || j.holder != node || !attempt ||
            known == server_nodes_.end() || !known->second.active) {
            reply.rejected.push_back({result.job_id, "not this node's", 409});
            continue;
        }
        if (!w.ran.contains({result.job_id, result.attempt_id}))
            violation_ = "job " + std::to_string(result.job_id) + " attempt " +
                         std::to_string(result.attempt_id) + " reported by a worker that never ran it";
        if (!completed_.insert({result.job_id, result.attempt_id}).second)
            violation_ = "job " + std::to_string(result.job_id) + " attempt " +
                         std::to_string(result.attempt_id) + " completed twice";
        j.status = sstatus::done;
        j.done_by = node;
        reply.completed.push_back(result.job_id);
    }
    return reply;
}

worker_event simulation::held_answer(sim_worker& w, core::request_id id)
{
    auto const by = w.sent_by.at(id);
    worker::held_jobs_read reply{id, {}};
    for (auto const& [job_id, j] : jobs_) {
        if (j.holder != by) continue;
        if (j.status == sstatus::pending) reply.jobs.push_back({job_id, "pending", j.job.attempt_id});
        if (j.status == sstatus::running) reply.jobs.push_back({job_id, "running", j.job.attempt_id});
    }
    return reply;
}

}  // namespace fsm_sim
