// Claim selection scenarios (docs/TORC-COMPATIBILITY.md §2.3): the per-job filter at its
// boundaries, the three sort methods with ties by id, Torc's LIMIT-before-packing, greedy packing
// of single- and multi-node jobs (including the #246-style GPU mix), the scheduler match and its
// fallback, priority, claim_next_jobs, and the memory_gb conversion.
#include "torcrun/server/claim_selection.hpp"

#include "rules_printing.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using core::jobs_sort_method;

namespace {

constexpr std::uint64_t gib = 1ULL << 30;
constexpr auto none = jobs_sort_method::none;
constexpr auto grm = jobs_sort_method::gpus_runtime_memory;
constexpr auto gmr = jobs_sort_method::gpus_memory_runtime;
using opt = std::optional<std::int64_t>;

core::claim_candidate job(std::int64_t id, std::uint32_t cpus, std::uint64_t mem,
                          std::uint32_t gpus = 0, std::uint32_t nodes = 1,
                          std::int64_t runtime = 60, opt sched = {}, std::int64_t prio = 0)
{
    return {id, {.num_cpus = cpus, .num_gpus = gpus, .num_nodes = nodes, .memory_bytes = mem},
            runtime, sched, prio};
}

core::claim_request req(std::uint32_t cpus, std::uint64_t mem, std::uint32_t gpus = 0,
                        std::uint32_t nodes = 1, opt time = {}, opt sched = {})
{
    return {cpus, mem, gpus, nodes, time, sched};
}

struct scenario {
    std::string name;
    std::vector<core::claim_candidate> ready;
    core::claim_request request;
    core::claim_options options;
    std::vector<std::int64_t> chosen;
};
std::ostream& operator<<(std::ostream& os, scenario const& s) { return os << s.name; }

std::vector<core::claim_candidate> const three_kinds{
    job(1, 1, 1 * gib, 0, 1, 60), job(2, 1, 2 * gib, 0, 1, 3600), job(3, 1, 1 * gib, 1, 1, 10)};

std::vector<scenario> const scenarios{
    // ordering
    {"gpus_runtime_memory: gpu jobs, then longer, then bigger", three_kinds, req(4, 8 * gib, 1),
     {grm, 10, false}, {3, 2, 1}},
    {"gpus_memory_runtime: memory before runtime",
     {job(1, 1, 4 * gib, 0, 1, 10), job(2, 1, 1 * gib, 0, 1, 1000)}, req(4, 8 * gib),
     {gmr, 10, false}, {1, 2}},
    {"gpus_runtime_memory: runtime before memory",
     {job(1, 1, 4 * gib, 0, 1, 10), job(2, 1, 1 * gib, 0, 1, 1000)}, req(4, 8 * gib),
     {grm, 10, false}, {2, 1}},
    {"none: job id order", three_kinds, req(4, 8 * gib, 1), {none, 10, false}, {1, 2, 3}},
    {"ties by job id", {job(5, 1, gib), job(3, 1, gib), job(4, 1, gib)}, req(4, 8 * gib),
     {grm, 10, false}, {3, 4, 5}},
    {"priority before the sort method",
     {job(1, 1, gib, 1), job(2, 1, gib, 0, 1, 60, {}, 5), job(3, 1, gib, 0, 1, 60, {}, -1)},
     req(4, 8 * gib, 1), {grm, 10, false}, {2, 1, 3}},
    // per-job filter
    {"more cpus than a node has", {job(1, 8, gib), job(2, 4, gib)}, req(4, 8 * gib),
     {none, 10, false}, {2}},
    {"memory equal to the request fits", {job(1, 1, 8 * gib)}, req(4, 8 * gib),
     {none, 10, false}, {1}},
    {"one byte more does not", {job(1, 1, 8 * gib + 1)}, req(4, 8 * gib), {none, 10, false}, {}},
    {"gpus", {job(1, 1, gib, 2), job(2, 1, gib, 1)}, req(4, 8 * gib, 1), {none, 10, false}, {2}},
    {"more nodes than requested", {job(1, 1, gib, 0, 3), job(2, 1, gib, 0, 2)},
     req(4, 8 * gib, 0, 2), {none, 10, false}, {2}},
    {"no nodes requested: nothing", {job(1, 1, gib)}, req(4, 8 * gib, 0, 0), {none, 10, false},
     {}},
    {"runtime over the time limit", {job(1, 1, gib, 0, 1, 3600)}, req(4, 8 * gib, 0, 1, 3599),
     {none, 10, false}, {}},
    {"runtime equal to the time limit", {job(1, 1, gib, 0, 1, 3600)},
     req(4, 8 * gib, 0, 1, 3600), {none, 10, false}, {1}},
    {"no time limit: any runtime", {job(1, 1, gib, 0, 1, 86400 * 365)}, req(4, 8 * gib),
     {none, 10, false}, {1}},
    {"negative time limit: nothing", {job(1, 1, gib, 0, 1, 0)}, req(4, 8 * gib, 0, 1, -1),
     {none, 10, false}, {}},
    // greedy packing
    {"cpus add up; a job that no longer fits is skipped",
     {job(1, 3, gib), job(2, 2, gib), job(3, 1, gib)}, req(4, 8 * gib), {none, 10, false},
     {1, 3}},
    {"memory adds up", {job(1, 1, 5 * gib), job(2, 1, 4 * gib), job(3, 1, 3 * gib)},
     req(8, 8 * gib), {none, 10, false}, {1, 3}},
    {"gpus add up", {job(1, 1, gib, 1), job(2, 1, gib, 1), job(3, 1, gib, 1)},
     req(8, 8 * gib, 2), {none, 10, false}, {1, 2}},
    {"single-node jobs do not use up nodes",
     {job(1, 1, gib), job(2, 1, gib), job(3, 1, gib), job(4, 1, gib)}, req(4, 8 * gib, 0, 1),
     {none, 10, false}, {1, 2, 3, 4}},
    {"multi-node jobs use up nodes",
     {job(1, 1, gib, 0, 2), job(2, 1, gib, 0, 2), job(3, 1, gib, 0, 2)}, req(8, 8 * gib, 0, 4),
     {none, 10, false}, {1, 2}},
    {"a multi-node job's per-node cpus count once",
     {job(1, 4, gib, 0, 2, 600), job(2, 1, gib, 0, 1, 60)}, req(4, 8 * gib, 0, 2),
     {grm, 10, false}, {1}},
    {"#246 mix: the multi-node GPU job first leaves no GPU",
     {job(1, 8, gib, 2, 2, 3600), job(2, 1, gib, 1, 1, 60)}, req(8, 8 * gib, 2, 2),
     {grm, 10, false}, {1}},
    {"#246 mix: the single-node GPU job first keeps the multi-node one out",
     {job(1, 1, gib, 1, 1, 60), job(2, 8, gib, 2, 2, 3600)}, req(8, 8 * gib, 2, 2),
     {none, 10, false}, {1}},
    {"#246 mix: both fit when the node totals allow",
     {job(1, 4, gib, 1, 2, 3600), job(2, 2, gib, 1, 1, 60)}, req(8, 8 * gib, 2, 2),
     {grm, 10, false}, {1, 2}},
    {"memory near the top of the range never wraps",
     {job(1, 1, std::numeric_limits<std::uint64_t>::max() / 2 + 1),
      job(2, 1, std::numeric_limits<std::uint64_t>::max() / 2 + 1)},
     req(4, std::numeric_limits<std::uint64_t>::max()), {none, 10, false}, {1}},
    // limit
    {"limit cuts the list", {job(1, 1, gib), job(2, 1, gib), job(3, 1, gib)}, req(4, 8 * gib),
     {none, 2, false}, {1, 2}},
    {"limit applies before packing, as Torc's SQL LIMIT",
     {job(1, 4, gib), job(2, 4, gib), job(3, 1, gib)}, req(4, 8 * gib), {none, 2, false}, {1}},
    {"limit 0", three_kinds, req(4, 8 * gib, 1), {grm, 0, false}, {}},
    {"negative limit", three_kinds, req(4, 8 * gib, 1), {grm, -5, false}, {}},
    {"no ready jobs", {}, req(4, 8 * gib), {grm, 10, false}, {}},
    // schedulers
    {"own scheduler and unscheduled jobs only",
     {job(1, 1, gib, 0, 1, 60, 7), job(2, 1, gib, 0, 1, 60, 9), job(3, 1, gib)},
     req(4, 8 * gib, 0, 1, {}, 7), {none, 10, false}, {1, 3}},
    {"fallback to other schedulers when nothing matches", {job(2, 1, gib, 0, 1, 60, 9)},
     req(4, 8 * gib, 0, 1, {}, 7), {none, 10, false}, {2}},
    {"strict: no fallback", {job(2, 1, gib, 0, 1, 60, 9)}, req(4, 8 * gib, 0, 1, {}, 7),
     {none, 10, true}, {}},
    {"no fallback while a matching job fits",
     {job(1, 1, gib, 0, 1, 60, 9), job(3, 1, gib)}, req(4, 8 * gib, 0, 1, {}, 7),
     {none, 10, false}, {3}},
    {"fallback when the matching jobs do not fit alone",
     {job(1, 1, gib, 0, 1, 60, 9), job(3, 16, gib)}, req(4, 8 * gib, 0, 1, {}, 7),
     {none, 10, false}, {1}},
    {"a worker without scheduler_config_id matches unscheduled jobs only",
     {job(1, 1, gib, 0, 1, 60, 5), job(2, 1, gib)}, req(4, 8 * gib), {none, 10, true}, {2}},
    {"...and falls back to scheduled jobs", {job(1, 1, gib, 0, 1, 60, 5)}, req(4, 8 * gib),
     {none, 10, false}, {1}},
};

struct next_case {
    std::string name;
    std::vector<core::next_candidate> ready;
    std::int64_t limit;
    std::vector<std::int64_t> chosen;
};
std::ostream& operator<<(std::ostream& os, next_case const& c) { return os << c.name; }

std::vector<next_case> const next_cases{
    {"first by id", {{5, 0}, {3, 0}, {9, 0}}, 2, {3, 5}},
    {"all when the limit is larger", {{5, 0}, {3, 0}}, 10, {3, 5}},
    {"priority first", {{5, 0}, {3, 0}, {9, 2}}, 2, {9, 3}},
    {"limit 0", {{1, 0}}, 0, {}},
    {"negative limit", {{1, 0}}, -1, {}},
    {"nothing ready", {}, 10, {}},
};

struct gb_case {
    double gb;
    std::uint64_t bytes;
};
std::ostream& operator<<(std::ostream& os, gb_case const& c) { return os << c.gb; }

std::vector<gb_case> const gb_cases{
    {1.0, gib},
    {0.5, gib / 2},
    {1.5, gib + gib / 2},
    {240.0, 240 * gib},
    {1e-10, 0},
    {0.0, 0},
    {-1.0, 0},
    {std::nan(""), 0},
    {1e30, std::numeric_limits<std::uint64_t>::max()},
    {std::numeric_limits<double>::infinity(), std::numeric_limits<std::uint64_t>::max()},
};

struct sort_name {
    std::string text;
    std::optional<jobs_sort_method> method;
};
std::ostream& operator<<(std::ostream& os, sort_name const& c)
{
    return os << '"' << c.text << '"';
}

std::vector<sort_name> const sort_names{
    {"gpus_runtime_memory", grm},
    {"gpus_memory_runtime", gmr},
    {"none", none},
    {"GpusRuntimeMemory", {}},
    {"", {}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(claim_selection)

BOOST_DATA_TEST_CASE(claims_follow_torc, bdata::make(scenarios), s)
{
    auto const chosen = core::select_claim(s.ready, s.request, s.options);
    BOOST_TEST(chosen == s.chosen, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(claim_next_jobs_takes_the_first_ready, bdata::make(next_cases), c)
{
    auto const chosen = core::select_next_jobs(c.ready, c.limit);
    BOOST_TEST(chosen == c.chosen, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(memory_gb_truncates_like_torc, bdata::make(gb_cases), c)
{
    BOOST_TEST(core::claim_memory_bytes(c.gb) == c.bytes);
}

BOOST_DATA_TEST_CASE(sort_method_names, bdata::make(sort_names), c)
{
    auto const parsed = core::parse_jobs_sort_method(c.text);
    if (c.method) {
        BOOST_TEST_REQUIRE(parsed.has_value());
        BOOST_TEST(*parsed == *c.method);
        BOOST_TEST(core::to_string(*c.method) == c.text);
    } else {
        BOOST_TEST_REQUIRE(parsed.has_error());
        BOOST_TEST(parsed.error().message ==
                   "jobs_sort_method: \"" + c.text +
                       "\" is not one of gpus_runtime_memory, gpus_memory_runtime or none");
    }
}

BOOST_AUTO_TEST_CASE(default_sort_method_is_torcs_server_default)
{
    BOOST_TEST(core::default_jobs_sort_method == grm);
    BOOST_TEST(core::default_claim_next_jobs_limit == 10);
}

BOOST_AUTO_TEST_SUITE_END()
