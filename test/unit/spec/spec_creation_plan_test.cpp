// The creation plan (docs/TORC-COMPATIBILITY.md §4.9): the workflow record with Torc's client
// defaults, the JSON texts Torc stores, bulk_jobs batches by topological level in chunks of 1000,
// actions with their job selection and trigger counts (§4.3), and the scheduler checks (§4.2,
// §4.8). The case names keep the section numbers the cases were first written against: their
// §9.2 is §4.2's scheduler node check, and §17 item N is §4.10 item N.
#include "spec_support.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <functional>
#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

using plan_getter = std::function<std::string(spec::creation_plan const&)>;

struct plan_case {
    std::string label;
    std::string text;
    spec::plan_options options;
    plan_getter get;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, plan_case const& c)
{
    return os << c.label;
}

// Named rather than written inline: GCC 12 at -O3 reports a false -Wmaybe-uninitialized for
// options built as temporaries inside the static tables.
spec::plan_options const alice{"alice", true, false};
spec::plan_options const monitoring_off{"a", false, false};
spec::plan_options const skip_checks{"a", true, true};

std::string workflow_line(spec::creation_plan const& p)
{
    auto const& w = p.workflow;
    return join({w.name, w.user, or_none(w.description),
                 std::to_string(w.compute_node_expiration_buffer_seconds),
                 std::to_string(w.compute_node_wait_for_new_jobs_seconds),
                 w.compute_node_ignore_workflow_completion ? "true" : "false",
                 std::to_string(w.compute_node_wait_for_healthy_database_minutes),
                 std::to_string(w.compute_node_min_time_for_new_jobs_seconds),
                 or_none(w.jobs_sort_method), or_none(w.resource_monitor_config),
                 or_none(w.slurm_defaults), w.use_pending_failed ? "true" : "false"},
                "|");
}

std::string warnings_of(spec::creation_plan const& p)
{
    return join(p.warnings, "\n");
}

std::string batches_of(spec::creation_plan const& p)
{
    strings out;
    for (auto const& b : p.job_batches) {
        std::string const first = p.jobs[b.jobs.front()].name;
        std::string const last = p.jobs[b.jobs.back()].name;
        out.push_back("L" + std::to_string(b.level) + ":" + std::to_string(b.jobs.size()) + ":"
                      + first + (b.jobs.size() > 1 ? ".." + last : ""));
    }
    return join(out, " ");
}

std::string actions_of(spec::creation_plan const& p)
{
    strings out;
    for (auto const& a : p.actions) {
        out.push_back(a.trigger_type + "/" + a.action_type + "["
                      + (a.job_names ? join(*a.job_names) : "null") + "]x"
                      + std::to_string(a.required_triggers) + (a.persistent ? " persistent" : "")
                      + " " + boost::json::serialize(spec::action_config(a, 42)));
    }
    return join(out, " ; ");
}

std::vector<plan_case> const workflow_cases{
    {"Torc's client defaults; $USER when the spec has no user", "{name:'w', jobs:[]}", alice,
     workflow_line,
     "w|alice|none|60|90|false|20|300|none|{\"enabled\":true,\"granularity\":\"summary\","
     "\"sample_interval_seconds\":5,\"generate_plots\":false}|none|false"},
    {"every workflow field set",
     "{name:'w', user:'u', description:'d', compute_node_expiration_buffer_seconds:1, "
     "compute_node_wait_for_new_jobs_seconds:2, compute_node_ignore_workflow_completion:true, "
     "compute_node_wait_for_healthy_database_minutes:3, jobs_sort_method:'gpus_memory_runtime', "
     "resource_monitor:{enabled:true, granularity:'time_series', sample_interval_seconds:2}, "
     "slurm_defaults:{nice:5, account:'a', 'mail-type':'END'}, use_pending_failed:true, jobs:[]}",
     alice, workflow_line,
     "w|alice|d|1|2|true|3|300|gpus_memory_runtime|{\"enabled\":true,\"granularity\":\"time_series\","
     "\"sample_interval_seconds\":2,\"generate_plots\":false}|{\"account\":\"a\",\"mail-type\":"
     "\"END\",\"nice\":5}|true"},
    {"the submitting user owns the workflow, the spec's user is warned about (§17 item 8)",
     "{name:'w', user:'bob', jobs:[]}", alice, warnings_of,
     "workflow: the spec's user \"bob\" is not stored: the workflow belongs to the submitting "
     "user \"alice\", as in Torc"},
    {"the spec naming the submitting user is no warning", "{name:'w', user:'alice', jobs:[]}",
     alice, warnings_of, ""},
    {"no monitor with resource monitoring off", "{name:'w', jobs:[]}", monitoring_off,
     [](auto const& p) { return or_none(p.workflow.resource_monitor_config); }, "none"},
    {"the spec's monitor even with resource monitoring off",
     "{name:'w', jobs:[], resource_monitor:{}}", monitoring_off,
     [](auto const& p) { return or_none(p.workflow.resource_monitor_config); },
     "{\"enabled\":false,\"granularity\":\"summary\",\"sample_interval_seconds\":5,"
     "\"generate_plots\":false}"},
    {"failure-handler rules as Torc stores them",
     "{name:'w', jobs:[], failure_handlers:[{name:'h', rules:[{exit_codes:[12]}, "
     "{match_all_exit_codes:true, max_retries:1}, {exit_codes:[10, 11], recovery_script:'r.sh', "
     "match_all_exit_codes:false, max_retries:2}]}, {name:'none', rules:[]}]}",
     alice,
     [](auto const& p) {
         return p.failure_handlers[0].name + "=" + p.failure_handlers[0].rules + " "
                + p.failure_handlers[1].name + "=" + p.failure_handlers[1].rules;
     },
     "h=[{\"exit_codes\":[12],\"max_retries\":3},{\"match_all_exit_codes\":true,\"max_retries\":1},"
     "{\"exit_codes\":[10,11],\"recovery_script\":\"r.sh\",\"max_retries\":2}] none=[]"},
    {"records in spec order",
     "{name:'w', jobs:[], resource_requirements:[{name:'b', num_cpus:1, memory:'1g'}, {name:'a', "
     "num_cpus:1, memory:'1g'}], slurm_schedulers:[{name:'y', account:'x'}, {name:'x', "
     "account:'x'}], files:[{name:'f2', path:'p'}, {name:'f1', path:'p'}], user_data:[{name:'u2'}, "
     "{name:'u1'}]}",
     alice,
     [](auto const& p) {
         return p.resource_requirements[0].name + p.resource_requirements[1].name
                + p.slurm_schedulers[0].name + p.slurm_schedulers[1].name + p.files[0].name
                + p.files[1].name + p.user_data[0].name + p.user_data[1].name;
     },
     "bayxf2f1u2u1"},
};

std::vector<plan_case> const batch_cases{
    {"one level", "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b', command:'c'}]}", alice,
     batches_of, "L0:2:a..b"},
    {"a job declared before its dependency goes in a later batch",
     "{name:'w', jobs:[{name:'late', command:'c', depends_on:['early']}, {name:'mid', "
     "command:'c'}, "
     "{name:'early', command:'c'}]}",
     alice, batches_of, "L0:2:mid..early L1:1:late"},
    {"the level is one above the highest dependency",
     "{name:'w', jobs:[{name:'d', command:'c', depends_on:['a', 'c']}, {name:'a', command:'c'}, "
     "{name:'b', command:'c', depends_on:['a']}, {name:'c', command:'c', depends_on:['b']}]}",
     alice, batches_of, "L0:1:a L1:1:b L2:1:c L3:1:d"},
    {"implied edges do not make levels (the diamond)",
     "{name:'w', files:[{name:'f', path:'p'}], jobs:[{name:'r', command:'c', input_files:['f']}, "
     "{name:'w', command:'c', output_files:['f']}]}",
     alice, batches_of, "L0:2:r..w"},
    {"a level above 1000 jobs is sent in chunks of 1000",
     "{name:'w', jobs:[{name:'j{i:04d}', command:'c', parameters:{i:'1:2500'}}, {name:'all', "
     "command:'c', depends_on_regexes:['^j']}]}",
     alice, batches_of, "L0:1000:j0001..j1000 L0:1000:j1001..j2000 L0:500:j2001..j2500 L1:1:all"},
    {"no jobs, no batches", "{name:'w', jobs:[]}", alice, batches_of, ""},
    {"explicit and implied edges",
     "{name:'w', files:[{name:'f', path:'p'}], jobs:[{name:'a', command:'c', output_files:['f']}, "
     "{name:'b', command:'c', input_files:['f'], depends_on:['a']}, {name:'c', command:'c', "
     "input_files:['f']}]}",
     alice,
     [](auto const& p) {
         return join(describe(p.explicit_edges)) + " | " + join(describe(p.implied_edges));
     },
     "b>a | b>a,c>a"},
    {"expansions merged into one job keep one edge per blocker",
     "{name:'w', jobs:[{name:'a', command:'c'}, {name:'b', command:'c', parameters:{i:'1:3'}, "
     "depends_on:['a']}, {name:'c', command:'c', depends_on:['b', 'a']}]}",
     alice,
     [](auto const& p) {
         return join(describe(p.explicit_edges)) + " | " + join(describe(p.implied_edges));
     },
     "b>a,c>b,c>a | "},
};

std::string const action_jobs =
    "jobs:[{name:'prep', command:'c'}, {name:'train_{i}', command:'c', parameters:{i:'1:3'}}, "
    "{name:'eval', command:'c'}], slurm_schedulers:[{name:'gpu', account:'a', nodes:2}]";

std::string with_actions(std::string const& actions)
{
    return "{name:'w', " + action_jobs + ", actions:[" + actions + "]}";
}

std::vector<plan_case> const action_cases{
    {"workflow triggers without jobs: job_ids null, one trigger",
     with_actions("{trigger_type:'on_workflow_start', action_type:'run_commands', commands:['a', "
                  "'b']}, {trigger_type:'on_workflow_complete', action_type:'run_commands', "
                  "commands:['c'], persistent:true}"),
     alice, actions_of,
     "on_workflow_start/run_commands[null]x1 {\"commands\":[\"a\",\"b\"]} ; "
     "on_workflow_complete/run_commands[null]x1 persistent {\"commands\":[\"c\"]}"},
    {"on_jobs_ready counts the selected jobs; names first, then new regex matches",
     with_actions("{trigger_type:'on_jobs_ready', action_type:'schedule_nodes', jobs:['eval', "
                  "'train_2'], job_name_regexes:['train_', 'x'], scheduler:'gpu', "
                  "scheduler_type:'slurm', num_allocations:2, start_one_worker_per_node:true, "
                  "max_parallel_jobs:4}"),
     alice, actions_of,
     "on_jobs_ready/schedule_nodes[eval,train_2,train_1,train_3]x4 {\"scheduler_type\":\"slurm\","
     "\"scheduler_id\":42,\"num_allocations\":2,\"start_one_worker_per_node\":true,"
     "\"max_parallel_jobs\":4}"},
    {"on_jobs_complete with a regex",
     with_actions("{trigger_type:'on_jobs_complete', action_type:'run_commands', "
                  "job_name_regexes:['^train_[12]$'], commands:['x']}"),
     alice, actions_of, "on_jobs_complete/run_commands[train_1,train_2]x2 {\"commands\":[\"x\"]}"},
    {"other triggers with jobs still need one trigger",
     with_actions("{trigger_type:'on_workflow_start', action_type:'schedule_nodes', jobs:['prep', "
                  "'eval'], scheduler:'gpu', scheduler_type:'slurm', "
                  "start_one_worker_per_node:true}"),
     alice, actions_of,
     "on_workflow_start/schedule_nodes[prep,eval]x1 {\"scheduler_type\":\"slurm\","
     "\"scheduler_id\":42,\"num_allocations\":1,\"start_one_worker_per_node\":true}"},
    {"a scheduler type other than slurm sends scheduler_id 0",
     with_actions("{trigger_type:'on_worker_start', action_type:'schedule_nodes', scheduler:'x', "
                  "scheduler_type:'local'}"),
     alice, actions_of,
     "on_worker_start/schedule_nodes[null]x1 {\"scheduler_type\":\"local\",\"scheduler_id\":0,"
     "\"num_allocations\":1,\"start_one_worker_per_node\":false}"},
    {"a job listed twice is counted once, with a warning",
     with_actions("{trigger_type:'on_jobs_ready', action_type:'run_commands', jobs:['prep', "
                  "'prep'], commands:['x']}"),
     alice, [](auto const& p) { return actions_of(p) + " | " + warnings_of(p); },
     "on_jobs_ready/run_commands[prep]x1 {\"commands\":[\"x\"]} | t.json5:1:194: actions[0]: jobs "
     "lists \"prep\" twice; torcrun counts it once (Torc 0.10 waits for it twice)"},
};

struct error_case {
    std::string label;
    std::string text;
    spec::plan_options options;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << c.label;
}

std::string const node_check =
    "{name:'w', resource_requirements:[{name:'one', num_cpus:1, memory:'1g'}, {name:'two', "
    "num_cpus:1, memory:'1g', num_nodes:2}], slurm_schedulers:[{name:'big', account:'a', "
    "nodes:2}], jobs:[{name:'a', command:'c', scheduler:'big', resource_requirements:'one'}, "
    "{name:'b', command:'c', scheduler:'big'}";
std::string const node_check4 =
    std::string(node_check).replace(node_check.find("'a', nodes:2"), 12, "'a', nodes:4");

std::vector<error_case> const error_cases{
    {"an action naming an unknown job",
     with_actions("{trigger_type:'on_jobs_ready', action_type:'run_commands', jobs:['train_4'], "
                  "commands:['x']}"),
     alice, "t.json5:1:194: actions[0]: jobs \"train_4\" names no job"},
    {"an action selecting no job",
     with_actions("{trigger_type:'on_jobs_ready', action_type:'run_commands', jobs:[], "
                  "job_name_regexes:['^nope'], commands:['x']}"),
     alice, "t.json5:1:194: actions[0]: jobs and job_name_regexes select no job"},
    {"an action with an invalid regex",
     with_actions("{trigger_type:'on_jobs_ready', action_type:'run_commands', "
                  "job_name_regexes:['train_(\\\\d'], commands:['x']}"),
     alice,
     "t.json5:1:194: actions[0]: job_name_regexes \"train_(\\d\" is not a valid regular "
     "expression: missing ): train_(\\d"},
    {"a multi-node job that does not span its multi-node scheduler (§9.2, Torc 0.25)",
     node_check4
         + ", {name:'c', command:'c', scheduler:'big', resource_requirements:'two'}], "
           "actions:[{trigger_type:'on_workflow_start', action_type:'schedule_nodes', "
           "scheduler:'big', scheduler_type:'slurm', start_one_worker_per_node:true}]}",
     alice,
     "t.json5:1:382: actions[0]: scheduler \"big\" allocates 4 nodes, but jobs \"c\" ask for "
     "another multi-node count (resource_requirements num_nodes); give them num_nodes 4, or 1 "
     "for single-node jobs, as Torc 0.25 requires"},
};

std::vector<plan_case> const check_cases{
    {"single-node jobs in a multi-node allocation pass the node check (Torc 0.25)",
     node_check
         + "], actions:[{trigger_type:'on_workflow_start', action_type:'schedule_nodes', "
           "scheduler:'big', scheduler_type:'slurm'}]}",
     alice, [](auto const& p) { return std::to_string(p.actions.size()); }, "1"},
    {"the node check passes when a job asks for the scheduler's nodes",
     node_check
         + ", {name:'c', command:'c', scheduler:'big', resource_requirements:'two'}], "
           "actions:[{trigger_type:'on_workflow_start', action_type:'schedule_nodes', "
           "scheduler:'big', scheduler_type:'slurm'}]}",
     alice, [](auto const& p) { return std::to_string(p.actions.size()); }, "1"},
    {"the node check is skipped with skip_checks",
     node_check4
         + ", {name:'c', command:'c', scheduler:'big', resource_requirements:'two'}], "
           "actions:[{trigger_type:'on_workflow_start', action_type:'schedule_nodes', "
           "scheduler:'big', scheduler_type:'slurm'}]}",
     skip_checks, [](auto const& p) { return std::to_string(p.actions.size()); }, "1"},
    {"the node check does not apply to a scheduler no job uses",
     "{name:'w', slurm_schedulers:[{name:'big', account:'a', nodes:4}], jobs:[{name:'a', "
     "command:'c'}], actions:[{trigger_type:'on_workflow_start', action_type:'schedule_nodes', "
     "scheduler:'big', scheduler_type:'slurm'}]}",
     alice, [](auto const& p) { return std::to_string(p.actions.size()); }, "1"},
    {"schedulers that differ while some jobs name none: a warning",
     "{name:'w', slurm_schedulers:[{name:'s1', account:'a'}, {name:'s2', account:'a', "
     "walltime:'2:00:00'}], jobs:[{name:'a', command:'c', scheduler:'s1'}, {name:'b', "
     "command:'c'}]}",
     alice, warnings_of,
     "slurm_schedulers: the schedulers differ in gres, mem, walltime or partition and some jobs "
     "name no scheduler, so any node may claim them; jobs_sort_method is unset"},
    {"no such warning with jobs_sort_method set",
     "{name:'w', jobs_sort_method:'none', slurm_schedulers:[{name:'s1', account:'a'}, "
     "{name:'s2', account:'a', gres:'gpu:1'}], jobs:[{name:'b', command:'c'}]}",
     alice, warnings_of,
     "workflow: field \"jobs_sort_method\" was removed in newer Torc (give jobs a \"priority\" "
     "instead); torcrun still orders claims by it as Torc 0.10 does"},
    {"no such warning when every job names a scheduler",
     "{name:'w', slurm_schedulers:[{name:'s1', account:'a'}, {name:'s2', account:'a', "
     "mem:'1G'}], jobs:[{name:'b', command:'c', scheduler:'s2'}]}",
     alice, warnings_of, ""},
    {"no such warning when the schedulers agree",
     "{name:'w', slurm_schedulers:[{name:'s1', account:'a'}, {name:'s2', account:'b', "
     "qos:'q'}], jobs:[{name:'b', command:'c'}]}",
     alice, warnings_of, ""},
};

void check(plan_case const& c)
{
    auto const planned = plan(c.text, c.options);
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(c.get(*planned) == c.expected);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_creation_plan)

BOOST_DATA_TEST_CASE(workflow_record, bdata::make(workflow_cases), c)
{
    check(c);
}

BOOST_DATA_TEST_CASE(bulk_jobs_batches, bdata::make(batch_cases), c)
{
    check(c);
}

BOOST_DATA_TEST_CASE(actions, bdata::make(action_cases), c)
{
    check(c);
}

BOOST_DATA_TEST_CASE(scheduler_checks, bdata::make(check_cases), c)
{
    check(c);
}

BOOST_DATA_TEST_CASE(plan_error, bdata::make(error_cases), c)
{
    BOOST_TEST(message_of(plan(c.text, c.options)) == c.expected);
}

BOOST_AUTO_TEST_CASE(levels_of_expanded_jobs)
{
    auto const expanded = expand("{name:'w', jobs:[{name:'c', command:'c', depends_on:['b']}, "
                                 "{name:'b', command:'c', depends_on:['a']}, {name:'a', "
                                 "command:'c'}]}");
    BOOST_TEST_REQUIRE(message_of(expanded) == "ok");
    BOOST_TEST(spec::topological_levels(expanded->jobs) == (std::vector<std::size_t>{2, 1, 0}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
