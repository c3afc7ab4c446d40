// Random claims against properties that hold whatever the inputs: a claim never exceeds the
// request in any total, never exceeds the limit, only takes jobs that fit alone (and of another
// scheduler only when no own job fits and the match is not strict), keeps claim order, and always
// takes the job that comes first in order when one fits. A tally shows every branch was hit.
#include "torcrun/server/claim_selection.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

namespace {

struct tally {
    std::size_t claims = 0, fallbacks = 0, multi_node = 0, limited = 0, packed_out = 0, empty = 0;
};

struct trial {
    std::vector<core::claim_candidate> ready;
    core::claim_request request;
    core::claim_options options;
};

trial random_trial(std::mt19937_64& rng)
{
    auto pick = [&rng](std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    trial t;
    t.request = {static_cast<std::uint32_t>(pick(0, 16)), static_cast<std::uint64_t>(pick(0, 64)),
                 static_cast<std::uint32_t>(pick(0, 4)), static_cast<std::uint32_t>(pick(0, 4)),
                 pick(0, 3) == 0 ? std::nullopt : std::optional<std::int64_t>(pick(0, 100)),
                 pick(0, 2) == 0 ? std::nullopt : std::optional<std::int64_t>(pick(1, 3))};
    t.options = {static_cast<core::jobs_sort_method>(pick(0, 2)), pick(-1, 12), pick(0, 3) == 0};
    auto const n = pick(0, 25);
    for (std::int64_t i = 0; i < n; ++i) {
        core::claim_candidate c;
        c.job_id = pick(1, 1000) * 100 + i;  // unique, in random order
        c.need = {static_cast<std::uint32_t>(pick(0, 12)), static_cast<std::uint32_t>(pick(0, 3)),
                  static_cast<std::uint32_t>(pick(0, 4) == 0 ? pick(2, 4) : 1),
                  static_cast<std::uint64_t>(pick(0, 40))};
        c.runtime_seconds = pick(-5, 120);
        if (pick(0, 2) == 0) c.scheduler_id = pick(1, 3);
        c.priority = pick(0, 5) == 0 ? pick(-2, 2) : 0;
        t.ready.push_back(c);
    }
    return t;
}

bool fits_alone(core::claim_candidate const& c, core::claim_request const& r)
{
    return c.need.num_cpus <= r.num_cpus && c.need.memory_bytes <= r.memory_bytes &&
           c.need.num_gpus <= r.num_gpus && c.need.num_nodes <= r.num_nodes &&
           (!r.time_limit_seconds || c.runtime_seconds <= *r.time_limit_seconds);
}

bool own_scheduler(core::claim_candidate const& c, core::claim_request const& r)
{
    return !c.scheduler_id || (r.scheduler_config_id && *c.scheduler_id == *r.scheduler_config_id);
}

// Written apart from the implementation: the ranking the claim must follow.
bool ranks_before(core::claim_candidate const& a, core::claim_candidate const& b,
                  core::jobs_sort_method m)
{
    auto key = [m](core::claim_candidate const& c) {
        auto const runtime =
            static_cast<std::uint64_t>(std::max<std::int64_t>(c.runtime_seconds, 0));
        if (m == core::jobs_sort_method::gpus_runtime_memory)
            return std::array<std::uint64_t, 3>{c.need.num_gpus, runtime, c.need.memory_bytes};
        if (m == core::jobs_sort_method::gpus_memory_runtime)
            return std::array<std::uint64_t, 3>{c.need.num_gpus, c.need.memory_bytes, runtime};
        return std::array<std::uint64_t, 3>{};
    };
    if (a.priority != b.priority) return a.priority > b.priority;
    if (key(a) != key(b)) return key(a) > key(b);
    return a.job_id < b.job_id;
}

// The jobs a claim may take from: those that fit alone, of the worker's scheduler unless no such
// job fits and the match is not strict.
std::vector<core::claim_candidate const*> eligible(trial const& t, bool& fallback)
{
    std::vector<core::claim_candidate const*> fitting, own;
    for (auto const& c : t.ready) {
        if (!fits_alone(c, t.request)) continue;
        fitting.push_back(&c);
        if (own_scheduler(c, t.request)) own.push_back(&c);
    }
    fallback = own.empty() && !t.options.strict_scheduler_match;
    return fallback ? fitting : own;
}

std::optional<std::string> check_chosen(trial const& t, std::vector<std::int64_t> const& chosen,
                                        std::vector<core::claim_candidate const*> const& pool,
                                        tally& seen)
{
    if (static_cast<std::int64_t>(chosen.size()) > std::max<std::int64_t>(t.options.limit, 0))
        return "more jobs than the limit";
    if (std::set<std::int64_t>(chosen.begin(), chosen.end()).size() != chosen.size())
        return "a job chosen twice";
    std::uint64_t cpus = 0, mem = 0, gpus = 0, nodes = 0;
    core::claim_candidate const* previous = nullptr;
    for (auto const id : chosen) {
        auto const it =
            std::find_if(pool.begin(), pool.end(), [&](auto p) { return p->job_id == id; });
        if (it == pool.end()) return "chose job " + std::to_string(id) + " outside the filter";
        auto const& c = **it;
        cpus += c.need.num_cpus;
        mem += c.need.memory_bytes;
        gpus += c.need.num_gpus;
        nodes += c.need.num_nodes > 1 ? c.need.num_nodes : 0;
        if (c.need.num_nodes > 1) ++seen.multi_node;
        if (previous && !ranks_before(*previous, c, t.options.sort_method))
            return "claim order broken at job " + std::to_string(id);
        previous = &c;
    }
    if (cpus > t.request.num_cpus || mem > t.request.memory_bytes || gpus > t.request.num_gpus ||
        nodes > t.request.num_nodes)
        return "the claim exceeds the request";
    return std::nullopt;
}

std::optional<std::string> check(trial const& t, tally& seen)
{
    auto const chosen = core::select_claim(t.ready, t.request, t.options);
    ++seen.claims;
    bool fallback = false;
    auto const pool = eligible(t, fallback);
    if (auto bad = check_chosen(t, chosen, pool, seen)) return bad;
    if (t.options.limit >= 1 && !pool.empty()) {
        auto const first = *std::min_element(pool.begin(), pool.end(), [&](auto a, auto b) {
            return ranks_before(*a, *b, t.options.sort_method);
        });
        if (chosen.empty() || chosen.front() != first->job_id)
            return "the first job in order was not taken";
        if (fallback) ++seen.fallbacks;
        if (static_cast<std::int64_t>(pool.size()) > t.options.limit) ++seen.limited;
        if (chosen.size() < std::min<std::size_t>(pool.size(), t.options.limit)) ++seen.packed_out;
    }
    if (chosen.empty()) ++seen.empty;
    return std::nullopt;
}

constexpr std::uint64_t base_seed = 0x636c'6169'6d00'0000;
constexpr std::uint64_t batches = 20;
constexpr std::uint64_t per_batch = 2'000;

}  // namespace

BOOST_AUTO_TEST_SUITE(claim_selection_random)

// 40,000 claims in 20 batches; a failure prints the seed of its trial.
BOOST_DATA_TEST_CASE(random_claims_keep_every_property, bdata::xrange(batches), batch)
{
    tally seen;
    for (std::uint64_t i = 0; i < per_batch; ++i) {
        auto const seed = base_seed + batch * per_batch + i;
        std::mt19937_64 rng(seed);
        if (auto const bad = check(random_trial(rng), seen)) {
            BOOST_ERROR("seed " << seed << ": " << *bad);
            break;
        }
    }
    BOOST_TEST(seen.claims == per_batch);
    BOOST_TEST_MESSAGE("fallbacks " << seen.fallbacks << ", multi-node " << seen.multi_node
                                    << ", limited " << seen.limited << ", packed out "
                                    << seen.packed_out << ", empty " << seen.empty);
    for (auto const count : {seen.fallbacks, seen.multi_node, seen.limited, seen.packed_out,
                             seen.empty})
        BOOST_TEST(count >= per_batch / 50);
}

BOOST_AUTO_TEST_SUITE_END()
