// Acceptance: every Torc v0.10 example spec (test/data/torc-examples: JSON, JSON5, YAML and the
// subgraph examples) yields the jobs, edges and records Torc 0.10 creates from it
// (docs/TORC-COMPATIBILITY.md §4.11). Where §4.10 item 6 applies, torcrun makes one job per
// distinct name and its edge counts are derived beside the row; every other count is Torc's. The
// YAML files are counted the same way. Then the JSON, JSON5 and YAML variants of one workflow must
// give identical jobs and edges.
#include "spec_support.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <ostream>
#include <set>
#include <sstream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

std::string const examples_dir = TORCRUN_EXAMPLES_DIR;

result<spec::creation_plan> plan_file(std::string const& relative)
{
    std::ifstream in(examples_dir + "/" + relative, std::ios::binary);
    BOOST_TEST_REQUIRE(static_cast<bool>(in), "cannot open " << relative);
    std::ostringstream text;
    text << in.rdbuf();
    return plan(text.str(), {"tester", true, false}, relative);
}

struct example_case {
    std::string file;
    std::size_t torc_jobs;  // job rows Torc 0.10 creates, same-named copies included
    std::size_t jobs;       // torcrun: one per distinct name
    std::size_t explicit_edges;
    std::size_t implied_edges;
    std::size_t union_edges;
    std::size_t files;
    std::size_t user_data;
    std::size_t resource_requirements;  // besides the server's "default"
    std::size_t slurm_schedulers;
    std::size_t failure_handlers;
    std::string actions;  // trigger[selected jobs or null]
    std::size_t bulk_jobs_calls;
    bool scheduler_warning;  // Torc's --dry-run warns about differing schedulers (§4.8)
};
std::ostream& operator<<(std::ostream& os, example_case const& c)
{
    return os << c.file;
}

std::string const wa_data_actions = "on_workflow_start[null] on_jobs_ready[4] on_jobs_complete[4] "
                                    "on_jobs_complete[4] on_workflow_complete[null]";
std::string const wa_ml_actions =
    "on_workflow_start[null] on_jobs_ready[8] on_jobs_complete[8] on_workflow_complete[null]";
std::string const subgraph_actions = "on_workflow_start[2] on_jobs_ready[5] on_jobs_ready[5] "
                                     "on_jobs_ready[1] on_jobs_ready[1] on_jobs_ready[1]";

// Merged rows (§4.10 item 6), torcrun's edges:
// data_pipeline: preprocess->download 4, analyze->preprocess 12, report_d->its 3 analyses 12,
//   executive_summary->4 reports 4 = 32 explicit; implied through raw_ 4, clean_ 12,
//   results_ 12 = 28, all of them explicit too: 32 in all (Torc: 40 with its 36 copies).
// failure_handler_simulation: aggregate_results waits for the 9 simulate jobs; no files.
// hyperparameter_sweep*: 18 train->2 prepare jobs 36, aggregate->18 train 18 = 54; implied
//   through train_data/val_data 36 and 18 metrics files 18 = 54, the same pairs (Torc: 71).
// simulation_sweep: 16 simulate->generate_config, 16 analyze->simulate, the phase diagram->16
//   analyze = 48; implied through initial_config, simulation_*, analysis_* 48, the same pairs.
std::vector<example_case> const examples{
    {"json/data_pipeline_parameterized.json5", 36, 25, 32, 28, 32, 20, 0, 3, 0, 0, "", 5, false},
    {"json/diamond_workflow.json5", 4, 4, 0, 4, 4, 6, 0, 0, 0, 0, "", 1, false},
    {"json/failure_handler_simulation.json", 18, 10, 9, 0, 9, 0, 0, 0, 0, 1, "", 2, false},
    {"json/hundred_jobs_parameterized.json5", 100, 100, 0, 0, 0, 0, 0, 1, 0, 0, "", 1, false},
    {"json/hundred_jobs_workflow.json5", 100, 100, 0, 0, 0, 0, 0, 1, 0, 0, "", 1, false},
    {"json/hyperparameter_sweep.json5", 38, 21, 54, 54, 54, 38, 0, 3, 0, 0, "", 3, false},
    {"json/hyperparameter_sweep_shared_params.json5", 38, 21, 54, 54, 54, 38, 0, 3, 0, 0, "", 3,
     false},
    {"json/multi_stage_barrier_pattern.json5", 2104, 2104, 3201, 0, 3201, 0, 0, 3, 0, 0, "", 7,
     false},
    {"json/resource_monitoring_demo.json5", 3, 3, 0, 0, 0, 0, 0, 1, 0, 0, "", 1, false},
    {"json/sample_workflow.json", 3, 3, 2, 2, 2, 5, 3, 2, 2, 0, "", 3, false},
    {"json/sample_workflow.json5", 3, 3, 2, 2, 2, 5, 3, 2, 2, 0, "", 3, false},
    {"json/simulation_sweep.json5", 49, 34, 48, 48, 48, 49, 0, 3, 0, 0, "", 4, false},
    {"json/slurm_staged_pipeline.json5", 12, 12, 20, 20, 20, 21, 0, 3, 3, 0, "", 3, false},
    {"json/workflow_actions_data_pipeline.json5", 14, 14, 13, 0, 13, 0, 0, 3, 0, 0, wa_data_actions,
     5, false},
    {"json/workflow_actions_ml_training.json5", 10, 10, 16, 0, 16, 0, 0, 3, 1, 0, wa_ml_actions, 3,
     false},
    {"json/workflow_actions_simple.json5", 3, 3, 2, 0, 2, 0, 0, 0, 0, 0,
     "on_workflow_start[null] on_workflow_complete[null]", 3, false},
    {"json/workflow_actions_simple_slurm.json5", 3, 3, 2, 0, 2, 0, 0, 2, 3, 0,
     "on_workflow_start[null] on_jobs_ready[1] on_jobs_ready[1]", 3, true},
    {"json/zip_parameter_mode.json5", 6, 6, 3, 3, 3, 3, 0, 0, 0, 0, "", 2, false},
    {"subgraphs/subgraphs_workflow.json5", 15, 15, 0, 22, 22, 17, 0, 5, 6, 0, subgraph_actions, 1,
     true},
    {"subgraphs/subgraphs_workflow_no_slurm.json5", 15, 15, 0, 22, 22, 17, 0, 5, 0, 0, "", 1,
     false},
    // The YAML variants of the rows above.
    {"yaml/data_pipeline_parameterized.yaml", 36, 25, 32, 28, 32, 20, 0, 3, 0, 0, "", 5, false},
    {"yaml/diamond_workflow.yaml", 4, 4, 0, 4, 4, 6, 0, 0, 0, 0, "", 1, false},
    {"yaml/failure_handler_simulation.yaml", 18, 10, 9, 0, 9, 0, 0, 0, 0, 1, "", 2, false},
    {"yaml/hundred_jobs_parameterized.yaml", 100, 100, 0, 0, 0, 0, 0, 1, 0, 0, "", 1, false},
    {"yaml/hyperparameter_sweep.yaml", 38, 21, 54, 54, 54, 38, 0, 3, 0, 0, "", 3, false},
    {"yaml/hyperparameter_sweep_shared_params.yaml", 38, 21, 54, 54, 54, 38, 0, 3, 0, 0, "", 3,
     false},
    {"yaml/multi_stage_barrier_pattern.yaml", 2104, 2104, 3201, 0, 3201, 0, 0, 3, 0, 0, "", 7,
     false},
    {"yaml/sample_workflow.yaml", 3, 3, 2, 2, 2, 5, 3, 2, 2, 0, "", 3, false},
    {"yaml/simulation_sweep.yaml", 49, 34, 48, 48, 48, 49, 0, 3, 0, 0, "", 4, false},
    {"yaml/slurm_staged_pipeline.yaml", 12, 12, 20, 20, 20, 21, 0, 3, 3, 0, "", 3, false},
    {"yaml/workflow_actions_data_pipeline.yaml", 14, 14, 13, 0, 13, 0, 0, 3, 0, 0, wa_data_actions,
     5, false},
    {"yaml/workflow_actions_ml_training.yaml", 10, 10, 16, 0, 16, 0, 0, 3, 1, 0, wa_ml_actions, 3,
     false},
    {"yaml/workflow_actions_simple.yaml", 3, 3, 2, 0, 2, 0, 0, 0, 0, 0,
     "on_workflow_start[null] on_workflow_complete[null]", 3, false},
    {"subgraphs/subgraphs_workflow.yaml", 15, 15, 0, 22, 22, 17, 0, 5, 6, 0, subgraph_actions, 1,
     true},
    {"subgraphs/subgraphs_workflow_no_slurm.yaml", 15, 15, 0, 22, 22, 17, 0, 5, 0, 0, "", 1, false},
    // YAML files that differ from their JSON5 namesakes or have none (counted by hand).
    // resource_monitoring_demo.yaml: one resource-requirements entry per job.
    {"yaml/resource_monitoring_demo.yaml", 3, 3, 0, 0, 0, 0, 0, 3, 0, 0, "", 1, false},
    // Three process jobs instead of one: 3 on setup, finalize on all 3.
    {"yaml/workflow_actions_simple_slurm.yaml", 5, 5, 6, 0, 6, 0, 0, 2, 3, 0,
     "on_workflow_start[null] on_jobs_ready[3] on_jobs_ready[1]", 3, true},
    // setup, 3 zipped train (on setup), 3 evaluate (on train; implied through model_*), and
    // aggregate on the 3 evaluate jobs: 3 + 3 + 3 explicit, 3 implied.
    {"yaml/zip_parameter_mode.yaml", 8, 8, 9, 3, 9, 6, 0, 0, 0, 0, "", 4, false},
    // flaky_job_2 and reliable_job on flaky_job_1, summary on both.
    {"yaml/failure_handler_demo.yaml", 4, 4, 4, 0, 4, 0, 0, 0, 0, 1, "", 3, false},
    {"yaml/simple_retry.yaml", 2, 2, 1, 0, 1, 0, 0, 0, 0, 1, "", 2, false},
};

std::string actions_of(spec::creation_plan const& p)
{
    strings out;
    for (auto const& a : p.actions)
        out.push_back(a.trigger_type + "["
                      + (a.job_names ? std::to_string(a.job_names->size()) : "null") + "]");
    return join(out, " ");
}

std::size_t union_size(spec::creation_plan const& p)
{
    std::set<std::string> all;
    for (auto const& e : describe(p.explicit_edges)) all.insert(e);
    for (auto const& e : describe(p.implied_edges)) all.insert(e);
    return all.size();
}

bool has_scheduler_warning(spec::creation_plan const& p)
{
    return std::any_of(p.warnings.begin(), p.warnings.end(),
                       [](auto const& w) { return w.starts_with("slurm_schedulers:"); });
}

struct variants_case {
    strings files;
    bool same_details;  // commands, requirements and schedulers are written alike too
};
std::ostream& operator<<(std::ostream& os, variants_case const& c)
{
    return os << c.files[0];
}

// What must not depend on the format: every job with its dependencies, files and user data,
// both kinds of edges, the file names and the batches; with `details`, also each job's
// command, script, requirements, scheduler and failure handler.
strings jobs_and_edges(spec::creation_plan const& p, bool details)
{
    strings out;
    for (auto const& j : p.jobs) {
        std::string line = j.name + " deps=" + join(j.depends_on) + " in=" + join(j.input_files)
                           + " out=" + join(j.output_files) + " uin=" + join(j.input_user_data)
                           + " uout=" + join(j.output_user_data)
                           + " copies=" + std::to_string(j.copies);
        if (details) {
            line += " cmd=" + j.command + " script=" + or_none(j.invocation_script)
                    + " rr=" + or_none(j.resource_requirements) + " sched=" + or_none(j.scheduler)
                    + " fh=" + or_none(j.failure_handler);
        }
        out.push_back(line);
    }
    out.push_back("explicit " + join(describe(p.explicit_edges)));
    out.push_back("implied " + join(describe(p.implied_edges)));
    strings files;
    for (auto const& f : p.files) files.push_back(f.name);
    out.push_back("files " + join(files));
    for (auto const& b : p.job_batches) out.push_back("batch " + std::to_string(b.jobs.size()));
    return out;
}

// The YAML variants of workflow_actions_simple_slurm and zip_parameter_mode describe other
// workflows than their JSON5 namesakes, so they are not compared.
std::vector<variants_case> const variants{
    {{"json/data_pipeline_parameterized.json5", "yaml/data_pipeline_parameterized.yaml"}, true},
    // Absolute paths in the JSON5 file, relative ones in the YAML file.
    {{"json/diamond_workflow.json5", "yaml/diamond_workflow.yaml"}, false},
    {{"json/failure_handler_simulation.json", "yaml/failure_handler_simulation.yaml"}, true},
    {{"json/hundred_jobs_parameterized.json5", "yaml/hundred_jobs_parameterized.yaml"}, true},
    {{"json/hyperparameter_sweep.json5", "yaml/hyperparameter_sweep.yaml"}, true},
    // The YAML train command is a block scalar laid out on several lines.
    {{"json/hyperparameter_sweep_shared_params.json5",
      "yaml/hyperparameter_sweep_shared_params.yaml"},
     false},
    {{"json/multi_stage_barrier_pattern.json5", "yaml/multi_stage_barrier_pattern.yaml"}, true},
    // The YAML file gives each job its own resource requirements.
    {{"json/resource_monitoring_demo.json5", "yaml/resource_monitoring_demo.yaml"}, false},
    {{"json/sample_workflow.json", "json/sample_workflow.json5", "yaml/sample_workflow.yaml"},
     true},
    {{"json/simulation_sweep.json5", "yaml/simulation_sweep.yaml"}, true},
    {{"json/slurm_staged_pipeline.json5", "yaml/slurm_staged_pipeline.yaml"}, true},
    {{"json/workflow_actions_data_pipeline.json5", "yaml/workflow_actions_data_pipeline.yaml"},
     true},
    {{"json/workflow_actions_ml_training.json5", "yaml/workflow_actions_ml_training.yaml"}, true},
    {{"json/workflow_actions_simple.json5", "yaml/workflow_actions_simple.yaml"}, true},
    {{"subgraphs/subgraphs_workflow.json5", "subgraphs/subgraphs_workflow.yaml"}, true},
    {{"subgraphs/subgraphs_workflow_no_slurm.json5", "subgraphs/subgraphs_workflow_no_slurm.yaml"},
     true},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_examples)

BOOST_DATA_TEST_CASE(section_18_counts, bdata::make(examples), c)
{
    auto const p = plan_file(c.file);
    BOOST_TEST_REQUIRE(message_of(p) == "ok");
    std::size_t torc_jobs = 0;
    for (auto const& j : p->jobs) torc_jobs += j.copies;
    BOOST_TEST(torc_jobs == c.torc_jobs);
    BOOST_TEST(p->jobs.size() == c.jobs);
    BOOST_TEST(p->explicit_edges.size() == c.explicit_edges);
    BOOST_TEST(p->implied_edges.size() == c.implied_edges);
    BOOST_TEST(union_size(*p) == c.union_edges);
    BOOST_TEST(p->files.size() == c.files);
    BOOST_TEST(p->user_data.size() == c.user_data);
    BOOST_TEST(p->resource_requirements.size() == c.resource_requirements);
    BOOST_TEST(p->slurm_schedulers.size() == c.slurm_schedulers);
    BOOST_TEST(p->failure_handlers.size() == c.failure_handlers);
    BOOST_TEST(actions_of(*p) == c.actions);
    BOOST_TEST(p->job_batches.size() == c.bulk_jobs_calls);
    BOOST_TEST(has_scheduler_warning(*p) == c.scheduler_warning);
}

BOOST_DATA_TEST_CASE(formats_agree, bdata::make(variants), c)
{
    auto const first = plan_file(c.files[0]);
    BOOST_TEST_REQUIRE(message_of(first) == "ok");
    auto const expected = jobs_and_edges(*first, c.same_details);
    for (std::size_t i = 1; i < c.files.size(); ++i) {
        auto const other = plan_file(c.files[i]);
        BOOST_TEST_REQUIRE(message_of(other) == "ok");
        BOOST_TEST(jobs_and_edges(*other, c.same_details) == expected,
                   boost::test_tools::per_element());
    }
}

// A few expanded jobs checked by name, beyond the counts.
BOOST_AUTO_TEST_CASE(expanded_jobs_of_the_examples)
{
    auto const sweep = plan_file("json/hyperparameter_sweep.json5");
    BOOST_TEST_REQUIRE(message_of(sweep) == "ok");
    auto const& train = sweep->jobs[2];
    BOOST_TEST(train.name == "train_lr0.0001_bs16_optadam");
    BOOST_TEST(train.command.find("--learning-rate=0.0001 ") != std::string::npos);
    auto const& aggregate = sweep->jobs.back();
    BOOST_TEST(aggregate.name == "aggregate_results");
    BOOST_TEST(aggregate.copies == 18u);
    BOOST_TEST(aggregate.depends_on.size() == 18u);
    BOOST_TEST(aggregate.depends_on.back() == "train_lr0.0100_bs64_optsgd");

    auto const hundred = plan_file("json/hundred_jobs_parameterized.json5");
    BOOST_TEST_REQUIRE(message_of(hundred) == "ok");
    BOOST_TEST(hundred->jobs[6].name == "job_007");
    BOOST_TEST(hundred->jobs[6].command == "echo hello 7");

    auto const barrier = plan_file("json/multi_stage_barrier_pattern.json5");
    BOOST_TEST_REQUIRE(message_of(barrier) == "ok");
    BOOST_TEST(barrier->jobs[0].command
               == "python process_input.py --id 0 --output output/stage1_000.dat");
    BOOST_TEST(barrier->job_batches[0].jobs.size() == 1000u);
}

BOOST_AUTO_TEST_SUITE_END()
