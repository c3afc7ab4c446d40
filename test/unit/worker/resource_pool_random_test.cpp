// Random reserve/release sequences over random allocations, checked after every step against a
// shadow model built only from the reservations the pool returned (not from its bookkeeping).
// Each sequence has its own seed; a failure names it, and run_sequence(seed, ...) replays it alone.
#include "torcrun/worker/resource_pool.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using core::job_requirement;
using core::node_capacity;

namespace {

constexpr std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t gib = std::uint64_t{1} << 30;

struct random_source {
    std::mt19937_64 rng;
    std::uint64_t in(std::uint64_t lo, std::uint64_t hi)
    {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
};

std::vector<std::string> random_gpu_ids(random_source& r, std::size_t count)
{
    std::vector<std::string> ids;
    auto const style = r.in(0, 2);
    for (std::size_t g = 0; g < count; ++g) {
        auto const tag = std::to_string(r.in(0, 0xffff)) + '-' + std::to_string(g);
        ids.push_back(style == 0 ? std::to_string(g) : (style == 1 ? "GPU-" : "MIG-") + tag);
    }
    if (r.chance(0.3)) std::ranges::shuffle(ids, r.rng);  // e.g. CUDA_VISIBLE_DEVICES=3,1,0,2
    return ids;
}

// 1-4 nodes, 1-64 CPUs, 0-8 GPUs; half the allocations are homogeneous, a few have a node
// with 2^64-1 bytes to exercise overflow in the sums.
std::vector<node_capacity> random_nodes(random_source& r)
{
    auto const count = r.in(1, 4);
    bool const same = r.chance(0.5);
    std::vector<node_capacity> nodes;
    for (std::size_t i = 0; i < count; ++i) {
        if (same && i > 0) {
            nodes.push_back(nodes.front());
        } else {
            auto const bytes = r.chance(0.05) ? max_bytes : r.in(0, 64) * gib;
            nodes.push_back({"", static_cast<std::uint32_t>(r.in(1, 64)), bytes,
                             random_gpu_ids(r, r.in(0, 8))});
        }
        nodes.back().name = "n" + std::to_string(i);
    }
    return nodes;
}

// Mostly sized after one node of the pool (so most requests fit it, some exceed it), with a few
// zero fields and a few more nodes than the pool has.
job_requirement random_requirement(random_source& r, std::vector<node_capacity> const& nodes)
{
    auto const& model = nodes[r.in(0, nodes.size() - 1)];
    auto const up_to = [&](std::uint64_t most) {
        return r.chance(0.95) ? r.in(0, most) : (most == max_bytes ? most : most + r.in(1, 4));
    };
    job_requirement req;
    auto const span = r.in(0, 99);
    req.num_nodes = span < 2    ? 0
                    : span < 65 ? 1
                                : static_cast<std::uint32_t>(r.in(2, nodes.size() + 1));
    req.num_cpus = static_cast<std::uint32_t>(r.chance(0.02) ? 0 : up_to(model.cpus / 2) + 1);
    req.num_gpus = static_cast<std::uint32_t>(r.chance(0.4) ? 0 : up_to(model.gpu_ids.size()));
    if (r.chance(0.7)) req.memory_bytes = up_to(model.memory_bytes / 2);
    return req;
}

// How often each outcome occurred, so a generator that drifts into trivial cases fails the test.
struct tally {
    std::size_t fit[3] = {};  // by core::fit
    std::size_t multi_node = 0;
    std::size_t restricted = 0;
    std::size_t with_gpus = 0;
    std::size_t releases = 0;
};

// What the test believes, from returned reservations only.
struct shadow_node {
    std::uint64_t cpus = 0;
    std::uint64_t bytes = 0;
    std::set<std::string> gpus;
    std::size_t gpu_listings = 0;  // > gpus.size() when two reservations list one GPU
    std::size_t users = 0;
    bool whole = false;
};

class sequence {
public:
    sequence(std::uint64_t seed, tally& seen) : random_{std::mt19937_64{seed}}, seen_(seen) {}
    std::optional<std::string> run();

private:
    std::optional<std::string> attempt(job_requirement const& req, core::node_restriction only);
    std::optional<std::string> check_placement(job_requirement const& req,
                                               core::node_restriction only,
                                               core::reservation const& got,
                                               std::vector<shadow_node> const& before,
                                               std::vector<core::node_availability> const& free);
    std::optional<std::string> check_state();
    std::optional<std::string> release_one();
    std::vector<shadow_node> shadow() const;
    std::vector<std::size_t> usable(core::node_restriction only) const;
    bool expect_never(job_requirement const& req, core::node_restriction only) const;
    bool holds_at_capacity(std::size_t node, job_requirement const& req) const;
    bool expect_now(job_requirement const& req, core::node_restriction only,
                    std::vector<shadow_node> const& sh) const;

    random_source random_;
    tally& seen_;
    std::vector<node_capacity> nodes_ = random_nodes(random_);
    core::resource_pool pool_ = core::resource_pool::create(nodes_).value();
    core::resource_pool const empty_ = pool_;
    std::map<std::int64_t, core::reservation> live_;
    std::int64_t next_id_ = 1;
};

std::vector<std::size_t> sequence::usable(core::node_restriction only) const
{
    std::vector<std::size_t> nodes;
    for (std::size_t i = 0; i < nodes_.size(); ++i)
        if (!only || *only == i) nodes.push_back(i);
    return nodes;
}

bool sequence::holds_at_capacity(std::size_t node, job_requirement const& req) const
{
    auto const& n = nodes_[node];
    return req.num_cpus <= n.cpus && req.memory_bytes <= n.memory_bytes &&
           req.num_gpus <= n.gpu_ids.size();
}

bool sequence::expect_never(job_requirement const& req, core::node_restriction only) const
{
    if (req.num_nodes == 0 || req.num_cpus == 0) return true;
    auto const nodes = usable(only);
    auto const fitting = std::ranges::count_if(nodes, [&](auto i) {
        return holds_at_capacity(i, req);
    });
    return static_cast<std::size_t>(fitting) < req.num_nodes;
}

std::vector<shadow_node> sequence::shadow() const
{
    std::vector<shadow_node> nodes(nodes_.size());
    for (auto const& [id, r] : live_) {
        for (auto const& share : r.nodes) {
            auto& n = nodes.at(share.node_index);
            n.cpus += share.cpus;
            n.bytes = std::min(n.bytes, max_bytes - share.memory_bytes) + share.memory_bytes;
            n.gpus.insert(share.gpu_ids.begin(), share.gpu_ids.end());
            n.gpu_listings += share.gpu_ids.size();
            n.users += 1;
            n.whole = n.whole || r.whole_nodes;
        }
    }
    return nodes;
}

bool sequence::expect_now(job_requirement const& req, core::node_restriction only,
                          std::vector<shadow_node> const& sh) const
{
    if (expect_never(req, only)) return false;
    auto const nodes = usable(only);
    if (req.num_nodes == 1) {
        return std::ranges::any_of(nodes, [&](auto i) {
            auto const& cap = nodes_[i];
            return !sh[i].whole && cap.cpus - sh[i].cpus >= req.num_cpus &&
                   cap.memory_bytes - sh[i].bytes >= req.memory_bytes &&
                   cap.gpu_ids.size() - sh[i].gpus.size() >= req.num_gpus;
        });
    }
    auto const idle = std::ranges::count_if(nodes, [&](auto i) {
        return sh[i].users == 0 && holds_at_capacity(i, req);
    });
    return static_cast<std::size_t>(idle) >= req.num_nodes;
}

std::optional<std::string> sequence::attempt(job_requirement const& req,
                                             core::node_restriction only)
{
    auto const id = next_id_++;
    auto const before = shadow();
    std::vector<core::node_availability> free;
    for (std::size_t i = 0; i < nodes_.size(); ++i) free.push_back(pool_.available(i));

    auto const verdict = pool_.check(req, only);
    ++seen_.fit[static_cast<int>(verdict)];
    auto const never = expect_never(req, only);
    if ((verdict == core::fit::never) != never) return "check() and the capacity disagree on never";
    if (pool_.why_never(req, only).has_value() != never) return "why_never() disagrees on never";
    if ((empty_.check(req, only) == core::fit::now) == never)
        return "the empty pool disagrees with never/not_now";
    if ((verdict == core::fit::now) != expect_now(req, only, before))
        return "check() and the shadow model disagree on now";

    auto const got = pool_.reserve(req, core::reservation_id{id}, only);
    if (got.has_value() != (verdict == core::fit::now)) return "check() and reserve() disagree";
    if (!got) return std::nullopt;
    live_.emplace(id, *got);
    seen_.multi_node += req.num_nodes > 1;
    seen_.restricted += only.has_value();
    seen_.with_gpus += req.num_gpus > 0;
    return check_placement(req, only, *got, before, free);
}

// Single-node: best fit over what was available (fewest GPUs, CPUs, bytes left; first on ties)
// and the lowest free GPU ids. Multi-node: the first idle nodes that could hold the job.
std::optional<std::string> sequence::check_placement(
    job_requirement const& req, core::node_restriction only, core::reservation const& got,
    std::vector<shadow_node> const& before, std::vector<core::node_availability> const& free)
{
    std::vector<std::size_t> expected;
    if (req.num_nodes == 1) {
        std::optional<std::tuple<std::size_t, std::uint64_t, std::uint64_t>> best;
        for (auto i : usable(only)) {
            auto const& a = free[i];
            if (a.cpus < req.num_cpus || a.memory_bytes < req.memory_bytes ||
                a.gpu_ids.size() < req.num_gpus)
                continue;
            auto const left = std::tuple(a.gpu_ids.size() - req.num_gpus, a.cpus - req.num_cpus,
                                         a.memory_bytes - req.memory_bytes);
            if (!best || left < *best) {
                best = left;
                expected = {i};
            }
        }
    } else {
        for (auto i : usable(only))
            if (before[i].users == 0 && holds_at_capacity(i, req))
                if (expected.size() < req.num_nodes) expected.push_back(i);
    }
    if (got.whole_nodes != (req.num_nodes > 1)) return "whole_nodes is wrong";
    if (got.nodes.size() != expected.size()) return "the reservation has the wrong node count";
    for (std::size_t k = 0; k < expected.size(); ++k) {
        auto const& share = got.nodes[k];
        auto const i = expected[k];
        if (share.node_index != i) return "placed on node " + std::to_string(share.node_index) +
                                          ", expected " + std::to_string(i);
        if (share.node_name != nodes_[i].name || share.cpus != req.num_cpus ||
            share.memory_bytes != req.memory_bytes)
            return "a share does not record the requirement";
        auto const& pick_from = req.num_nodes == 1 ? free[i].gpu_ids : nodes_[i].gpu_ids;
        std::vector<std::string> lowest(pick_from.begin(), pick_from.begin() + req.num_gpus);
        if (share.gpu_ids != lowest) return "not the lowest free GPU ids";
    }
    return std::nullopt;
}

std::optional<std::string> sequence::check_state()
{
    if (auto bad = pool_.check_invariants()) return "invariant: " + *bad;
    auto const sh = shadow();
    core::per_node_amounts most;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        auto const& cap = nodes_[i];
        auto const& n = sh[i];
        if (n.cpus > cap.cpus || n.bytes > cap.memory_bytes) return "a node is oversubscribed";
        if (n.gpu_listings != n.gpus.size()) return "a GPU is held by two reservations";
        if (n.whole && n.users != 1) return "a whole node is shared";
        auto const known = std::ranges::count_if(cap.gpu_ids, [&](auto& g) {
            return n.gpus.contains(g);
        });
        if (static_cast<std::size_t>(known) != n.gpus.size())
            return "a reservation lists a GPU the node does not have";
        core::node_availability expected;
        if (!n.whole) {
            expected.cpus = static_cast<std::uint32_t>(cap.cpus - n.cpus);
            expected.memory_bytes = cap.memory_bytes - n.bytes;
            for (auto const& gpu : cap.gpu_ids)
                if (!n.gpus.contains(gpu)) expected.gpu_ids.push_back(gpu);
        }
        if (pool_.available(i) != expected) return "available() disagrees on " + cap.name;
        most.cpus = std::max(most.cpus, expected.cpus);
        most.memory_bytes = std::max(most.memory_bytes, expected.memory_bytes);
        most.gpus = std::max(most.gpus, static_cast<std::uint32_t>(expected.gpu_ids.size()));
    }
    if (pool_.largest_free_per_node() != most) return "largest_free_per_node() is wrong";
    auto const idle = std::ranges::count_if(sh, [](auto const& n) { return n.users == 0; });
    if (pool_.idle_node_count() != static_cast<std::size_t>(idle))
        return "idle_node_count() is wrong";
    if (pool_.idle() != live_.empty() || pool_.reservations().size() != live_.size())
        return "the pool and the shadow disagree on what is held";
    return std::nullopt;
}

std::optional<std::string> sequence::release_one()
{
    auto const pick = static_cast<std::ptrdiff_t>(random_.in(0, live_.size() - 1));
    auto const it = std::next(live_.begin(), pick);
    if (!pool_.holds(core::reservation_id{it->first})) return "a live reservation is not held";
    pool_.release(core::reservation_id{it->first});
    live_.erase(it);
    return std::nullopt;
}

std::optional<std::string> sequence::run()
{
    auto const steps = random_.in(1, 32);
    for (std::uint64_t step = 1; !live_.empty() || step <= steps; ++step) {
        std::optional<std::string> bad;
        if (step > steps || (!live_.empty() && random_.chance(0.3))) {
            bad = release_one();
            ++seen_.releases;
        } else {
            auto const req = random_requirement(random_, nodes_);
            core::node_restriction only;
            if (random_.chance(0.2)) only = random_.in(0, nodes_.size());  // may be outside
            bad = attempt(req, only);
        }
        if (!bad) bad = check_state();
        if (bad) return "step " + std::to_string(step) + ": " + *bad;
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        auto const& cap = nodes_[i];
        if (pool_.available(i) != core::node_availability{cap.cpus, cap.memory_bytes, cap.gpu_ids})
            return "releasing everything did not restore " + cap.name;
    }
    if (!pool_.idle() || pool_.idle_node_count() != nodes_.size())
        return "releasing everything did not leave the pool idle";
    return std::nullopt;
}

std::optional<std::string> run_sequence(std::uint64_t seed, tally& seen)
{
    return sequence(seed, seen).run();
}

constexpr std::uint64_t base_seed = 0x7063'6f6f'6c00'0000;
constexpr std::uint64_t batches = 10;
constexpr std::uint64_t per_batch = 10'000;

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_pool_random)

// 100,000 sequences in 10 batches. To replay a failure, call run_sequence(<printed seed>, ...).
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
    BOOST_TEST_MESSAGE("now " << seen.fit[0] << ", not_now " << seen.fit[1] << ", never "
                              << seen.fit[2] << ", multi-node " << seen.multi_node
                              << ", restricted " << seen.restricted << ", with GPUs "
                              << seen.with_gpus << ", releases " << seen.releases);
    for (auto const count : {seen.fit[0], seen.fit[1], seen.fit[2], seen.multi_node,
                             seen.restricted, seen.with_gpus})
        BOOST_TEST(count >= per_batch / 10);
}

BOOST_AUTO_TEST_SUITE_END()
