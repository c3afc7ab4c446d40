// Acceptance: Torc v0.25.1's KDL example specs (test/data/torc-newest/kdl, see its README), read
// as Torc's code reads them. Every example gives the counts below; where Torc ships a YAML twin of
// the same workflow (kdl/yaml/, same commit), the KDL spec makes the same jobs with the same
// commands, files and implied edges. The explicit edges differ by design: Torc's examples and
// docs write `depends_on_job`, a node Torc's KDL mapping never reads, so Torc (and torcrun, with
// a warning at each such node) creates those jobs without the dependencies the YAML twin has.
#include "spec_support.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

std::string const kdl_dir = std::string(TORCRUN_NEWEST_DIR) + "/kdl";

std::string file_text(std::string const& relative)
{
    std::ifstream in(kdl_dir + "/" + relative, std::ios::binary);
    BOOST_TEST_REQUIRE(static_cast<bool>(in), "cannot open " << relative);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

result<spec::creation_plan> plan_file(std::string const& relative)
{
    return plan(file_text(relative), {"tester", true, false}, relative);
}

std::size_t depends_on_job_nodes(std::string const& relative)
{
    std::string const text = file_text(relative);
    std::size_t count = 0;
    for (auto at = text.find("depends_on_job "); at != std::string::npos;
         at = text.find("depends_on_job ", at + 1))
        ++count;
    return count;
}

struct example_case {
    std::string file;
    std::size_t jobs;
    std::size_t files;
    std::size_t user_data;
    std::size_t explicit_edges;
    std::size_t implied_edges;
    std::size_t actions;
    std::string first_job;
    std::string error;  // empty when read
};
std::ostream& operator<<(std::ostream& os, example_case const& c) { return os << c.file; }

// Job counts by hand from each file: parameters expand, same-named expansions merge (§4.10 item
// 6; none of these files uses newer Torc's keys), `depends_on_job` adds no edge.
std::vector<example_case> const examples{
    {"diamond_workflow.kdl", 4, 6, 0, 0, 4, 0, "preprocess", ""},
    // 9 simulate jobs and one aggregate_results (its 9 expansions share the name)
    {"failure_handler_simulation.kdl", 10, 0, 0, 0, 0, 0, "simulate_m0_s0", ""},
    // job_001..job_100 and one job waiting for them all by depends_on_regexes
    {"hundred_jobs_parameterized.kdl", 101, 0, 0, 100, 0, 0, "job_001", ""},
    // 2 prepare, 18 train, 1 aggregate (18 expansions, one name); files: 2 data, 18 models,
    // 18 metrics; implied: 18 x 2 inputs, 18 metrics into aggregate
    {"hyperparameter_sweep.kdl", 21, 38, 0, 0, 54, 0, "prepare_train_data", ""},
    {"hyperparameter_sweep_shared_params.kdl", 21, 38, 0, 0, 54, 0, "prepare_train_data", ""},
    // `depends_on_regexes "short_job_\\d+" "long_job_\\d+"`: Torc reads the first value only
    {"mixed_workload.kdl", 121, 0, 0, 100, 0, 0, "short_job_001", ""},
    // compute_node monitoring on (§4.13): read since the worker samples its node
    {"resource_monitoring_demo.kdl", 3, 0, 0, 0, 0, 0, "cpu_heavy_job", ""},
    {"sample_workflow.kdl", 3, 5, 3, 0, 2, 0, "data_download", ""},
    {"simple_slurm.kdl", 3, 0, 0, 0, 0, 0, "setup", ""},
    {"slurm_staged_pipeline.kdl", 5, 7, 0, 0, 6, 0, "setup", ""},
    {"workflow_actions_data_pipeline.kdl", 3, 0, 0, 0, 0, 2, "download_data", ""},
    {"workflow_actions_ml_training.kdl", 5, 0, 0, 0, 0, 4, "preprocess_data", ""},
    {"workflow_actions_simple.kdl", 3, 0, 0, 0, 0, 2, "setup", ""},
    {"workflow_actions_simple_slurm.kdl", 3, 0, 0, 0, 0, 3, "setup", ""},
    {"zip_parameter_mode.kdl", 6, 3, 0, 0, 0, 0, "train_cifar10_resnet", ""},
};

// The examples whose YAML twin at the same commit is the same workflow.
// (The other twins differ from their KDL example in paths, line breaks or parameters.)
std::vector<std::string> const twins{"diamond_workflow", "failure_handler_simulation",
                                     "workflow_actions_simple"};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_kdl_examples)

BOOST_DATA_TEST_CASE(each_example_makes_what_torc_makes, bdata::make(examples), c)
{
    auto const p = plan_file(c.file);
    if (!c.error.empty()) {
        BOOST_TEST(message_of(p) == c.error);
        return;
    }
    BOOST_TEST_REQUIRE(p.has_value(), message_of(p));
    BOOST_TEST(p->jobs.size() == c.jobs);
    BOOST_TEST(p->files.size() == c.files);
    BOOST_TEST(p->user_data.size() == c.user_data);
    BOOST_TEST(p->explicit_edges.size() == c.explicit_edges);
    BOOST_TEST(p->implied_edges.size() == c.implied_edges);
    BOOST_TEST(p->actions.size() == c.actions);
    BOOST_TEST(p->jobs.front().name == c.first_job);
    // One warning per `depends_on_job` node, at that node.
    auto const parsed = read(file_text(c.file), c.file);
    BOOST_TEST_REQUIRE(parsed.has_value(), message_of(parsed));
    auto const ignored = std::count_if(
        parsed->warnings.begin(), parsed->warnings.end(), [](std::string const& w) {
            return w.find("node \"depends_on_job\" is not one Torc reads here") != w.npos;
        });
    BOOST_TEST(static_cast<std::size_t>(ignored) == depends_on_job_nodes(c.file));
}

BOOST_DATA_TEST_CASE(a_yaml_twin_makes_the_same_jobs_but_for_depends_on_job, bdata::make(twins),
                     name)
{
    auto const kdl = plan_file(name + ".kdl");
    auto const yaml = plan_file("yaml/" + name + ".yaml");
    BOOST_TEST_REQUIRE(kdl.has_value(), message_of(kdl));
    BOOST_TEST_REQUIRE(yaml.has_value(), message_of(yaml));
    BOOST_TEST_REQUIRE(kdl->jobs.size() == yaml->jobs.size());
    for (std::size_t i = 0; i < kdl->jobs.size(); ++i) {
        BOOST_TEST(kdl->jobs[i].name == yaml->jobs[i].name);
        BOOST_TEST(kdl->jobs[i].command == yaml->jobs[i].command);
        BOOST_TEST(kdl->jobs[i].input_files == yaml->jobs[i].input_files);
        BOOST_TEST(kdl->jobs[i].output_files == yaml->jobs[i].output_files);
    }
    BOOST_TEST(kdl->files.size() == yaml->files.size());
    BOOST_TEST(kdl->implied_edges.size() == yaml->implied_edges.size());
    BOOST_TEST(kdl->actions.size() == yaml->actions.size());
    BOOST_TEST(kdl->explicit_edges.empty());
    BOOST_TEST((depends_on_job_nodes(name + ".kdl") == 0) == yaml->explicit_edges.empty());
}

BOOST_AUTO_TEST_SUITE_END()
