// worker_fsm's invariant checker: each violation, made by corrupting the state of a worker with
// two running jobs, is reported with its exact description.
#include "worker_fsm_script.hpp"

#include "worker/worker_fsm_impl.hpp"

#include <boost/test/data/test_case.hpp>

namespace torcrun::core {

// Reaches into the state machine; a friend of worker_fsm for these tests only.
struct worker_fsm_tamper {
    using impl = worker_fsm::impl;
    static impl& state(worker_fsm& fsm) { return *fsm.impl_; }
};

}  // namespace torcrun::core

using namespace fsm_test;
namespace bdata = boost::unit_test::data;

namespace {

using state = core::worker_fsm_tamper::impl;

core::job_state::running& running(state& s, std::int64_t job_id)
{
    return std::get<core::job_state::running>(s.jobs.at(job_id).state);
}

struct corruption {
    std::string name;
    std::function<void(state&)> corrupt;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, corruption const& c) { return os << c.name; }

std::vector<corruption> const corruptions{
    {"a running job without its reservation",
     [](state& s) { s.pool.release(core::reservation_id{42}); },
     "job 42 holds no reservation while running"},
    {"a reporting job with a reservation",
     [](state& s) { s.jobs.at(42).state = core::job_state::reporting{}; },
     "job 42 holds a reservation while reporting"},
    {"two jobs listing one GPU",
     [](state& s) { running(s, 43).placement.nodes.front().gpu_ids = {"0"}; },
     "GPU 0 of n0 is held by two jobs"},
    {"a job's reservation unlike the pool's",
     [](state& s) { running(s, 42).placement.nodes.front().cpus = 3; },
     "job 42: the pool does not hold its reservation"},
    {"a reservation of no job",
     [](state& s) { (void)s.pool.reserve(needs(1).need, core::reservation_id{999}); },
     "the pool holds a reservation of no job"},
    {"a claim the ledger does not know", [](state& s) { ++s.ledger.claimed; },
     "the job ledger does not balance"},
    {"stopped with a job", [](state& s) { s.stage = core::worker_stage::stopped; },
     "stopped with live jobs"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_fsm_invariants)

BOOST_DATA_TEST_CASE(each_violation_is_named, bdata::make(corruptions), c)
{
    harness h(test_config(), n0_pool());
    auto const steps = opening(n0_node, n0_claim) + launched(1, job(42), needs(1, 0, 1)) +
                       launched(1.1, job(43), std::nullopt);
    for (auto const& st : steps) h.feed(st.at, st.event(h));
    BOOST_TEST_REQUIRE(!h.fsm().check_invariants().has_value());
    c.corrupt(core::worker_fsm_tamper::state(h.fsm()));
    BOOST_TEST(h.fsm().check_invariants().value_or("none") == c.message);
}

BOOST_AUTO_TEST_SUITE_END()
