// The on_jobs_ready schedule_nodes actions `torcrun submit` derives for a staged spec (jobs name
// slurm schedulers, no schedule_nodes action): one per named scheduler, over its jobs, and none
// when the spec schedules itself or no job names a scheduler.
#include "torcrun/cli/allocation_plan.hpp"
#include "torcrun/cli/stage_actions.hpp"

#include "unit/spec/spec_support.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(stage_actions)

namespace {

// Three stages, as Torc's slurm_staged_pipeline example; `actions` is added to the top level.
std::string staged(std::string const& actions = "")
{
    return "{name: 'w', jobs: [\n"
           "  {name: 'setup', command: 'true', scheduler: 'setup_s'},\n"
           "  {name: 'work_1', command: 'true', scheduler: 'work_s', depends_on: ['setup']},\n"
           "  {name: 'work_2', command: 'true', scheduler: 'work_s', depends_on: ['setup']},\n"
           "  {name: 'post', command: 'true', scheduler: 'post_s',\n"
           "   depends_on: ['work_1', 'work_2']},\n"
           "  {name: 'loose', command: 'true'}],\n"
           " slurm_schedulers: [\n"
           "  {name: 'unused', account: 'p', nodes: 1, walltime: '00:10:00'},\n"
           "  {name: 'post_s', account: 'p', nodes: 1, walltime: '00:10:00'},\n"
           "  {name: 'setup_s', account: 'p', nodes: 1, walltime: '00:20:00'},\n"
           "  {name: 'work_s', account: 'p', nodes: 1, walltime: '00:30:00'}],\n" +
           actions + "}";
}

core::spec::creation_plan plan_of(std::string const& text)
{
    auto plan = spec_test::plan(text, {"u", true, true}, "staged.json5");
    BOOST_TEST_REQUIRE(plan.has_value(), plan.error().message);
    return std::move(*plan);
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_on_jobs_ready_action_per_named_scheduler_over_its_jobs)
{
    auto plan = plan_of(staged());
    auto const derived = core::derive_stage_actions(plan);
    BOOST_TEST_REQUIRE(derived.size() == 3u);
    BOOST_TEST_REQUIRE(plan.actions.size() == 3u);
    // slurm_schedulers order; "unused" is named by no job and gets nothing
    std::string const names[] = {"post_s", "setup_s", "work_s"};
    std::string const jobs[] = {"post", "setup", "work_1,work_2"};
    for (std::size_t i = 0; i < 3; ++i) {
        auto const& a = plan.actions[i];
        BOOST_TEST(derived[i].index == i);
        BOOST_TEST(a.trigger_type == "on_jobs_ready");
        BOOST_TEST(a.action_type == "schedule_nodes");
        BOOST_TEST(spec_test::or_none(a.scheduler) == names[i]);
        BOOST_TEST(spec_test::or_none(a.scheduler_type) == "slurm");
        BOOST_TEST(a.num_allocations == 1);
        BOOST_TEST(!a.start_one_worker_per_node);
        BOOST_TEST(!a.persistent);
        BOOST_TEST_REQUIRE(a.job_names.has_value());
        BOOST_TEST(spec_test::join(*a.job_names) == jobs[i]);
        BOOST_TEST(a.required_triggers == static_cast<std::int64_t>(a.job_names->size()));
        BOOST_TEST(a.where.starts_with("staged.json5:"), a.where);
    }
    BOOST_TEST(derived[2].description ==
               "actions[2] derived: on_jobs_ready schedule_nodes, slurm_schedulers \"work_s\", "
               "over work_1, work_2");
    auto const body = core::spec::action_config(plan.actions[2], 7);
    BOOST_TEST(body.at("scheduler_id").as_int64() == 7);
    BOOST_TEST(body.at("num_allocations").as_int64() == 1);
}

// A labelled job waits for a worker of its label; the derived allocations start unlabelled
// workers, so labelled jobs count toward none, and a scheduler only they name gets none.
BOOST_AUTO_TEST_CASE(labelled_jobs_are_left_out_of_the_derived_allocations)
{
    auto text = staged();
    for (auto const* job : {"{name: 'work_2', command: 'true', scheduler: 'work_s',",
                            "{name: 'setup', command: 'true', scheduler: 'setup_s'"}) {
        auto const at = text.find(job);
        BOOST_TEST_REQUIRE(at != std::string::npos);
        text.insert(at + 1, "label: 'gpu', ");
    }
    auto plan = plan_of(text);
    auto const derived = core::derive_stage_actions(plan);
    BOOST_TEST_REQUIRE(derived.size() == 2u);
    BOOST_TEST(spec_test::or_none(plan.actions[0].scheduler) == "post_s");
    BOOST_TEST(spec_test::or_none(plan.actions[1].scheduler) == "work_s");
    BOOST_TEST((plan.actions[1].job_names == std::vector<std::string>{"work_1"}));
    BOOST_TEST(plan.actions[1].required_triggers == 1);
}

BOOST_AUTO_TEST_CASE(a_long_job_list_is_shortened_in_the_description)
{
    std::string jobs;
    for (int i = 1; i <= 5; ++i)
        jobs += "{name: 'j" + std::to_string(i) + "', command: 'true', scheduler: 's'},";
    auto plan = plan_of("{name: 'w', jobs: [" + jobs +
                        "], slurm_schedulers: [{name: 's', account: 'p', nodes: 1, "
                        "walltime: '00:10:00'}]}");
    auto const derived = core::derive_stage_actions(plan);
    BOOST_TEST_REQUIRE(derived.size() == 1u);
    BOOST_TEST(derived[0].description ==
               "actions[0] derived: on_jobs_ready schedule_nodes, slurm_schedulers \"s\", over "
               "j1, j2, j3, ... (5 jobs)");
    BOOST_TEST(plan.actions[0].job_names->size() == 5u);
}

BOOST_AUTO_TEST_CASE(the_derived_actions_plan_their_schedulers_scripts)
{
    auto plan = plan_of(staged());
    std::vector<std::size_t> indices;
    for (auto const& d : core::derive_stage_actions(plan)) indices.push_back(d.index);
    core::allocation_settings s;
    s.workflow_id = 9;
    s.output_dir = "/scratch/out";
    s.torcrun_path = "/opt/bin/torcrun";
    s.url = "http://head:8080/torc-service/v1";
    core::worker_config const config;
    // Only the given ones: the setup stage's, as submit does when only its jobs are ready.
    auto const setup = core::plan_allocations(plan, {1}, s, config);
    BOOST_TEST_REQUIRE(setup.has_value(), setup.error().message);
    BOOST_TEST_REQUIRE(setup->size() == 1u);
    BOOST_TEST((*setup)[0].scheduler == "setup_s");
    BOOST_TEST((*setup)[0].script_path == "/scratch/out/torcrun_wf9_setup_s_a1_1.sh");
    BOOST_TEST((*setup)[0].script_text.find("\n#SBATCH --time=00:20:00\n") != std::string::npos,
               (*setup)[0].script_text);
    auto const all = core::plan_allocations(plan, indices, s, config);
    BOOST_TEST_REQUIRE(all.has_value(), all.error().message);
    BOOST_TEST(all->size() == 3u);
    // on_workflow_start only: the derived actions are not among them
    BOOST_TEST(core::workflow_start_actions(plan).empty());
}

BOOST_AUTO_TEST_CASE(nothing_derived_when_the_spec_schedules_or_no_job_names_a_scheduler)
{
    auto scheduling = plan_of(staged(
        "actions: [{trigger_type: 'on_workflow_start', action_type: 'schedule_nodes',\n"
        "  scheduler: 'setup_s', scheduler_type: 'slurm'}]"));
    BOOST_TEST(core::derive_stage_actions(scheduling).empty());
    BOOST_TEST(scheduling.actions.size() == 1u);

    auto unnamed = plan_of("{name: 'w', jobs: [{name: 'a', command: 'true'}],\n"
                           " slurm_schedulers: [{name: 's', account: 'p', nodes: 1,\n"
                           "   walltime: '00:10:00'}]}");
    BOOST_TEST(core::derive_stage_actions(unnamed).empty());
    BOOST_TEST(unnamed.actions.empty());
}

BOOST_AUTO_TEST_CASE(other_actions_do_not_stop_the_derivation)
{
    auto plan = plan_of(staged(
        "actions: [{trigger_type: 'on_workflow_complete', action_type: 'run_commands',\n"
        "  commands: ['echo done']}]"));
    auto const derived = core::derive_stage_actions(plan);
    BOOST_TEST_REQUIRE(derived.size() == 3u);
    BOOST_TEST(derived[0].index == 1u);  // after the spec's own
    BOOST_TEST(plan.actions.size() == 4u);
    BOOST_TEST(plan.actions[0].action_type == "run_commands");
}

BOOST_AUTO_TEST_CASE(schedulable_actions_are_the_start_ones_and_the_slurm_job_gated_ones)
{
    auto plan = plan_of(staged(
        "actions: [\n"
        " {trigger_type: 'on_workflow_complete', action_type: 'run_commands', commands: ['x']},\n"
        " {trigger_type: 'on_jobs_ready', action_type: 'schedule_nodes', jobs: ['post'],\n"
        "  scheduler: 'post_s', scheduler_type: 'local'},\n"
        " {trigger_type: 'on_jobs_complete', action_type: 'schedule_nodes', jobs: ['setup'],\n"
        "  scheduler: 'work_s', scheduler_type: 'slurm'},\n"
        " {trigger_type: 'on_workflow_start', action_type: 'schedule_nodes',\n"
        "  scheduler: 'setup_s', scheduler_type: 'slurm'}]"));
    auto const a = core::schedulable_actions(plan);
    BOOST_TEST(a == (std::vector<std::size_t>{2, 3}), boost::test_tools::per_element());
    BOOST_TEST(core::workflow_start_actions(plan) == (std::vector<std::size_t>{3}),
               boost::test_tools::per_element());
    // the spec schedules itself: nothing derived
    BOOST_TEST(core::derive_stage_actions(plan).empty());
}

BOOST_AUTO_TEST_CASE(a_derived_actions_bad_scheduler_is_refused_at_the_scheduler)
{
    auto text = staged();
    text.replace(text.find("'00:30:00'"), 10, "'1h'");  // work_s
    auto plan = plan_of(text);
    core::derive_stage_actions(plan);
    core::allocation_settings s;
    s.output_dir = "/scratch/out";
    s.torcrun_path = "/opt/bin/torcrun";
    core::worker_config const config;
    auto const refused = core::plan_allocations(plan, core::schedulable_actions(plan), s, config);
    BOOST_TEST_REQUIRE(!refused.has_value());
    auto const& m = refused.error().message;
    BOOST_TEST(m.starts_with("staged.json5:12:3: "), m);  // work_s's entry
    BOOST_TEST(m.find("actions[2] (schedule_nodes, slurm_schedulers \"work_s\"): --time: \"1h\" "
                      "is not a Slurm time") != std::string::npos,
               m);
}

BOOST_AUTO_TEST_SUITE_END()
