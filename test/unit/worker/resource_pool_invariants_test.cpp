// The pool's invariant checker against deliberately corrupted state: each case breaks one rule
// of a consistent pool and asserts the exact description of the first violation, so the
// random tests' "check_invariants() is empty" cannot pass by the checker saying nothing.
#include "torcrun/worker/resource_pool.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>
#include <ostream>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

namespace torcrun::core {

// Declared a friend by resource_pool: lets these tests corrupt the state on purpose.
struct resource_pool_tamper {
    static auto& state(resource_pool& p) { return p.state_; }
    static auto& held(resource_pool& p) { return p.held_; }
};

}  // namespace torcrun::core

namespace {

using tamper = core::resource_pool_tamper;

core::reservation_id id(std::int64_t n) { return core::reservation_id{n}; }

// n0 holds reservation 1 (1 CPU, 100 bytes, GPU "0"); reservation 2 holds n1 and n2 whole
// (2 CPUs, 10 bytes and the first GPU on each).
core::resource_pool consistent_pool()
{
    auto pool = core::resource_pool::create({{"n0", 4, 1024, {"0", "1"}},
                                             {"n1", 8, 2048, {"GPU-a", "GPU-b"}},
                                             {"n2", 8, 2048, {"MIG-x", "MIG-y"}}})
                    .value();
    auto const single = pool.reserve({.num_gpus = 1, .memory_bytes = 100}, id(1));
    auto const multi =
        pool.reserve({.num_cpus = 2, .num_gpus = 1, .num_nodes = 2, .memory_bytes = 10}, id(2));
    BOOST_TEST_REQUIRE((single && multi));
    BOOST_TEST_REQUIRE(single->nodes.at(0).node_name == "n0");
    return pool;
}

struct tamper_case {
    std::string name;
    std::function<void(core::resource_pool&)> corrupt;
    std::string violation;
};
std::ostream& operator<<(std::ostream& os, tamper_case const& c) { return os << c.name; }

void add_user(core::resource_pool& p, std::int64_t n, core::node_share share)
{
    auto& node = tamper::state(p).at(share.node_index);
    node.free_cpus -= share.cpus;
    ++node.reservation_count;
    tamper::held(p).emplace(id(n), core::reservation{id(n), false, {std::move(share)}});
}

std::vector<tamper_case> const tamper_cases{
    {"consistent", [](auto&) {}, ""},
    {"free CPUs wrapped below zero", [](auto& p) { tamper::state(p)[0].free_cpus -= 4; },
     "n0: 4294967295 CPUs free, above the capacity of 4 CPUs"},
    {"free bytes wrapped below zero",
     [](auto& p) { tamper::state(p)[1].free_memory_bytes -= 4096; },
     "n1: 18446744073709549558 bytes free, above the capacity of 2048 bytes"},
    {"free bytes off by one", [](auto& p) { ++tamper::state(p)[0].free_memory_bytes; },
     "n0: 925 bytes free + 100 bytes reserved != capacity 1024 bytes"},
    {"reserved CPUs above capacity", [](auto& p) { tamper::held(p).at(id(1)).nodes[0].cpus = 10; },
     "n0: reservations take 10 CPUs, above the capacity of 4 CPUs"},
    {"reservation count off", [](auto& p) { tamper::state(p)[0].reservation_count = 2; },
     "n0: reservation count 2 != 1 found"},
    {"reserved GPU marked free", [](auto& p) { tamper::state(p)[0].gpu_holder[0].reset(); },
     "reservation 1: GPU \"0\" of n0 is marked free"},
    {"GPU held by a missing reservation",
     [](auto& p) { tamper::state(p)[0].gpu_holder[1] = id(9); },
     "n0: GPU \"1\" is held by reservation 9, which does not exist"},
    {"GPU held by a reservation that does not list it",
     [](auto& p) { tamper::state(p)[0].gpu_holder[1] = id(2); },
     "n0: GPU \"1\" is held by reservation 2, which does not list it"},
    {"one GPU in two reservations", [](auto& p) { add_user(p, 3, {0, "n0", 0, 0, {"0"}}); },
     "reservation 3: GPU \"0\" of n0 is held by reservation 1"},
    {"GPU of another node",
     [](auto& p) { tamper::held(p).at(id(1)).nodes[0].gpu_ids = {"GPU-a"}; },
     "reservation 1: GPU \"GPU-a\" is not a GPU of n0"},
    {"GPU listed twice", [](auto& p) { tamper::held(p).at(id(1)).nodes[0].gpu_ids = {"0", "0"}; },
     "reservation 1: lists GPU \"0\" of n0 twice"},
    {"node renamed", [](auto& p) { tamper::held(p).at(id(1)).nodes[0].node_name = "nX"; },
     "reservation 1: node 0 is named \"n0\", not \"nX\""},
    {"node index outside the pool",
     [](auto& p) { tamper::held(p).at(id(1)).nodes[0].node_index = 3; },
     "reservation 1: node index 3 is outside the pool"},
    {"node listed twice",
     [](auto& p) {
         auto& nodes = tamper::held(p).at(id(2)).nodes;
         nodes[1] = nodes[0];
     },
     "reservation 2: lists n1 twice"},
    {"whole flag lost", [](auto& p) { tamper::held(p).at(id(2)).whole_nodes = false; },
     "reservation 2: does not hold n1 whole, the node says so"},
    {"node forgot it is held whole", [](auto& p) { tamper::state(p)[1].whole_holder.reset(); },
     "reservation 2: holds n1 whole, the node does not say so"},
    {"held whole by a missing reservation",
     [](auto& p) { tamper::state(p)[0].whole_holder = id(9); },
     "n0: held whole by reservation 9, which does not exist"},
    {"held whole by a reservation elsewhere",
     [](auto& p) { tamper::state(p)[0].whole_holder = id(2); },
     "n0: held whole by reservation 2, which does not use it"},
    {"a second job on a node held whole", [](auto& p) { add_user(p, 3, {1, "n1", 1, 0, {}}); },
     "n1: held whole by reservation 2, but 2 reservations use the node"},
    {"stored under another id", [](auto& p) { tamper::held(p).at(id(1)).id = id(5); },
     "reservation 1: stored under the id of reservation 5"},
    {"GPU state shorter than the capacity",
     [](auto& p) { tamper::state(p)[0].gpu_holder.pop_back(); },
     "n0: the GPU state has 1 entries, the capacity lists 2 GPU ids"},
    {"node state missing", [](auto& p) { tamper::state(p).pop_back(); },
     "pool: the node state has 2 entries, the capacity lists 3 nodes"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_pool_invariants)

BOOST_DATA_TEST_CASE(first_violation_is_described, bdata::make(tamper_cases), c)
{
    auto pool = consistent_pool();
    c.corrupt(pool);
    BOOST_TEST(pool.check_invariants().value_or("") == c.violation);
}

BOOST_AUTO_TEST_SUITE_END()
