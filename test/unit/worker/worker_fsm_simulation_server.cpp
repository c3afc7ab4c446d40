// The simulated server of worker_fsm_simulation.hpp: the workload, the configuration drawn for
// a sequence, and the answer to each request (or its failure).
#include "worker_fsm_simulation.hpp"

namespace fsm_sim {

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
// start_job, hand_back and retry_job change the job; nullopt for every other request.
std::optional<worker_event> simulation::job_answer(core::request_id id,
                                                   core::worker_action const& a)
{
    worker_event const done = worker::request_done{id};
    worker_event const refuse = worker::request_failed{id, http_failure::http_4xx, 422, "no"};
    if (auto const* s = std::get_if<worker::start_job>(&a)) {
        auto& j = jobs_.at(s->job_id);
        if (j.status != sstatus::pending) return refuse;
        j.status = sstatus::running;
        return done;
    }
    if (auto const* h = std::get_if<worker::hand_back>(&a)) {
        jobs_.at(h->job_id).status = sstatus::ready;
        ++seen_.hand_backs;
        return done;
    }
    if (auto const* r = std::get_if<worker::retry_job>(&a)) {
        auto& j = jobs_.at(r->job_id);
        if (j.status != sstatus::running || j.job.attempt_id >= r->max_retries) return refuse;
        j.status = sstatus::ready;
        ++j.job.attempt_id;
        ++seen_.retries;
        return done;
    }
    return std::nullopt;
}

worker_event simulation::answer(core::request_id id, core::worker_action const& a)
{
    if (auto e = job_answer(id, a)) return *e;
    worker_event const done = worker::request_done{id};
    worker_event const refuse = worker::request_failed{id, http_failure::http_4xx, 422, "no"};
    return std::visit(
        [&](auto const& x) -> worker_event {
            using A = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<A, worker::register_node>) {
                return worker::node_registered{id, 9};
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
                return claim_answer(id, x);
            } else if constexpr (std::is_same_v<A, worker::read_requirements>) {
                return worker::requirements_read{id, rr_.at(x.requirements_id)};
            } else if constexpr (std::is_same_v<A, worker::read_failure_handler>) {
                return worker::failure_handler_read{id, handler_};
            } else if constexpr (std::is_same_v<A, worker::complete_job>) {
                auto const reply = report_answer(id, {x.result});
                auto const& r = std::get<worker::jobs_reported>(reply);
                return r.completed.empty() ? refuse : done;
            } else if constexpr (std::is_same_v<A, worker::complete_jobs>) {
                return report_answer(id, x.results);
            } else if constexpr (std::is_same_v<A, worker::check_workflow>) {
                bool const complete = std::ranges::all_of(
                    jobs_, [](auto const& j) { return j.second.status == sstatus::done; });
                return worker::workflow_state_read{id, complete || canceled_, canceled_};
            } else {
                return done;  // record_result, deactivate_node
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

}  // namespace fsm_sim
