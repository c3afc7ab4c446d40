// The resource pool, table-driven: creation errors, every `never` explanation, placement
// scenarios (best fit, GPU ids, whole nodes for multi-node jobs, Torc's #246 case, node
// restriction). The invariant checker has its own suite (resource_pool_invariants_test.cpp).
#include "torcrun/worker/resource_pool.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>
#include <ostream>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using core::job_requirement;
using core::node_capacity;

namespace {

core::resource_pool pool_of(std::vector<node_capacity> nodes)
{
    auto pool = core::resource_pool::create(std::move(nodes));
    BOOST_TEST_REQUIRE(pool.has_value());
    return std::move(*pool);
}

std::string join(std::vector<std::string> const& items)
{
    std::string text;
    for (auto const& item : items) text += (text.empty() ? "" : ",") + item;
    return text;
}

// "whole n1:2c/10b/[0] n2:2c/10b/[0]"
std::string describe(core::reservation const& r)
{
    std::string text = r.whole_nodes ? "whole" : "";
    for (auto const& s : r.nodes) {
        text += (text.empty() ? "" : " ") + s.node_name + ':' + std::to_string(s.cpus) + "c/" +
                std::to_string(s.memory_bytes) + "b/[" + join(s.gpu_ids) + ']';
    }
    return text;
}

// "n0:7c/100b/[0,1] n1:0c/0b/[] | largest 7c/100b/2g | idle nodes 0/2 | held 1,2"
std::string describe(core::resource_pool const& pool)
{
    std::string text;
    for (std::size_t i = 0; i < pool.size(); ++i) {
        auto const a = pool.available(i);
        text += pool.capacity()[i].name + ':' + std::to_string(a.cpus) + "c/" +
                std::to_string(a.memory_bytes) + "b/[" + join(a.gpu_ids) + "] ";
    }
    auto const most = pool.largest_free_per_node();
    text += "| largest " + std::to_string(most.cpus) + "c/" + std::to_string(most.memory_bytes) +
            "b/" + std::to_string(most.gpus) + "g | idle nodes " +
            std::to_string(pool.idle_node_count()) + '/' + std::to_string(pool.size()) + " | ";
    std::vector<std::string> ids;
    for (auto const& [id, r] : pool.reservations()) {
        BOOST_TEST(pool.holds(id));
        ids.push_back(std::to_string(static_cast<std::int64_t>(id)));
    }
    BOOST_TEST(pool.idle() == ids.empty());
    return text + (ids.empty() ? "pool idle" : "held " + join(ids));
}

node_capacity gpu_node(std::string name, std::uint32_t cpus, std::uint64_t bytes, int gpus)
{
    node_capacity n{std::move(name), cpus, bytes, {}};
    for (int g = 0; g < gpus; ++g) n.gpu_ids.push_back(std::to_string(g));
    return n;
}

// ----------------------------------------------------------------------------- creation

struct create_case {
    std::string name;
    std::vector<node_capacity> nodes;
    std::string error;
};
std::ostream& operator<<(std::ostream& os, create_case const& c) { return os << c.name; }

std::vector<create_case> const create_cases{
    {"no nodes", {}, "resource pool: the allocation has no nodes"},
    {"empty name", {gpu_node("n0", 1, 0, 0), gpu_node("", 1, 0, 0)},
     "resource pool: node 1 has an empty name"},
    {"same name twice", {gpu_node("n0", 1, 0, 0), gpu_node("n0", 2, 0, 0)},
     "resource pool: node name \"n0\" appears twice"},
    {"empty GPU id", {{"n0", 4, 0, {"0", ""}}}, "resource pool: node \"n0\" lists an empty GPU id"},
    {"repeated GPU id", {{"n0", 4, 0, {"GPU-a", "GPU-b", "GPU-a"}}},
     "resource pool: node \"n0\" lists GPU \"GPU-a\" twice"},
};

// ----------------------------------------------------------------------------- never

struct never_case {
    std::string name;
    std::vector<node_capacity> nodes;
    job_requirement req;
    core::node_restriction only;
    std::string why;
};
std::ostream& operator<<(std::ostream& os, never_case const& c) { return os << c.name; }

std::vector<node_capacity> const two{gpu_node("n0", 16, 64, 4), gpu_node("n1", 8, 128, 2)};
std::vector<node_capacity> const three{gpu_node("n0", 16, 64, 0), gpu_node("n1", 8, 128, 0),
                                       gpu_node("n2", 16, 128, 0)};

std::vector<never_case> const never_cases{
    {"zero nodes", two, {.num_nodes = 0}, {}, "needs at least 1 node, num_nodes is 0"},
    {"zero cpus", two, {.num_cpus = 0}, {}, "needs at least 1 CPU per node, num_cpus is 0"},
    {"restricted outside", two, {}, 2, "node index 2 is outside the pool of 2 nodes"},
    {"outside a 1-node pool", {gpu_node("n0", 1, 0, 0)}, {}, 1,
     "node index 1 is outside the pool of 1 node"},
    {"more nodes than the pool", two, {.num_nodes = 3}, {},
     "needs 3 nodes, the pool has 2 nodes"},
    {"2 nodes of a 1-node pool", {gpu_node("n0", 1, 0, 0)}, {.num_nodes = 2}, {},
     "needs 2 nodes, the pool has 1 node"},
    {"2 nodes restricted", two, {.num_nodes = 2}, 0, "needs 2 nodes, only node n0 may be used"},
    {"cpus", two, {.num_cpus = 32}, {}, "needs 32 CPUs per node, the largest node has 16 CPUs (n0)"},
    {"memory", two, {.memory_bytes = 256}, {},
     "needs 256 B of memory per node, the largest node has 128 B (n1)"},
    {"gpus", two, {.num_gpus = 8}, {}, "needs 8 GPUs per node, the largest node has 4 GPUs (n0)"},
    {"gpus, first of equals", {gpu_node("a", 1, 0, 4), gpu_node("b", 1, 0, 4)},
     {.num_gpus = 5}, {}, "needs 5 GPUs per node, the largest node has 4 GPUs (a)"},
    {"1 gpu on a node without GPUs", {gpu_node("n0", 4, 0, 0)}, {.num_gpus = 1}, {},
     "needs 1 GPU per node, node n0 has 0 GPUs"},
    {"1 byte on a node without memory", {gpu_node("n0", 4, 0, 0)}, {.memory_bytes = 1}, {},
     "needs 1 B of memory per node, node n0 has 0 B"},
    {"restricted to a smaller node", two, {.num_gpus = 4}, 1,
     "needs 4 GPUs per node, node n1 has 2 GPUs"},
    {"no node has everything", two, {.num_cpus = 16, .memory_bytes = 128}, {},
     "needs 16 CPUs, 128 B of memory and 0 GPUs per node, no node has all three"},
    {"multi-node cpus", two, {.num_cpus = 16, .num_nodes = 2}, {},
     "needs 16 CPUs per node on 2 nodes, 1 node has that many"},
    {"multi-node gpus", two, {.num_gpus = 3, .num_nodes = 2}, {},
     "needs 3 GPUs per node on 2 nodes, 1 node has that many"},
    {"multi-node memory", two, {.num_nodes = 2, .memory_bytes = 1000}, {},
     "needs 1000 B of memory per node on 2 nodes, 0 nodes have that many"},
    {"multi-node combination", three, {.num_cpus = 16, .num_nodes = 2, .memory_bytes = 128}, {},
     "needs 16 CPUs, 128 B of memory and 0 GPUs per node on 2 nodes, 1 node has all three"},
};

// ----------------------------------------------------------------------------- scenarios

// One step of a scenario. reserve: expect is the reservation, "not_now" or "never";
// release: expect is empty; state: expect is describe(pool).
struct step {
    enum { reserve, release, state } what;
    std::int64_t id = 0;
    job_requirement req{};
    core::node_restriction only{};
    std::string expect;
};

step take(std::int64_t id, job_requirement req, std::string expect,
          core::node_restriction only = {})
{
    return {step::reserve, id, req, only, std::move(expect)};
}
step give(std::int64_t id) { return {step::release, id, {}, {}, {}}; }
step state(std::string expect) { return {step::state, 0, {}, {}, std::move(expect)}; }

struct scenario {
    std::string name;
    std::vector<node_capacity> nodes;
    std::vector<step> steps;
};
std::ostream& operator<<(std::ostream& os, scenario const& s) { return os << s.name; }

job_requirement const one_gpu{.num_gpus = 1};

std::vector<scenario> const scenarios{
    {"best fit: fewest GPUs left, then CPUs; lowest free GPU ids",
     {gpu_node("n0", 16, 64, 4), gpu_node("n1", 16, 64, 4), gpu_node("n2", 8, 64, 0)},
     {take(1, {.num_cpus = 2}, "n2:2c/0b/[]"),
      take(2, {.num_cpus = 7}, "n0:7c/0b/[]"),
      take(3, one_gpu, "n0:1c/0b/[0]"),
      take(4, {.num_gpus = 2, .memory_bytes = 10}, "n0:1c/10b/[1,2]"),
      give(3),
      take(5, one_gpu, "n0:1c/0b/[0]"),
      take(6, {.num_gpus = 2}, "n1:1c/0b/[0,1]"),
      state("n0:7c/54b/[3] n1:15c/64b/[2,3] n2:6c/64b/[] | largest 15c/64b/2g | "
            "idle nodes 0/3 | held 1,2,4,5,6"),
      give(1), give(2), give(4), give(5), give(6),
      state("n0:16c/64b/[0,1,2,3] n1:16c/64b/[0,1,2,3] n2:8c/64b/[] | largest 16c/64b/4g | "
            "idle nodes 3/3 | pool idle")}},
    {"best fit: memory breaks the tie after GPUs and CPUs",
     {gpu_node("n0", 4, 100, 0), gpu_node("n1", 4, 50, 0)},
     {take(1, {.memory_bytes = 10}, "n1:1c/10b/[]"),
      take(2, {.memory_bytes = 45}, "n0:1c/45b/[]"),
      take(3, {.memory_bytes = 60}, "not_now"),
      take(4, {.num_cpus = 3, .memory_bytes = 40}, "n1:3c/40b/[]"),
      state("n0:3c/55b/[] n1:0c/0b/[] | largest 3c/55b/0g | idle nodes 0/2 | held 1,2,4")}},
    {"multi-node jobs take the first whole idle nodes and hold them exclusively",
     {gpu_node("n0", 8, 100, 2), gpu_node("n1", 8, 100, 2), gpu_node("n2", 8, 100, 2),
      gpu_node("n3", 8, 100, 2)},
     {take(1, {}, "n0:1c/0b/[]"),
      take(2, {.num_cpus = 2, .num_gpus = 1, .num_nodes = 2, .memory_bytes = 10},
           "whole n1:2c/10b/[0] n2:2c/10b/[0]"),
      state("n0:7c/100b/[0,1] n1:0c/0b/[] n2:0c/0b/[] n3:8c/100b/[0,1] | largest 8c/100b/2g | "
            "idle nodes 1/4 | held 1,2"),
      take(3, {}, "n0:1c/0b/[]"),
      take(4, {.num_nodes = 2}, "not_now"),
      take(5, {.num_nodes = 5}, "never"),
      give(2),
      take(4, {.num_nodes = 2}, "whole n1:1c/0b/[] n2:1c/0b/[]"),
      take(6, {.num_cpus = 8}, "n3:8c/0b/[]"),
      take(7, {.num_nodes = 2}, "not_now"),
      state("n0:6c/100b/[0,1] n1:0c/0b/[] n2:0c/0b/[] n3:0c/100b/[0,1] | largest 6c/100b/2g | "
            "idle nodes 0/4 | held 1,3,4,6")}},
    {"Torc #246: 2 nodes x 4 GPUs, a 2-node x 4-GPU job and single-GPU jobs",
     {gpu_node("n0", 32, 1024, 4), gpu_node("n1", 32, 1024, 4)},
     {take(1, one_gpu, "n0:1c/0b/[0]"), take(2, one_gpu, "n0:1c/0b/[1]"),
      take(3, one_gpu, "n0:1c/0b/[2]"), take(4, one_gpu, "n0:1c/0b/[3]"),
      take(5, one_gpu, "n1:1c/0b/[0]"),
      take(10, {.num_gpus = 4, .num_nodes = 2}, "not_now"),
      give(5),
      take(10, {.num_gpus = 4, .num_nodes = 2}, "not_now"),
      give(1), give(2), give(3), give(4),
      take(10, {.num_gpus = 4, .num_nodes = 2}, "whole n0:1c/0b/[0,1,2,3] n1:1c/0b/[0,1,2,3]"),
      take(6, one_gpu, "not_now"),
      take(7, {}, "not_now"),
      state("n0:0c/0b/[] n1:0c/0b/[] | largest 0c/0b/0g | idle nodes 0/2 | held 10"),
      give(10),
      state("n0:32c/1024b/[0,1,2,3] n1:32c/1024b/[0,1,2,3] | largest 32c/1024b/4g | "
            "idle nodes 2/2 | pool idle"),
      take(6, one_gpu, "n0:1c/0b/[0]")}},
    {"opaque GPU ids are given in capacity order",
     {{"n0", 8, 0, {"GPU-f00d", "GPU-8f3a1c2e-77aa-4b1e-9c0d-2f6e5a4b3c21"}},
      {"n1", 8, 0, {"MIG-5e6f7a8b-0000-1111-2222-333344445555", "MIG-1a2b"}}},
     {take(1, one_gpu, "n0:1c/0b/[GPU-f00d]"),
      take(2, one_gpu, "n0:1c/0b/[GPU-8f3a1c2e-77aa-4b1e-9c0d-2f6e5a4b3c21]"),
      take(3, {.num_gpus = 2}, "n1:1c/0b/[MIG-5e6f7a8b-0000-1111-2222-333344445555,MIG-1a2b]"),
      give(1),
      take(4, one_gpu, "n0:1c/0b/[GPU-f00d]"),
      take(5, one_gpu, "not_now")}},
    {"restriction to one node",
     {gpu_node("n0", 8, 0, 1), gpu_node("n1", 8, 0, 2)},
     {take(1, {}, "n1:1c/0b/[]", 1),
      take(2, {.num_gpus = 2}, "never", 0),
      take(3, {.num_cpus = 8}, "not_now", 1),
      take(4, {.num_cpus = 8}, "n0:8c/0b/[]"),
      take(5, {}, "never", 7),
      take(6, {.num_gpus = 2}, "n1:1c/0b/[0,1]", 1)}},
    {"nodes without GPUs",
     {gpu_node("n0", 4, 0, 0)},
     {take(1, {.num_cpus = 4}, "n0:4c/0b/[]"),
      take(2, one_gpu, "never"),
      take(3, {}, "not_now"),
      state("n0:0c/0b/[] | largest 0c/0b/0g | idle nodes 0/1 | held 1"),
      give(1),
      state("n0:4c/0b/[] | largest 4c/0b/0g | idle nodes 1/1 | pool idle")}},
};

std::string fit_name(core::fit f)
{
    switch (f) {
    case core::fit::now: return "now";
    case core::fit::not_now: return "not_now";
    case core::fit::never: return "never";
    }
    return "?";
}

void run_step(core::resource_pool& pool, step const& s)
{
    core::reservation_id const id{s.id};
    BOOST_TEST_CONTEXT("step " << s.id << " " << s.expect)
    {
        if (s.what == step::release) pool.release(id);
        if (s.what == step::state) BOOST_TEST(describe(pool) == s.expect);
        if (s.what == step::reserve) {
            auto const verdict = pool.check(s.req, s.only);
            auto const before = describe(pool);
            auto const r = pool.reserve(s.req, id, s.only);
            BOOST_TEST((verdict == core::fit::now) == r.has_value());
            BOOST_TEST(pool.why_never(s.req, s.only).has_value() == (verdict == core::fit::never));
            if (r) {
                BOOST_TEST(describe(*r) == s.expect);
                BOOST_TEST((pool.reservations().at(id) == *r));
            } else {
                BOOST_TEST(fit_name(verdict) == s.expect);
                BOOST_TEST(describe(pool) == before);
            }
        }
        BOOST_TEST(pool.check_invariants().value_or("") == "");
    }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_pool)

BOOST_DATA_TEST_CASE(create_rejects_bad_capacity, bdata::make(create_cases), c)
{
    auto const pool = core::resource_pool::create(c.nodes);
    BOOST_TEST_REQUIRE(!pool.has_value());
    BOOST_TEST(pool.error().message == c.error);
}

BOOST_AUTO_TEST_CASE(create_keeps_the_capacity_and_starts_idle)
{
    std::vector<node_capacity> const nodes{gpu_node("n0", 4, 8, 2), {"n1", 2, 0, {"0", "MIG-x"}}};
    auto const pool = pool_of(nodes);
    BOOST_TEST((pool.capacity() == nodes));
    BOOST_TEST(describe(pool) == "n0:4c/8b/[0,1] n1:2c/0b/[0,MIG-x] | largest 4c/8b/2g | "
                                 "idle nodes 2/2 | pool idle");
    BOOST_TEST(pool.check_invariants().value_or("") == "");
}

BOOST_DATA_TEST_CASE(never_fits_with_a_reason, bdata::make(never_cases), c)
{
    auto pool = pool_of(c.nodes);
    BOOST_TEST(pool.why_never(c.req, c.only).value_or("(fits)") == c.why);
    BOOST_TEST((pool.check(c.req, c.only) == core::fit::never));
    BOOST_TEST(!pool.reserve(c.req, core::reservation_id{1}, c.only).has_value());
    BOOST_TEST(pool.idle());
}

BOOST_DATA_TEST_CASE(placement_scenarios, bdata::make(scenarios), sc)
{
    auto pool = pool_of(sc.nodes);
    for (auto const& s : sc.steps) run_step(pool, s);
}

BOOST_AUTO_TEST_SUITE_END()
