// choose_mode over every scope: the mode auto picks, explicit requests, the pool each mode
// may use, the idle-node warning of a single direct worker, and the refusals.
#include "torcrun/slurm/mode_choice.hpp"

#include "slurm_fixtures.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;
using namespace fixtures;

namespace {

using requested = core::requested_mode;
using mode = core::execution_mode;

struct mode_case {
    std::string name;
    env_map env;
    requested request;
    mode expected;
    std::string reason;
    std::vector<std::string> pool;
    std::size_t pool_gpus;
    std::vector<std::string> warnings;
};

std::ostream& operator<<(std::ostream& os, mode_case const& c)
{
    return os << c.name;
}

std::string const idle_n2 =
    "only n1 is used; n2 stays idle: start one worker per node (torcrun "
    "slurm-script --per-node-workers) or use --mode slurm";

env_map const single_node = overlay(batch_step(), {{"SLURM_JOB_NODELIST", "n1"},
                                                   {"SLURM_NODELIST", "n1"},
                                                   {"SLURM_JOB_NUM_NODES", "1"},
                                                   {"SLURM_JOB_CPUS_PER_NODE", "8"}});
env_map const three_nodes = overlay(batch_step(), {{"SLURM_JOB_NODELIST", "n[1-3]"},
                                                   {"SLURM_JOB_NUM_NODES", "3"},
                                                   {"SLURM_JOB_CPUS_PER_NODE", "8(x3)"}});

std::vector<mode_case> const cases{
    {"outside Slurm, auto",
     {},
     requested::auto_,
     mode::direct,
     "not in a Slurm allocation: jobs run here on vm",
     {"vm"},
     4,
     {}},
    {"outside Slurm, direct",
     {},
     requested::direct,
     mode::direct,
     "requested: jobs run here on vm",
     {"vm"},
     4,
     {}},
    {"(a) salloc shell, auto",
     salloc_shell(),
     requested::auto_,
     mode::slurm,
     "this process runs outside the allocation's nodes: jobs start with srun on n[1-2]",
     {"n1", "n2"},
     8,
     {}},
    {"(a) salloc shell, slurm",
     salloc_shell(),
     requested::slurm,
     mode::slurm,
     "requested: jobs start with srun on n[1-2]",
     {"n1", "n2"},
     8,
     {}},
    {"batch step, auto",
     batch_step(),
     requested::auto_,
     mode::slurm,
     "multi-node allocation (2 nodes) seen whole: jobs start with srun on n[1-2]",
     {"n1", "n2"},
     8,
     {}},
    {"batch step, direct",
     batch_step(),
     requested::direct,
     mode::direct,
     "requested: jobs run here on n1",
     {"n1"},
     4,
     {idle_n2}},
    {"batch step, slurm",
     batch_step(),
     requested::slurm,
     mode::slurm,
     "requested: jobs start with srun on n[1-2]",
     {"n1", "n2"},
     8,
     {}},
    {"(b) worker on n2, auto",
     worker_step_n2(),
     requested::auto_,
     mode::direct,
     "one task of a Slurm step: a 1-node pool: jobs run here on n2",
     {"n2"},
     4,
     {}},
    {"(b) worker on n2, direct",
     worker_step_n2(),
     requested::direct,
     mode::direct,
     "requested: jobs run here on n2",
     {"n2"},
     4,
     {}},
    {"(b) worker on n2, slurm",
     worker_step_n2(),
     requested::slurm,
     mode::slurm,
     "requested: jobs start with srun on n2",
     {"n2"},
     4,
     {}},
    {"(c) nested step, auto",
     nested_step_one_gpu(),
     requested::auto_,
     mode::direct,
     "one task of a Slurm step: a 1-node pool: jobs run here on n2",
     {"n2"},
     1,
     {}},
    {"single-node batch, auto",
     single_node,
     requested::auto_,
     mode::direct,
     "single-node allocation: jobs run here on n1",
     {"n1"},
     4,
     {}},
    {"three-node batch, direct",
     three_nodes,
     requested::direct,
     mode::direct,
     "requested: jobs run here on n1",
     {"n1"},
     4,
     {"only n1 is used; n[2-3] stay idle: start one worker per node (torcrun slurm-script "
      "--per-node-workers) or use --mode slurm"}},
    {"Torc #249 first node, auto",
     torc_249_first_node(),
     requested::auto_,
     mode::slurm,
     "multi-node allocation (2 nodes) seen whole: jobs start with srun on n[1-2]",
     {"n1", "n2"},
     8,
     {}},
    {"Torc #249 first node, direct",
     torc_249_first_node(),
     requested::direct,
     mode::direct,
     "requested: jobs run here on n1",
     {"n1"},
     4,
     {idle_n2}},
    {"Torc #249 worker on n2, auto",
     torc_249_worker_n2(),
     requested::auto_,
     mode::direct,
     "one task of a Slurm step: a 1-node pool: jobs run here on n2",
     {"n2"},
     4,
     {}},
};

struct refusal {
    std::string name;
    env_map env;
    requested request;
    std::string message;
};

std::ostream& operator<<(std::ostream& os, refusal const& c)
{
    return os << c.name;
}

std::vector<refusal> const refusals{
    {"slurm outside Slurm",
     {},
     requested::slurm,
     "mode: \"slurm\" needs a Slurm allocation, and SLURM_JOB_ID is not set"},
    {"direct from the submit host", salloc_shell(), requested::direct,
     "mode: \"direct\" would run jobs on this host, which is not a node of the allocation "
     "(n[1-2]): use --mode slurm, or start the worker with srun"},
};

struct parse_case {
    std::string text;
    std::string message;  // empty: valid
};

std::ostream& operator<<(std::ostream& os, parse_case const& c)
{
    return os << c.text;
}

std::vector<parse_case> const parses{
    {"auto", ""},
    {"direct", ""},
    {"slurm", ""},
    {"fast", "mode: \"fast\" is not auto, direct or slurm"},
    {"", "mode: \"\" is not auto, direct or slurm"},
    {"Auto", "mode: \"Auto\" is not auto, direct or slurm"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(mode_choice)

BOOST_DATA_TEST_CASE(chooses_the_mode_and_its_pool, bdata::make(cases), c)
{
    auto const a = core::read_allocation(c.env, lab_machine());
    BOOST_TEST_REQUIRE(a.has_value());
    auto const d = core::choose_mode(*a, c.request);
    BOOST_TEST_REQUIRE(d.has_value(), (d.has_error() ? d.error().message : std::string()));
    BOOST_TEST(core::to_string(d->mode) == core::to_string(c.expected));
    BOOST_TEST(d->reason == c.reason);
    std::vector<std::string> names;
    std::size_t gpus = 0;
    for (auto const& n : d->pool) {
        names.push_back(n.name);
        gpus += n.gpu_ids.size();
    }
    BOOST_TEST(names == c.pool, boost::test_tools::per_element());
    BOOST_TEST(gpus == c.pool_gpus);
    BOOST_TEST(d->warnings == c.warnings, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(refuses_modes_that_cannot_work_here, bdata::make(refusals), c)
{
    auto const a = core::read_allocation(c.env, lab_machine());
    BOOST_TEST_REQUIRE(a.has_value());
    auto const d = core::choose_mode(*a, c.request);
    BOOST_TEST_REQUIRE(d.has_error());
    BOOST_TEST(d.error().message == c.message);
}

BOOST_DATA_TEST_CASE(parses_requested_modes, bdata::make(parses), c)
{
    auto const r = core::parse_requested_mode(c.text);
    if (c.message.empty()) {
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(core::to_string(*r) == c.text);
    } else {
        BOOST_TEST_REQUIRE(r.has_error());
        BOOST_TEST(r.error().message == c.message);
    }
}

// The pool carries the nodes' own capacities: n1's device ids and n2's 4 Slurm-bound GPUs.
BOOST_AUTO_TEST_CASE(the_slurm_pool_of_torc_249_holds_4_gpus_per_node)
{
    auto const a = core::read_allocation(torc_249_first_node(), lab_machine());
    BOOST_TEST_REQUIRE(a.has_value());
    auto const d = core::choose_mode(*a, requested::auto_);
    BOOST_TEST_REQUIRE(d.has_value());
    BOOST_TEST_REQUIRE(d->pool.size() == 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        BOOST_TEST((d->pool[i] == a->nodes[i].capacity));
        BOOST_TEST(d->pool[i].gpu_ids == four_ids, boost::test_tools::per_element());
    }
}

BOOST_AUTO_TEST_CASE(execution_mode_names)
{
    BOOST_TEST(core::to_string(mode::direct) == "direct");
    BOOST_TEST(core::to_string(mode::slurm) == "slurm");
}

BOOST_AUTO_TEST_SUITE_END()
