// The allocations of a spec's on_workflow_start schedule_nodes actions: how many, from which
// scheduler options (and slurm_defaults under them), slurm mode or one worker per node, the
// refusals (each naming the action and the scheduler), and the loopback-URL warning.
#include "torcrun/cli/allocation_plan.hpp"

#include "unit/spec/spec_support.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(allocation_plan)

namespace {

core::allocation_settings settings()
{
    core::allocation_settings s;
    s.workflow_id = 5;
    s.output_dir = "/scratch/out";
    s.torcrun_path = "/opt/bin/torcrun";
    s.url = "http://head:8080/torc-service/v1";
    return s;
}

// A spec with one scheduler "gpu" and the given action fields (JSON5 text) and extra top keys.
std::string spec_with(std::string const& action, std::string const& top = "")
{
    return "{name: 'w', jobs: [{name: 'a', command: 'true'}],\n"
           " slurm_schedulers: [{name: 'gpu', account: 'proj', nodes: 2, walltime: '00:30:00',\n"
           "   gres: 'gpu:4', mem: '16G', partition: 'p', qos: 'high', tmp: '10G',\n"
           "   extra: '--constraint=a100'}],\n" +
           top + " actions: [{trigger_type: 'on_workflow_start', action_type: 'schedule_nodes',\n"
           "   scheduler: 'gpu', scheduler_type: 'slurm', " + action + "}]}";
}

core::result<std::vector<core::planned_allocation>> allocations(std::string const& text)
{
    auto plan = spec_test::plan(text, {"u", true, true});
    if (!plan) return plan.error();
    static core::worker_config const config;
    return core::plan_allocations(*plan, settings(), config);
}

bool has_line(std::string const& text, std::string const& line)
{
    return text.find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(num_allocations_scripts_with_the_scheduler_options)
{
    auto const a = allocations(spec_with("num_allocations: 3"));
    BOOST_TEST_REQUIRE(a.has_value(), a.error().message);
    BOOST_TEST_REQUIRE(a->size() == 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        auto const& x = (*a)[i];
        auto const name = "torcrun_wf5_gpu_a0_" + std::to_string(i + 1);
        BOOST_TEST(x.number == i + 1);
        BOOST_TEST(x.scheduler == "gpu");
        BOOST_TEST(x.script_path == "/scratch/out/" + name + ".sh");
        BOOST_TEST(has_line(x.script_text, "#SBATCH --job-name=" + name));
    }
    auto const& t = (*a)[0].script_text;
    for (auto const* line :
         {"#SBATCH --account=proj", "#SBATCH --partition=p", "#SBATCH --qos=high",
          "#SBATCH --nodes=2", "#SBATCH --time=00:30:00", "#SBATCH --gres=gpu:4",
          "#SBATCH --mem=16G", "#SBATCH --tmp=10G", "#SBATCH --constraint=a100",
          "#SBATCH --exclusive"}) {
        BOOST_TEST(has_line(t, line), line);
    }
    // one slurm-mode worker, which serves workflow 5 at the given URL
    BOOST_TEST(t.find("exec /opt/bin/torcrun worker 5 --mode slurm --url "
                      "http://head:8080/torc-service/v1 --output-dir /scratch/out") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(one_direct_worker_per_node)
{
    auto const a = allocations(spec_with("start_one_worker_per_node: true"));
    BOOST_TEST_REQUIRE(a.has_value(), a.error().message);
    BOOST_TEST_REQUIRE(a->size() == 1u);
    auto const& t = (*a)[0].script_text;
    BOOST_TEST(t.find("srun --ntasks-per-node=1 --overlap") != std::string::npos);
    BOOST_TEST(t.find("worker 5 --mode direct") != std::string::npos);
    BOOST_TEST(t.find("--mode slurm") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(slurm_defaults_fill_in_under_the_scheduler)
{
    auto const a = allocations(spec_with(
        "", " slurm_defaults: {account: 'other', qos: 'low', constraint: 'x', "
            "exclude_nodes: 'n9', gpus_per_task: 1},\n"));
    BOOST_TEST_REQUIRE(a.has_value(), a.error().message);
    auto const& t = (*a)[0].script_text;
    BOOST_TEST(has_line(t, "#SBATCH --account=proj"));  // the scheduler wins
    BOOST_TEST(has_line(t, "#SBATCH --qos=high"));
    BOOST_TEST(!has_line(t, "#SBATCH --qos=low"));
    BOOST_TEST(has_line(t, "#SBATCH --constraint=x"));
    BOOST_TEST(has_line(t, "#SBATCH --exclude-nodes=n9"));
    BOOST_TEST(has_line(t, "#SBATCH --gpus-per-task=1"));
}

BOOST_AUTO_TEST_CASE(other_triggers_and_run_commands_schedule_nothing)
{
    auto const text =
        "{name: 'w', jobs: [{name: 'a', command: 'true'}],\n"
        " slurm_schedulers: [{name: 'gpu', account: 'proj'}],\n"
        " actions: [{trigger_type: 'on_workflow_start', action_type: 'run_commands',"
        " commands: ['true']},\n"
        "  {trigger_type: 'on_jobs_ready', action_type: 'schedule_nodes', jobs: ['a'],"
        " scheduler: 'gpu', scheduler_type: 'slurm'}]}";
    auto const a = allocations(text);
    BOOST_TEST_REQUIRE(a.has_value(), a.error().message);
    BOOST_TEST(a->empty());
}

BOOST_AUTO_TEST_CASE(refusals_name_the_action_and_the_scheduler)
{
    auto const bad_time = allocations(
        spec_with("").replace(spec_with("").find("'00:30:00'"), 10, "'1h'"));
    BOOST_TEST_REQUIRE(!bad_time.has_value());
    BOOST_TEST(bad_time.error().message.find(
                   "actions[0] (schedule_nodes, slurm_schedulers \"gpu\"): --time: \"1h\" is not "
                   "a Slurm time") != std::string::npos,
               bad_time.error().message);
    BOOST_TEST(bad_time.error().message.starts_with("t.json5:"), bad_time.error().message);

    // The spec reader refuses 0 already; a plan made otherwise is refused here too.
    auto zero_plan = spec_test::plan(spec_with(""), {"u", true, true});
    BOOST_TEST_REQUIRE(zero_plan.has_value());
    zero_plan->actions[0].num_allocations = 0;
    static core::worker_config const config;
    auto const zero = core::plan_allocations(*zero_plan, settings(), config);
    BOOST_TEST_REQUIRE(!zero.has_value());
    BOOST_TEST(zero.error().message.find("actions[0] (schedule_nodes, slurm_schedulers \"gpu\"): "
                                         "num_allocations 0 must be at least 1") !=
                   std::string::npos,
               zero.error().message);

    auto local_plan = spec_test::plan(spec_with(""), {"u", true, true});
    BOOST_TEST_REQUIRE(local_plan.has_value());
    local_plan->actions[0].scheduler_type = "local";
    auto const local = core::plan_allocations(*local_plan, settings(), config);
    BOOST_TEST_REQUIRE(!local.has_value());
    BOOST_TEST(local.error().message.find("actions[0] (schedule_nodes, slurm_schedulers \"gpu\"): "
                                          "scheduler_type \"local\": torcrun submit schedules "
                                          "only slurm allocations") != std::string::npos,
               local.error().message);

    auto const owned = allocations(spec_with("", " slurm_defaults: {output: '/x'},\n"));
    BOOST_TEST_REQUIRE(!owned.has_value());
    BOOST_TEST(owned.error().message.find("slurm_defaults: \"output\" is set by the script "
                                          "itself") != std::string::npos,
               owned.error().message);

    auto const spaced = allocations(
        spec_with("").replace(spec_with("").find("'gpu:4'"), 7, "'gpu 4'"));
    BOOST_TEST_REQUIRE(!spaced.has_value());
    BOOST_TEST(spaced.error().message.find("--gres: \"gpu 4\" cannot go on an #SBATCH line") !=
                   std::string::npos,
               spaced.error().message);
}

BOOST_AUTO_TEST_CASE(loopback_urls_are_warned_about)
{
    for (auto const* url : {"http://127.0.0.1:8080/torc-service/v1", "http://localhost/x",
                            "http://[::1]:9/torc-service/v1", "http://127.1.2.3:1"}) {
        auto const w = core::unreachable_url_warning(url);
        BOOST_TEST_REQUIRE(w.has_value(), url);
        BOOST_TEST(w->find("loopback") != std::string::npos);
    }
    for (auto const* url : {"http://head:8080/torc-service/v1", "http://10.0.0.1/x",
                            "http://localhost.example.org/x"}) {
        BOOST_TEST(!core::unreachable_url_warning(url).has_value(), url);
    }
}

BOOST_AUTO_TEST_SUITE_END()
