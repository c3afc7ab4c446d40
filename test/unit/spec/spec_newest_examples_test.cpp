// Acceptance: Torc's newest example specs for the features torcrun took from newer Torc
// (test/data/torc-newest, see its README): workflow `variables`, native parameter lists,
// `parameters_file` tables (CSV, JSON, a shared workflow table) and a multi-node Slurm test
// spec of single-node jobs. Each yields the jobs, commands, edges and records Torc's docs say
// it makes. Tables are read through a loader rooted at the copy of Torc's repository layout, as
// Torc reads them from the repository root.
#include "spec_support.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <ostream>
#include <sstream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

std::string const newest_dir = TORCRUN_NEWEST_DIR;

result<std::string> file_text(std::string const& relative)
{
    std::ifstream in(newest_dir + "/" + relative, std::ios::binary);
    if (!in) return torcrun::core::error{relative + ": cannot read: no such test file"};
    std::ostringstream text;
    text << in.rdbuf();
    return result<std::string>(boost::system::in_place_value, text.str());
}

result<spec::creation_plan> plan_file(std::string const& relative)
{
    auto text = file_text(relative);
    BOOST_TEST_REQUIRE(static_cast<bool>(text), "cannot open " << relative);
    auto parsed = spec::read_spec(*text, relative, file_text);
    if (!parsed) return parsed.error();
    return spec::plan_spec(*parsed, {"tester", true, false});
}

struct example_case {
    std::string file;
    std::size_t jobs;
    std::size_t explicit_edges;
    std::size_t implied_edges;
    std::size_t files;
    std::size_t user_data;
    std::string first_jobs;  // the first three names, joined by ","
    std::string last_job;
    std::string first_command;
};
std::ostream& operator<<(std::ostream& os, example_case const& c) { return os << c.file; }

std::string const prepare =
    "python prepare.py --in /scratch/proj42/raw --out /scratch/proj42/clean";
std::string const csv_first = "echo \"training resnet on cifar10 lr=0.001 batch_size=32\"";

// variables_demo: train_01..04 wait for prepare_inputs (4), aggregate for them by regex (4).
// shared table: eval_* wait for train_* (4), aggregate for eval_* by regex (4).
// hyperparameter_sweep: 18 train -> 2 prepare jobs, 18 aggregate -> train = 54 explicit; the
//   same 54 pairs implied through train_data, val_data and the 18 metrics files.
// fan_in_with_regexes: no explicit edges; implied: 24 simulate -> fetch_config (config), each
//   regional summary -> its 6 simulations by regex (24), global_report -> 4 summaries = 52.
// zip_parameter_mode: 3 train -> setup, 3 evaluate -> train, aggregate -> 3 evaluate = 9; the
//   3 evaluate -> train pairs are also implied through the model files.
std::vector<example_case> const examples{
    {"examples/yaml/variables_demo.yaml", 6, 8, 0, 1, 0, "prepare_inputs,train_01,train_02",
     "aggregate", prepare},
    {"examples/json/variables_demo.json", 6, 8, 0, 1, 0, "prepare_inputs,train_01,train_02",
     "aggregate", prepare},
    {"examples/json/variables_demo.json5", 6, 8, 0, 1, 0, "prepare_inputs,train_01,train_02",
     "aggregate", prepare},
    {"examples/yaml/parameterized_from_csv.yaml", 4, 0, 0, 4, 0,
     "train_resnet_cifar10_bs32,train_resnet_cifar10_bs64,train_vit_imagenet_bs16",
     "train_vit_imagenet_bs32", csv_first},
    {"examples/yaml/parameterized_from_json.yaml", 4, 0, 0, 0, 0,
     "train_resnet_cifar10_bs32,train_resnet_cifar10_bs64,train_vit_imagenet_bs16",
     "train_vit_imagenet_bs32", csv_first},
    {"examples/yaml/parameterized_shared_table.yaml", 9, 8, 0, 4, 0,
     "train_resnet_cifar10_bs32,train_resnet_cifar10_bs64,train_vit_imagenet_bs16", "aggregate",
     "echo \"train resnet on cifar10 lr=0.001 bs=32\""},
    {"examples/yaml/parameterized_user_data.yaml", 3, 0, 0, 0, 3,
     "train_baseline,train_ablation,train_full", "train_full",
     "python train.py \\\n  --config-name config_baseline \\\n  --output-dir /results/baseline\n"},
    {"examples/yaml/hyperparameter_sweep.yaml", 38, 54, 54, 38, 0,
     "prepare_train_data,prepare_val_data,train_lr0.0001_bs16_optadam",
     "aggregate_results_lr0.0100_bs64_optsgd",
     "python scripts/prepare_data.py --split=train --output=/data/train.pkl"},
    {"examples/yaml/fan_in_with_regexes.yaml", 30, 0, 52, 30, 0,
     "fetch_config,simulate_north_000,simulate_north_001", "global_report",
     "#!/bin/bash\nmkdir -p output\necho '{\"timesteps\": 1000, \"dt\": 0.01, \"model\": "
     "\"stochastic_v2\"}' > output/config.json\necho \"Config written\"\n"},
    {"examples/yaml/zip_parameter_mode.yaml", 8, 9, 3, 6, 0,
     "setup_environment,train_cifar10_resnet,train_mnist_cnn", "aggregate_results",
     "echo \"Setting up training environment\"\nmkdir -p /models /results\n"},
    {"examples/json/zip_parameter_mode.json5", 6, 3, 3, 3, 0,
     "train_cifar10_resnet,train_mnist_cnn,train_imagenet_transformer",
     "evaluate_imagenet_transformer", "python train.py --dataset=cifar10 --model=resnet"},
    {"slurm-tests/workflows/multi_node_parallel.yaml", 40, 0, 0, 0, 0,
     "stress_1,stress_2,stress_3", "stress_40",
     "bash -c 'echo \"Running on $(hostname)\"; stress-ng --cpu 5 --timeout 30 "
     "--metrics-brief'"},
};

// The job of `p` named `name`, or a failed test.
spec::expanded_job const& job_named(spec::creation_plan const& p, std::string const& name)
{
    for (auto const& j : p.jobs)
        if (j.name == name) return j;
    BOOST_FAIL("no job " << name);
    return p.jobs.front();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_newest_examples)

BOOST_DATA_TEST_CASE(each_example_makes_what_torc_makes, bdata::make(examples), c)
{
    auto const p = plan_file(c.file);
    BOOST_TEST_REQUIRE(message_of(p) == "ok");
    BOOST_TEST(p->jobs.size() == c.jobs);
    BOOST_TEST(p->explicit_edges.size() == c.explicit_edges);
    BOOST_TEST(p->implied_edges.size() == c.implied_edges);
    BOOST_TEST(p->files.size() == c.files);
    BOOST_TEST(p->user_data.size() == c.user_data);
    auto const names = job_names(p->jobs);
    BOOST_TEST(join(strings(names.begin(), names.begin() + 3)) == c.first_jobs);
    BOOST_TEST(names.back() == c.last_job);
    BOOST_TEST(p->jobs.front().command == c.first_command);
    for (auto const& j : p->jobs) BOOST_TEST(j.copies == 1u);  // newer Torc: no repeated name
    for (auto const& w : p->warnings)  // newer Torc substitutes as torcrun does
        BOOST_TEST(w.find("Torc 0.10 would") == std::string::npos, w);
}

BOOST_AUTO_TEST_CASE(variables_reach_every_string)
{
    for (std::string const file : {"examples/yaml/variables_demo.yaml",
                                   "examples/json/variables_demo.json",
                                   "examples/json/variables_demo.json5"}) {
        BOOST_TEST_CONTEXT(file)
        {
            auto const p = plan_file(file);
            BOOST_TEST_REQUIRE(message_of(p) == "ok");
            BOOST_TEST(job_named(*p, "train_03").command ==
                       "python train.py --shard 3 --img pytorch:2.4 --in /scratch/proj42/clean "
                       "--out /shared/proj42/results/run_03.pt");
            BOOST_TEST(job_named(*p, "aggregate").command ==
                       "python aggregate.py --in /shared/proj42/results --tag proj42");
            BOOST_TEST(join(job_named(*p, "aggregate").depends_on) ==
                       "train_01,train_02,train_03,train_04");
            BOOST_TEST(p->files[0].path == "/scratch/proj42/clean/all.parquet");
            BOOST_TEST(boost::json::serialize(*p->workflow.env) ==
                       R"({"PROJECT":"proj42","IMAGE":"pytorch:2.4"})");
            BOOST_TEST_REQUIRE(p->slurm_schedulers.size() == 2u);
            BOOST_TEST(p->slurm_schedulers[0].account == "my_hpc_account");
            BOOST_TEST(p->slurm_schedulers[1].account == "my_hpc_account");
        }
    }
}

BOOST_AUTO_TEST_CASE(csv_and_json_tables_give_the_same_jobs)
{
    auto const csv = plan_file("examples/yaml/parameterized_from_csv.yaml");
    auto const json = plan_file("examples/yaml/parameterized_from_json.yaml");
    BOOST_TEST_REQUIRE(message_of(csv) == "ok");
    BOOST_TEST_REQUIRE(message_of(json) == "ok");
    for (std::size_t i = 0; i < 4; ++i) {
        BOOST_TEST(csv->jobs[i].name == json->jobs[i].name);
        BOOST_TEST(csv->jobs[i].command == json->jobs[i].command);
    }
    BOOST_TEST(csv->jobs[3].command == "echo \"training vit on imagenet lr=0.0001 batch_size=32\"");
    BOOST_TEST(csv->files[1].path == "train_resnet_cifar10_bs64.dat");
}

BOOST_AUTO_TEST_CASE(the_shared_table_feeds_only_the_entries_that_opt_in)
{
    auto const p = plan_file("examples/yaml/parameterized_shared_table.yaml");
    BOOST_TEST_REQUIRE(message_of(p) == "ok");
    BOOST_TEST(join(job_named(*p, "eval_vit_imagenet_bs16").depends_on) ==
               "train_vit_imagenet_bs16");
    BOOST_TEST(join(job_named(*p, "aggregate").depends_on) ==
               "eval_resnet_cifar10_bs32,eval_resnet_cifar10_bs64,eval_vit_imagenet_bs16,"
               "eval_vit_imagenet_bs32");
    BOOST_TEST(join(job_named(*p, "train_resnet_cifar10_bs64").output_files) ==
               "model_resnet_cifar10_bs64");
    BOOST_TEST(p->files[2].path == "models/vit_imagenet_bs16.pt");
}

BOOST_AUTO_TEST_CASE(native_lists_format_as_torc_formats_them)
{
    auto const p = plan_file("examples/yaml/hyperparameter_sweep.yaml");
    BOOST_TEST_REQUIRE(message_of(p) == "ok");
    auto const& train = job_named(*p, "train_lr0.0010_bs32_optsgd");
    BOOST_TEST(train.command.find("--learning-rate=0.001 \\\n") != std::string::npos);
    BOOST_TEST(join(train.output_files) ==
               "model_lr0.0010_bs32_optsgd,metrics_lr0.0010_bs32_optsgd");
    auto const u = plan_file("examples/yaml/parameterized_user_data.yaml");
    BOOST_TEST_REQUIRE(message_of(u) == "ok");
    BOOST_TEST(boost::json::serialize(*u->user_data[1].data) ==  // Boost.JSON writes 1E-3
               R"({"experiment":"ablation","learning_rate":1E-3,)"
               R"("output_dir":"/results/ablation"})");
}

BOOST_AUTO_TEST_CASE(a_multi_node_allocation_of_single_node_jobs_is_accepted)
{
    auto const p = plan_file("slurm-tests/workflows/multi_node_parallel.yaml");
    BOOST_TEST_REQUIRE(message_of(p) == "ok");
    BOOST_TEST(p->slurm_schedulers[0].nodes == 2);
    BOOST_TEST(p->actions.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
