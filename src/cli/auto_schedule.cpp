// See auto_schedule.hpp.
#include "torcrun/cli/auto_schedule.hpp"

#include "torcrun/common/units.hpp"

#include <algorithm>

namespace torcrun::core {
namespace {

// How many jobs of `need` one node offering cpus/memory/gpus holds at once (0: none).
std::uint64_t per_node(job_requirement const& need, std::uint32_t cpus, std::uint64_t memory,
                       std::uint32_t gpus)
{
    std::uint64_t const jc = std::max<std::uint32_t>(need.num_cpus, 1);
    std::uint64_t n = cpus / jc;
    if (need.memory_bytes > 0) n = std::min<std::uint64_t>(n, memory / need.memory_bytes);
    if (need.num_gpus > 0) n = std::min<std::uint64_t>(n, gpus / need.num_gpus);
    return n;
}

std::uint32_t job_nodes(job_requirement const& need) { return std::max<std::uint32_t>(need.num_nodes, 1); }

// Jobs of `need` an allocation of `nodes` holds at once: multi-node jobs take their nodes whole.
std::uint64_t slots(job_requirement const& need, std::uint32_t nodes, std::uint32_t cpus,
                    std::uint64_t memory, std::uint32_t gpus)
{
    auto const each = per_node(need, cpus, memory, gpus);
    if (each == 0) return 0;
    if (job_nodes(need) > 1) return nodes / job_nodes(need);
    return nodes * each;
}

// The rounds of `runtime` a walltime runs one after another (unknown walltime or runtime: 1;
// a walltime shorter than the runtime: 0).
std::uint64_t rounds(std::int64_t runtime, std::optional<std::int64_t> walltime)
{
    if (!walltime || runtime <= 0) return 1;
    return static_cast<std::uint64_t>(*walltime / runtime);
}

std::string shape_text(job_shape const& s)
{
    std::string out = count_of(s.need.num_cpus, "CPU");
    if (s.need.memory_bytes) out += ", " + format_memory(s.need.memory_bytes);
    if (s.need.num_gpus) out += ", " + count_of(s.need.num_gpus, "GPU");
    out += " per node, " + count_of(job_nodes(s.need), "node");
    if (s.runtime_seconds) out += ", runtime " + std::to_string(s.runtime_seconds) + " s";
    return out;
}

std::string job_text(waiting_job const& j)
{
    return "job " + std::to_string(j.id) + " \"" + j.name + "\"";
}

std::string jobs_text(std::vector<waiting_job const*> const& jobs)
{
    std::string out = count_of(jobs.size(), "job") + " (" + job_text(*jobs.front());
    if (jobs.size() > 1) out += ", ...";
    return out + ")";
}

struct group {
    job_shape shape;
    std::vector<waiting_job const*> jobs;
    std::size_t covered = 0;   // the first `covered` jobs have a live allocation
    bool live_fits = false;    // some live allocation can run this shape
};

}  // namespace

std::optional<std::string> partition_refuses(waiting_job const& job, partition_limits const& p)
{
    auto const in = "; partition \"" + p.name + "\" ";
    auto const& n = job.need;
    if (job_nodes(n) > p.allocation_nodes()) {
        return "needs " + count_of(job_nodes(n), "node") + in + "allows " +
               count_of(p.allocation_nodes(), "node") + " per allocation";
    }
    if (n.num_cpus > p.cpus_per_node) {
        return "needs " + count_of(n.num_cpus, "CPU") + " per node" + in + "has " +
               std::to_string(p.cpus_per_node);
    }
    if (n.memory_bytes > p.memory_per_node) {
        return "needs " + format_size(n.memory_bytes) + " of memory per node" + in + "has " +
               format_size(p.memory_per_node);
    }
    if (n.num_gpus > p.gpus_per_node) {
        return "needs " + count_of(n.num_gpus, "GPU") + " per node" + in + "has " +
               std::to_string(p.gpus_per_node);
    }
    if (p.max_time_seconds && job.runtime_seconds > *p.max_time_seconds) {
        return "needs a runtime of " + std::to_string(job.runtime_seconds) + " s" + in +
               "allows " + std::to_string(*p.max_time_seconds) + " s";
    }
    return std::nullopt;
}

allocation_decisions decide_allocations(std::vector<waiting_job> const& ready,
                                        std::vector<live_allocation> const& live,
                                        std::vector<partition_limits> const& partitions,
                                        auto_schedule_policy const& policy,
                                        std::int64_t seconds_since_last_allocation)
{
    allocation_decisions out;
    std::vector<group> groups;
    for (auto const& j : ready) {
        job_shape const shape{j.need, j.runtime_seconds};
        auto g = std::find_if(groups.begin(), groups.end(), [&](auto const& x) { return x.shape == shape; });
        if (g == groups.end()) {
            groups.push_back({shape, {}});
            g = std::prev(groups.end());
        }
        g->jobs.push_back(&j);
    }

    // Running allocations first, then the queued ones, oldest first.
    std::vector<live_allocation const*> order;
    for (auto const& a : live) order.push_back(&a);
    std::stable_sort(order.begin(), order.end(), [](auto const* a, auto const* b) {
        if (a->queued != b->queued) return !a->queued;
        return a->slurm_id < b->slurm_id;
    });
    std::uint32_t queued = 0;
    for (auto const* a : order) {
        double room = 1.0;  // the share of the allocation not yet counted for a job
        bool used = false;
        for (auto& g : groups) {
            auto const& need = g.shape.need;
            if (a->walltime_seconds && g.shape.runtime_seconds > *a->walltime_seconds) continue;
            auto const s = slots(need, a->nodes, a->cpus_per_node, a->memory_per_node,
                                 a->gpus_per_node) *
                           rounds(g.shape.runtime_seconds, a->walltime_seconds);
            if (s == 0) continue;
            g.live_fits = true;
            auto const left = g.jobs.size() - g.covered;
            auto const take = std::min<std::uint64_t>(left, static_cast<std::uint64_t>(room * static_cast<double>(s) + 1e-9));
            if (take == 0) continue;
            g.covered += take;
            room -= static_cast<double>(take) / static_cast<double>(s);
            used = true;
        }
        if (!a->queued) continue;
        if (used || !a->automatic) {
            ++queued;
        } else {
            out.cancel.push_back(a->slurm_id);
        }
    }

    std::int64_t since = seconds_since_last_allocation;
    for (auto& g : groups) {
        auto const& first = *g.jobs.front();
        partition_limits const* p = nullptr;
        std::vector<std::string> refusals;
        bool unknown = false;
        for (auto const& candidate : partitions) {
            if (policy.partition && candidate.name != *policy.partition) continue;
            auto why = partition_refuses(first, candidate);
            if (!why) {
                p = &candidate;
                break;
            }
            refusals.push_back(std::move(*why));
        }
        if (!p) {
            unknown = policy.partition && refusals.empty();
            std::string reasons;
            for (auto const& r : refusals) reasons += (reasons.empty() ? "" : "; ") + r;
            if (unknown) reasons = "partition \"" + *policy.partition + "\" is not in sinfo's list";
            if (partitions.empty()) reasons = "sinfo lists no partition";
            for (auto const* j : g.jobs) {
                out.never_fits.push_back(job_text(*j) + " fits no partition: it " + reasons);
                out.never_fit_ids.push_back(j->id);
            }
            continue;
        }
        auto const& need = g.shape.need;
        auto const each = per_node(need, p->cpus_per_node, p->memory_per_node, p->gpus_per_node);
        std::uint32_t cap = p->allocation_nodes();
        if (policy.max_nodes > 0) cap = std::min(cap, std::max(policy.max_nodes, job_nodes(need)));
        while (g.covered < g.jobs.size()) {
            std::vector<waiting_job const*> left(g.jobs.begin() + static_cast<std::ptrdiff_t>(g.covered), g.jobs.end());
            auto const u = left.size();
            if (g.live_fits) {
                bool const due = u >= policy.threshold && since >= policy.cooldown_seconds;
                bool const stranded = policy.stranded_timeout_seconds > 0 &&
                                      since >= policy.stranded_timeout_seconds;
                if (!due && !stranded) {
                    out.waiting.push_back(jobs_text(left) + " of shape " + shape_text(g.shape) +
                                          " wait for the allocations that can run them (more "
                                          "once " + std::to_string(policy.threshold) +
                                          " wait and the cooldown has passed, or after the "
                                          "stranded timeout)");
                    break;
                }
            }
            if (queued >= policy.max_queued) {
                out.waiting.push_back(jobs_text(left) + " of shape " + shape_text(g.shape) +
                                      " wait: " + std::to_string(queued) +
                                      " allocations are queued already (max_queued " +
                                      std::to_string(policy.max_queued) + ")");
                break;
            }
            new_allocation a;
            a.shape = g.shape;
            a.partition = p->name;
            std::uint64_t held = 0;
            if (job_nodes(need) > 1) {
                auto const units = std::min<std::uint64_t>(u, cap / job_nodes(need));
                a.nodes = static_cast<std::uint32_t>(units * job_nodes(need));
                held = units;
            } else {
                a.nodes = static_cast<std::uint32_t>(std::min<std::uint64_t>((u + each - 1) / each, cap));
                held = a.nodes * each;
            }
            a.gpus_per_node = need.num_gpus > 0 ? p->gpus_per_node : 0;
            std::int64_t const run = std::max<std::int64_t>(g.shape.runtime_seconds, 60);
            auto const needed_rounds = static_cast<std::int64_t>((u + held - 1) / held);
            std::int64_t wall = run * needed_rounds;
            wall += wall / 10 + policy.headroom_seconds;
            if (p->max_time_seconds) wall = std::min(wall, *p->max_time_seconds);
            a.walltime_seconds = wall;
            auto const r = g.shape.runtime_seconds > 0
                               ? std::max<std::int64_t>(wall / g.shape.runtime_seconds, 1)
                               : 1;
            auto const covered = std::min<std::uint64_t>(u, held * static_cast<std::uint64_t>(r));
            for (std::uint64_t i = 0; i < covered; ++i) a.job_ids.push_back(left[i]->id);
            a.why = jobs_text(left) + " of shape " + shape_text(g.shape) +
                    (g.live_fits ? ", more than the live allocations hold" : ", which no live allocation can run") +
                    ": " + count_of(a.nodes, "node") + " in partition \"" + p->name + "\" for " +
                    slurm_time(wall) + ", made for " + count_of(covered, "job");
            g.covered += covered;
            g.live_fits = true;
            since = 0;
            ++queued;
            out.submit.push_back(std::move(a));
        }
    }
    return out;
}

std::int64_t sbatch_retry_delay(int failures)
{
    std::int64_t d = 10;
    for (int i = 1; i < failures && d < 600; ++i) d *= 2;
    return std::min<std::int64_t>(d, 600);
}

std::string slurm_time(std::int64_t seconds)
{
    seconds = std::max<std::int64_t>(seconds, 60);
    auto two = [](std::int64_t v) {
        auto text = std::to_string(v);
        if (text.size() < 2) text.insert(text.begin(), '0');
        return text;
    };
    auto const days = seconds / 86400;
    auto const clock = two(seconds % 86400 / 3600) + ":" + two(seconds % 3600 / 60) + ":" +
                       two(seconds % 60);
    return days > 0 ? std::to_string(days) + "-" + clock : clock;
}

}  // namespace torcrun::core
