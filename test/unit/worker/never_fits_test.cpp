// The never-fit comparison, table-driven: each resource, multi-node jobs, GPUs, the runtime
// against the time left, a job that fits exactly, and a job that only waits for others (the
// comparison is against capacity, so it is never named).
#include "torcrun/worker/never_fits.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace {

using namespace torcrun::core;

constexpr std::uint64_t gib = 1024ull * 1024 * 1024;

node_capacity node(std::string name, std::uint32_t cpus, std::uint64_t memory, int gpus = 0)
{
    node_capacity n{std::move(name), cpus, memory, {}};
    for (int i = 0; i < gpus; ++i) n.gpu_ids.push_back(std::to_string(i));
    return n;
}

ready_job job(std::uint32_t cpus, std::string memory, std::uint64_t bytes, std::uint32_t gpus = 0,
              std::uint32_t nodes = 1, std::optional<double> runtime = {}, std::string rt = {})
{
    ready_job j;
    j.id = 7;
    j.name = "wide";
    j.resources.need = {cpus, gpus, nodes, bytes};
    j.resources.runtime_seconds = runtime;
    j.memory = std::move(memory);
    j.runtime = std::move(rt);
    return j;
}

struct fit_case {
    std::string name;
    std::vector<node_capacity> nodes;
    ready_job job;
    std::optional<double> left;
    std::optional<std::string> expect;
    double grace = 0;
};

std::ostream& operator<<(std::ostream& os, fit_case const& c) { return os << c.name; }

std::vector<node_capacity> const one{node("n0", 2, 4 * gib, 0)};
std::vector<node_capacity> const two_small{node("n0", 1, 4 * gib), node("n1", 1, 4 * gib)};
std::vector<node_capacity> const mixed{node("n0", 8, 16 * gib, 2), node("n1", 4, 8 * gib, 4)};

std::vector<fit_case> const cases{
    {"too many CPUs", one, job(64, "1m", 1 << 20), {}, R"(job 7 "wide" needs 64 CPUs; this allocation has 2 CPUs per node)"},
    {"too much memory, as written", one, job(1, "1000g", 1000 * gib), {},
     R"(job 7 "wide" needs 1000g of memory; this allocation has 4.0 GiB of memory per node)"},
    {"GPUs on a node without any", one, job(1, "1m", 1 << 20, 1), {},
     R"(job 7 "wide" needs 1 GPU; this allocation has 0 GPUs per node)"},
    {"more nodes than the allocation", two_small, job(1, "1m", 1 << 20, 0, 3), {},
     R"(job 7 "wide" needs 3 nodes; this allocation has 2 nodes)"},
    {"multi-node: CPUs per node", two_small, job(4, "1m", 1 << 20, 0, 2), {},
     R"(job 7 "wide" needs 4 CPUs on each of 2 nodes; this allocation has 1 CPU per node)"},
    {"uneven nodes: the largest is named", mixed, job(16, "1m", 1 << 20), {},
     R"(job 7 "wide" needs 16 CPUs; the largest node has 8 CPUs (n0))"},
    {"uneven nodes, multi-node GPUs", mixed, job(1, "1m", 1 << 20, 3, 2), {},
     R"(job 7 "wide" needs 3 GPUs on each of 2 nodes; only 1 node has that many)"},
    {"each dimension somewhere, all three nowhere", mixed, job(8, "1m", 1 << 20, 4), {},
     R"(job 7 "wide" needs 8 CPUs, 1m of memory and 4 GPUs on one node; no node of this allocation has all three)"},
    {"runtime beyond the time left", one, job(1, "1m", 1 << 20, 0, 1, 7200, "PT2H"), 1800.5,
     R"(job 7 "wide" needs a runtime of PT2H; this allocation has 1800 s left)"},
    {"runtime with no end known", one, job(1, "1m", 1 << 20, 0, 1, 7200, "PT2H"), std::nullopt,
     std::nullopt},
    {"fits exactly: all CPUs, memory, nodes and the time left", two_small,
     job(1, "4g", 4 * gib, 0, 2, 1800, "PT30M"), 1800, std::nullopt},
    {"fits once others finish (capacity, not what is free)", mixed, job(8, "16g", 16 * gib, 2),
     {}, std::nullopt},
    {"num_cpus 0", one, job(0, "1m", 1 << 20), {},
     R"(job 7 "wide" needs at least 1 CPU per node, num_cpus is 0)"},
    // Torc's claim window: the time left plus its 120 s grace
    {"runtime within Torc's grace fits", one, job(1, "1m", 1 << 20, 0, 1, 3600, "PT1H"), 3500,
     std::nullopt, claim_grace_seconds},
    {"runtime exactly at the time left plus the grace fits", one,
     job(1, "1m", 1 << 20, 0, 1, 3620, "PT1H20S"), 3500, std::nullopt, 120},
    {"runtime beyond the grace", one, job(1, "1m", 1 << 20, 0, 1, 3621, "PT1H21S"), 3500.7,
     R"(job 7 "wide" needs a runtime of PT1H21S; this allocation has 3500 s left (and a 120 s grace))",
     120},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(never_fits_comparison)

BOOST_DATA_TEST_CASE(names_what_can_never_run, boost::unit_test::data::make(cases), c)
{
    BOOST_TEST(never_fits(c.job, c.nodes, c.left, c.grace).value_or("(fits)") ==
               c.expect.value_or("(fits)"));
}

BOOST_AUTO_TEST_SUITE_END()
