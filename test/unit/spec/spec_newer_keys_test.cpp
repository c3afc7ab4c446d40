// The spec keys of newer Torc (docs/TORC-COMPATIBILITY.md §4.13): what each becomes in the
// creation plan and the records sent, in YAML and JSON5, and every refusal verbatim with its
// file:line:col (execution_config's create-time checks all reported together).
#include "spec_support.hpp"

#include "spec/submission_bodies.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

struct key_case {
    std::string label;
    std::string file_name;
    std::string text;
    std::string expected;  // the error, or "ok"
};
std::ostream& operator<<(std::ostream& os, key_case const& c) { return os << c.label; }

std::string body_of(spec::creation_plan const& p)
{
    return boost::json::serialize(torcrun::api::workflow_body(p.workflow));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_newer_keys)

// -- accepted: what reaches the records

BOOST_AUTO_TEST_CASE(access_groups_and_labels_reach_the_records)
{
    auto const planned = plan(R"(name: w
access_groups: [team, ops]
jobs:
  - name: g_{i}
    command: c
    label: gpu-{i}
    parameters: {i: "1:2"}
  - name: plain
    command: c
)",
                              {}, "w.yaml");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(body_of(*planned).find(R"("access_groups":["team","ops"])") != std::string::npos);
    BOOST_TEST(or_none(planned->jobs[1].label) == "gpu-2");
    BOOST_TEST(!planned->jobs[2].label);
    torcrun::api::name_ids const none;
    torcrun::api::detail::job_refs const ids{none, none, none, none, none, none};
    auto const g1 =
        boost::json::serialize(torcrun::api::detail::job_body(1, planned->jobs[0], ids));
    BOOST_TEST(g1.find(R"("label":"gpu-1")") != std::string::npos);
    auto const plain =
        boost::json::serialize(torcrun::api::detail::job_body(1, planned->jobs[2], ids));
    BOOST_TEST(plain.find("label") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_access_groups_sends_none)
{
    auto const planned = plan("name: w\njobs: []\n", {}, "w.yaml");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(body_of(*planned).find("access_groups") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(yaml_workflow_keys_reach_the_workflow_record)
{
    auto const planned = plan(R"(name: w
project: demo
metadata: {team: hpc, n: 2}
parameters:
  root: "/scratch"
  i: "1:2"
env:
  DATA_ROOT: "{root}/data"
  LEFT: "{i}"
execution_config:
  mode: direct
  termination_signal: SIGINT
  sigterm_lead_seconds: 10
  sigkill_headroom_seconds: 20
  oom_exit_code: 137
  timeout_exit_code: 152
  limit_resources: true
  staggered_start: false
  stdio: {mode: combined, delete_on_success: true}
  job_stdio_overrides:
    a: {mode: none}
    b: {mode: no_stderr}
jobs:
  - name: a
    command: run a
  - name: b
    command: run b
    stdio: {mode: no_stdout}
)",
                               {}, "w.yaml");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    auto const& w = planned->workflow;
    BOOST_TEST(or_none(w.project) == "demo");
    BOOST_TEST(boost::json::serialize(*w.metadata) == R"({"team":"hpc","n":2})");
    // Single-valued parameters only: {i} has two values, so it stays.
    BOOST_TEST(boost::json::serialize(*w.env) == R"({"DATA_ROOT":"/scratch/data","LEFT":"{i}"})");
    // b's own stdio replaces the spec's override for b; a's override stays.
    BOOST_TEST(boost::json::serialize(*w.execution_config) ==
               R"({"mode":"direct","termination_signal":"SIGINT","sigterm_lead_seconds":10,)"
               R"("sigkill_headroom_seconds":20,"oom_exit_code":137,"timeout_exit_code":152,)"
               R"("limit_resources":true,"staggered_start":false,)"
               R"("stdio":{"mode":"combined","delete_on_success":true},)"
               R"("job_stdio_overrides":{"a":{"mode":"none","delete_on_success":false},)"
               R"("b":{"mode":"no_stdout","delete_on_success":false}}})");
    auto const body = body_of(*planned);
    BOOST_TEST(body.find(R"("project":"demo","metadata":{"team":"hpc","n":2},"env":{)") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(json5_job_keys_reach_the_job_records)
{
    auto const planned = plan(R"({name: 'w',
  jobs: [
    {name: 'j_{i}', command: 'run {i}', priority: 3, env: {N: '{i}', FIXED: 'x'},
     stdio: {mode: 'separate', delete_on_success: true}, parameters: {i: '1:2'}},
    {name: 'plain', command: 'c'},
  ],
  slurm_schedulers: [{name: 's', account: 'a', serialize_allocations: true}],
})");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    torcrun::api::name_ids const none;
    torcrun::api::name_ids const jobs{{"j_1", 1}, {"j_2", 2}, {"plain", 3}};
    torcrun::api::detail::job_refs const ids{none, none, none, none, none, jobs};
    auto const j2 =
        boost::json::serialize(torcrun::api::detail::job_body(1, planned->jobs[1], ids));
    BOOST_TEST(j2 == R"({"workflow_id":1,"name":"j_2","command":"run 2","status":"uninitialized",)"
                     R"("cancel_on_blocking_job_failure":true,"supports_termination":false,)"
                     R"("attempt_id":1,"env":{"N":"2","FIXED":"x"},"priority":3})");
    auto const plain =
        boost::json::serialize(torcrun::api::detail::job_body(1, planned->jobs[2], ids));
    BOOST_TEST(plain.find("priority") == std::string::npos);  // 0 is the server's default
    BOOST_TEST(plain.find("env") == std::string::npos);
    BOOST_TEST(boost::json::serialize(*planned->workflow.execution_config) ==
               R"({"job_stdio_overrides":{"j_1":{"mode":"separate","delete_on_success":true},)"
               R"("j_2":{"mode":"separate","delete_on_success":true}}})");
    auto const s = boost::json::serialize(
        torcrun::api::detail::scheduler_body(1, planned->slurm_schedulers[0]));
    BOOST_TEST(s.find(R"("serialize_allocations":true)") != std::string::npos);
}

// Every new key, once in each format: the same workflow record and job records.
BOOST_AUTO_TEST_CASE(yaml_and_json5_give_the_same_records)
{
    auto const yaml = plan(R"(name: w
project: p
metadata: {a: 1}
env: {A: x}
execution_config:
  mode: slurm
  srun_termination_signal: B:USR1@60
  enable_cpu_bind: true
  stdio: {mode: no_stderr}
resource_monitor: {jobs: {enabled: true}, sample_interval_seconds: 2}
slurm_schedulers: [{name: s, account: a, serialize_allocations: true}]
jobs:
  - {name: j, command: c, priority: 4, env: {B: y}, stdio: {delete_on_success: true}}
)",
                           {}, "w.yaml");
    auto const json5 = plan(R"({name: 'w', project: 'p', metadata: {a: 1}, env: {A: 'x'},
  execution_config: {mode: 'slurm', srun_termination_signal: 'B:USR1@60', enable_cpu_bind: true,
                     stdio: {mode: 'no_stderr'}},
  resource_monitor: {jobs: {enabled: true}, sample_interval_seconds: 2},
  slurm_schedulers: [{name: 's', account: 'a', serialize_allocations: true}],
  jobs: [{name: 'j', command: 'c', priority: 4, env: {B: 'y'}, stdio: {delete_on_success: true}}],
})");
    BOOST_TEST_REQUIRE(message_of(yaml) == "ok");
    BOOST_TEST_REQUIRE(message_of(json5) == "ok");
    BOOST_TEST(body_of(*yaml) == body_of(*json5));
    BOOST_TEST(body_of(*yaml).find(
                   R"("execution_config":{"mode":"slurm","srun_termination_signal":"B:USR1@60",)"
                   R"("enable_cpu_bind":true,"stdio":{"mode":"no_stderr"},"job_stdio_overrides":)"
                   R"({"j":{"mode":"separate","delete_on_success":true}}})") != std::string::npos);
    torcrun::api::name_ids const none;
    torcrun::api::detail::job_refs const ids{none, none, none, none, none, none};
    BOOST_TEST(boost::json::serialize(torcrun::api::detail::job_body(1, yaml->jobs[0], ids)) ==
               boost::json::serialize(torcrun::api::detail::job_body(1, json5->jobs[0], ids)));
    BOOST_TEST(yaml->jobs[0].priority == 4);
    BOOST_TEST(yaml->slurm_schedulers[0].serialize_allocations);
}

BOOST_AUTO_TEST_CASE(metadata_as_a_string_stays_a_string)
{
    auto const planned = plan("{name:'w', metadata:'{\"k\":1}', jobs:[]}");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(planned->workflow.metadata->as_string() == R"({"k":1})");
}

BOOST_AUTO_TEST_CASE(split_resource_monitor_is_stored_in_both_shapes)
{
    auto const planned = plan(R"(name: w
resource_monitor:
  sample_interval_seconds: 3
  flush_interval_seconds: 60
  jobs: {enabled: true, granularity: summary}
  compute_node: {enabled: false}
jobs: []
)",
                               {}, "w.yaml");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(or_none(planned->workflow.resource_monitor_config) ==
               R"({"enabled":true,"granularity":"summary","sample_interval_seconds":3,)"
               R"("generate_plots":false,"jobs":{"enabled":true,"granularity":"summary"},)"
               R"("flush_interval_seconds":60,"compute_node":{"enabled":false,)"
               R"("granularity":"summary","cpu":true,"memory":true}})");
}

BOOST_AUTO_TEST_CASE(node_monitoring_is_read_and_stored)
{
    auto const planned = plan(R"(name: w
resource_monitor:
  sample_interval_seconds: 2
  compute_node: {enabled: true, granularity: time_series, memory: false}
jobs: []
)",
                               {}, "w.yaml");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(planned->warnings.empty());
    BOOST_TEST(or_none(planned->workflow.resource_monitor_config) ==
               R"({"enabled":false,"granularity":"summary","sample_interval_seconds":2,)"
               R"("generate_plots":false,"jobs":{"enabled":false,"granularity":"summary"},)"
               R"("compute_node":{"enabled":true,"granularity":"time_series","cpu":true,)"
               R"("memory":false}})");
}

BOOST_AUTO_TEST_CASE(no_compute_node_block_stores_none)
{
    auto const planned = plan("{name:'w', resource_monitor:{enabled:true}, jobs:[]}");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(planned->workflow.resource_monitor_config->find("compute_node") ==
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(legacy_monitor_keys_apply_only_without_jobs)
{
    auto const planned = plan(
        "{name:'w', resource_monitor:{enabled:false, jobs:{enabled:true}}, jobs:[]}");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(planned->workflow.resource_monitor_config->starts_with(R"({"enabled":true,)"));
    BOOST_TEST(join(planned->warnings) ==
               "resource_monitor: \"enabled\" and \"granularity\" are ignored beside \"jobs\", "
               "as in Torc");
}

BOOST_AUTO_TEST_CASE(warnings_for_deprecated_and_reduced_keys)
{
    auto const planned = plan(
        "{name:'w', compute_node_expiration_buffer_seconds:30, "
        "resource_monitor:{enabled:true, granularity:'time_series', generate_plots:true}, "
        "jobs:[]}");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(join(planned->warnings, "\n") ==
               "workflow: field \"compute_node_expiration_buffer_seconds\" is deprecated (newer "
               "Torc ignores it); torcrun stores it as Torc 0.10 does\n"
               "resource_monitor: granularity \"time_series\": torcrun's worker keeps each job's "
               "peak and average CPU and memory only (as \"summary\"); no time series is "
               "recorded\n"
               "resource_monitor: generate_plots: torcrun writes no plot files of its own; the "
               "report (report.html, `torcrun report`) charts each job's and each monitored "
               "node's CPU and memory");
}

BOOST_AUTO_TEST_CASE(a_v0_10_spec_still_merges_a_repeated_name)
{
    auto const planned = plan("{name:'w', jobs:[{name:'m', command:'c', parameters:{i:'1:2'}}]}");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(planned->jobs.size() == 1u);
    BOOST_TEST(planned->jobs[0].copies == 2u);
}

BOOST_AUTO_TEST_CASE(auto_mode_without_schedulers_is_direct_for_the_checks)
{
    auto const planned = plan("{name:'w', execution_config:{mode:'auto', oom_exit_code:1}, jobs:[]}");
    BOOST_TEST(message_of(planned) == "ok");
}

// -- refused, verbatim

std::vector<key_case> const refusals{
    // execution_config: types, ranges, vocabularies, unknown keys
    {"unknown key", "w.yaml", "name: w\njobs: []\nexecution_config:\n  mod: direct\n",
     "w.yaml:4:3: execution_config: field \"mod\" is unknown (did you mean \"mode\"?)"},
    {"bad mode", "w.yaml", "name: w\njobs: []\nexecution_config: {mode: local}\n",
     "w.yaml:3:26: execution_config: field \"mode\" must be one of \"direct\", \"slurm\", "
     "\"auto\", found \"local\""},
    {"bad mode json5", "t.json5", "{name:'w', jobs:[], execution_config:{mode:'srun'}}",
     "t.json5:1:44: execution_config: field \"mode\" must be one of \"direct\", \"slurm\", "
     "\"auto\", found \"srun\""},
    {"not an object", "t.json5", "{name:'w', jobs:[], execution_config:'direct'}",
     "t.json5:1:38: execution_config: must be an object, found \"direct\""},
    {"limit_resources not a boolean", "w.yaml",
     "name: w\njobs: []\nexecution_config: {limit_resources: 'no'}\n",
     "w.yaml:3:37: execution_config: field \"limit_resources\" must be true or false, found "
     "\"no\""},
    {"bad termination signal", "t.json5",
     "{name:'w', jobs:[], execution_config:{termination_signal:'SIGFOO'}}",
     "t.json5:1:58: execution_config: field \"termination_signal\": signal: \"SIGFOO\" is "
     "not a signal name or number (examples: SIGTERM, TERM, 15)"},
    {"negative lead", "t.json5", "{name:'w', jobs:[], execution_config:{sigterm_lead_seconds:-1}}",
     "t.json5:1:60: execution_config: field \"sigterm_lead_seconds\" must be an integer "
     "from 0 to 2147483647, found -1"},
    {"headroom not an integer", "w.yaml",
     "name: w\njobs: []\nexecution_config:\n  sigkill_headroom_seconds: 1.5\n",
     "w.yaml:4:29: execution_config: field \"sigkill_headroom_seconds\" must be an "
     "integer from 0 to 2147483647, found 1.5"},
    {"exit code out of range", "t.json5",
     "{name:'w', jobs:[], execution_config:{timeout_exit_code:4294967296}}",
     "t.json5:1:57: execution_config: field \"timeout_exit_code\" must be an integer from "
     "-2147483648 to 2147483647, found 4294967296"},
    {"bad srun signal", "w.yaml",
     "name: w\njobs: []\nexecution_config:\n  mode: slurm\n  srun_termination_signal: TERM@x\n",
     "w.yaml:5:28: execution_config: field \"srun_termination_signal\" must be an srun "
     "--signal value ([R:|B:]SIGNAL[@SECONDS], like TERM@120), found \"TERM@x\""},
    {"enable_cpu_bind not a boolean", "t.json5",
     "{name:'w', jobs:[], execution_config:{enable_cpu_bind:1}}",
     "t.json5:1:55: execution_config: field \"enable_cpu_bind\" must be true or false, "
     "found 1"},
    {"staggered_start not a boolean", "t.json5",
     "{name:'w', jobs:[], execution_config:{staggered_start:'yes'}}",
     "t.json5:1:55: execution_config: field \"staggered_start\" must be true or false, "
     "found \"yes\""},
    {"stdio unknown key", "w.yaml",
     "name: w\njobs: []\nexecution_config:\n  stdio: {mode: combined, keep: true}\n",
     "w.yaml:4:27: execution_config stdio: field \"keep\" is unknown"},
    {"stdio bad mode", "t.json5", "{name:'w', jobs:[], execution_config:{stdio:{mode:'no-stdout'}}}",
     "t.json5:1:51: execution_config stdio: field \"mode\" must be one of \"separate\", "
     "\"combined\", \"no_stdout\", \"no_stderr\", \"none\", found \"no-stdout\""},
    {"override bad", "w.yaml",
     "name: w\njobs: [{name: a, command: c}]\nexecution_config:\n  job_stdio_overrides:\n"
     "    a: {delete_on_success: 1}\n",
     "w.yaml:5:28: execution_config job_stdio_overrides a: field \"delete_on_success\" "
     "must be true or false, found 1"},
    {"override names no job", "w.yaml",
     "name: w\njobs: [{name: a, command: c}]\nexecution_config:\n  job_stdio_overrides:\n"
     "    b: {mode: none}\n",
     "w.yaml:4:3: execution_config: job_stdio_overrides \"b\" names no job"},
    // execution_config: Torc's create-time checks, all of them at once
    {"slurm mode refuses direct-only keys, all reported", "w.yaml",
     "name: w\njobs: []\nexecution_config:\n  mode: slurm\n  limit_resources: false\n"
     "  termination_signal: TERM\n  sigterm_lead_seconds: 30\n  oom_exit_code: 137\n",
     "w.yaml:5:3: execution_config: \"limit_resources: false\" is not allowed in slurm "
     "mode (Slurm always limits a step to its resources)\n"
     "w.yaml:6:3: execution_config: \"termination_signal\" applies to direct mode only; "
     "it is not allowed in slurm mode\n"
     "w.yaml:7:3: execution_config: \"sigterm_lead_seconds\" applies to direct mode only; "
     "it is not allowed in slurm mode\n"
     "w.yaml:8:3: execution_config: \"oom_exit_code\" applies to direct mode only; it is "
     "not allowed in slurm mode"},
    {"auto with schedulers counts as slurm", "t.json5",
     "{name:'w', jobs:[], slurm_schedulers:[{name:'s', account:'a'}],\n"
     " execution_config:{mode:'auto', sigterm_lead_seconds:5}}",
     "t.json5:2:33: execution_config: \"sigterm_lead_seconds\" applies to direct mode "
     "only; it is not allowed in auto mode (slurm here: the spec has slurm_schedulers)"},
    {"direct mode refuses slurm-only keys", "w.yaml",
     "name: w\njobs: []\nexecution_config:\n  srun_termination_signal: TERM@60\n"
     "  enable_cpu_bind: true\n",
     "w.yaml:4:3: execution_config: \"srun_termination_signal\" applies to slurm mode "
     "only; it is not allowed in direct mode\n"
     "w.yaml:5:3: execution_config: \"enable_cpu_bind: true\" applies to slurm mode only; "
     "it is not allowed in direct mode"},
    {"srun_mpi needs per-node workers and one token", "t.json5",
     "{name:'w', jobs:[],\n execution_config:{srun_mpi:'pmi x'}}",
     "t.json5:2:20: execution_config: \"srun_mpi\" must be one word of letters, digits "
     "and +_.- (an srun --mpi type such as pmix), found \"pmi x\"\n"
     "t.json5:2:20: execution_config: \"srun_mpi\" applies to workers started one per "
     "node; it needs a schedule_nodes action with \"start_one_worker_per_node: true\""},
    {"per-node workers need direct mode", "w.yaml",
     "name: w\njobs: [{name: a, command: c, scheduler: s}]\n"
     "slurm_schedulers: [{name: s, account: a, nodes: 2}]\n"
     "execution_config: {mode: slurm}\n"
     "actions:\n  - trigger_type: on_workflow_start\n    action_type: schedule_nodes\n"
     "    scheduler: s\n    scheduler_type: slurm\n    start_one_worker_per_node: true\n",
     "w.yaml:6:5: actions: \"start_one_worker_per_node: true\" needs direct mode; "
     "execution_config sets slurm mode"},
    // env, priority, project, metadata
    {"env name", "w.yaml", "name: w\njobs: []\nenv:\n  1BAD: x\n",
     "w.yaml:4:3: workflow: field \"env\": \"1BAD\" is not a valid environment variable "
     "name ([A-Za-z_][A-Za-z0-9_]*)"},
    {"env name json5", "t.json5", "{name:'w', jobs:[], env:{'A-B':'x'}}",
     "t.json5:1:26: workflow: field \"env\": \"A-B\" is not a valid environment variable "
     "name ([A-Za-z_][A-Za-z0-9_]*)"},
    {"env value", "w.yaml", "name: w\njobs: []\nenv:\n  A: 1\n",
     "w.yaml:4:6: workflow: field \"env\": the value of \"A\" must be a string, found 1"},
    {"job env name", "t.json5", "{name:'w', jobs:[{name:'a', command:'c', env:{'':'x'}}]}",
     "t.json5:1:47: jobs[0] \"a\": field \"env\": \"\" is not a valid environment "
     "variable name ([A-Za-z_][A-Za-z0-9_]*)"},
    {"job env not an object", "w.yaml",
     "name: w\njobs:\n  - name: a\n    command: c\n    env: [A=1]\n",
     "w.yaml:5:10: jobs[0] \"a\": field \"env\" must be an object, found [\"A=1\"]"},
    {"negative priority", "w.yaml",
     "name: w\njobs:\n  - name: a\n    command: c\n    priority: -1\n",
     "w.yaml:5:15: jobs[0] \"a\": field \"priority\" must be an integer from 0 to "
     "9223372036854775807, found -1"},
    {"priority not an integer", "t.json5",
     "{name:'w', jobs:[{name:'a', command:'c', priority:'high'}]}",
     "t.json5:1:51: jobs[0] \"a\": field \"priority\" must be an integer from 0 to "
     "9223372036854775807, found \"high\""},
    {"job stdio bad", "w.yaml",
     "name: w\njobs:\n  - name: a\n    command: c\n    stdio: {mode: all}\n",
     "w.yaml:5:19: jobs[0] \"a\" stdio: field \"mode\" must be one of \"separate\", "
     "\"combined\", \"no_stdout\", \"no_stderr\", \"none\", found \"all\""},
    {"project not a string", "t.json5", "{name:'w', jobs:[], project:7}",
     "t.json5:1:29: workflow: field \"project\" must be a string, found 7"},
    {"metadata a list", "w.yaml", "name: w\njobs: []\nmetadata: [a]\n",
     "w.yaml:3:11: workflow: field \"metadata\" must be a string or an object, found "
     "[\"a\"]"},
    {"serialize_allocations not a boolean", "t.json5",
     "{name:'w', jobs:[], slurm_schedulers:[{name:'s', account:'a', serialize_allocations:'y'}]}",
     "t.json5:1:85: slurm_schedulers[0] \"s\": field \"serialize_allocations\" must be "
     "true or false, found \"y\""},
    // resource_monitor values torcrun cannot honour
    {"node monitor granularity", "t.json5",
     "{name:'w', jobs:[], resource_monitor:{compute_node:{enabled:true, granularity:'hourly'}}}",
     "t.json5:1:79: resource_monitor compute_node: field \"granularity\" must be one of "
     "\"summary\", \"time_series\", found \"hourly\""},
    {"node monitor cpu not a boolean", "t.json5",
     "{name:'w', jobs:[], resource_monitor:{compute_node:{enabled:true, cpu:'yes'}}}",
     "t.json5:1:71: resource_monitor compute_node: field \"cpu\" must be true or false, "
     "found \"yes\""},
    {"node monitor unknown key", "w.yaml",
     "name: w\njobs: []\nresource_monitor:\n  compute_node: {gpu: true}\n",
     "w.yaml:4:18: resource_monitor compute_node: field \"gpu\" is unknown (did you mean "
     "\"cpu\"?)"},
    {"jobs monitor unknown key", "t.json5",
     "{name:'w', jobs:[], resource_monitor:{jobs:{enabled:true, interval:2}}}",
     "t.json5:1:59: resource_monitor jobs: field \"interval\" is unknown"},
    // removed and unsupported keys
    {"slurm_config removed", "w.yaml", "name: w\njobs: []\nslurm_config: {}\n",
     "w.yaml:3:1: workflow: field \"slurm_config\" was removed from Torc; use "
     "\"execution_config\" (mode, srun_termination_signal, enable_cpu_bind, ...)"},
    {"enable_ro_crate not a boolean", "t.json5", "{name:'w', jobs:[], enable_ro_crate:'yes'}",
     "t.json5:1:37: workflow: field \"enable_ro_crate\" must be true or false, found \"yes\""},
    // access_groups (0.23) and job label (torcrun extension): malformed values
    {"access_groups not a list", "w.yaml", "name: w\njobs: []\naccess_groups: team\n",
     "w.yaml:3:16: workflow: field \"access_groups\" must be a list, found \"team\""},
    {"access_groups empty name", "w.yaml", "name: w\njobs: []\naccess_groups: [team, '']\n",
     "w.yaml:3:16: workflow: field \"access_groups\": entry 1 is empty"},
    {"access_groups twice", "t.json5", "{name:'w', jobs:[], access_groups:['a', 'b', 'a']}",
     "t.json5:1:35: workflow: field \"access_groups\": \"a\" is named twice"},
    {"job label empty", "w.yaml", "name: w\njobs:\n  - name: a\n    command: c\n    label: ''\n",
     "w.yaml:5:12: jobs[0] \"a\": field \"label\" is empty: leave it out for a job any "
     "unlabelled worker claims"},
    {"job label not a string", "t.json5", "{name:'w', jobs:[{name:'a', command:'c', label:3}]}",
     "t.json5:1:48: jobs[0] \"a\": field \"label\" must be a string, found 3"},
    {"file identifier", "t.json5",
     "{name:'w', jobs:[], files:[{name:'f', path:'p', identifier:'#x'}]}",
     "t.json5:1:49: files[0] \"f\": field \"identifier\" (newer Torc: RO-Crate "
     "identifiers) is not supported by torcrun"},
    // newer Torc's unique names: a fan-in by a repeated name is refused once the spec uses its keys
    {"repeated name in a newer spec", "w.yaml",
     "name: w\nexecution_config: {mode: direct}\njobs:\n  - name: s_{i}\n    command: c\n"
     "    parameters: {i: '1:3'}\n  - name: merge\n    command: m\n    depends_on: ['s_{i}']\n"
     "    parameters: {i: '1:3'}\n",
     "w.yaml:7:5: jobs[1] \"merge\": expansions 1 and 2 of this entry are both named "
     "\"merge\"; names must be unique after expansion (for a fan-in, drop the waiting "
     "job's parameters and use depends_on_regexes), as newer Torc requires of a spec with "
     "its keys (here \"execution_config\" at w.yaml:2:1)"},
    {"repeated name in a newer spec json5", "t.json5",
     "{name:'w', jobs:[{name:'m', command:'c', priority:1, parameters:{i:'1:2'}}]}",
     "t.json5:1:18: jobs[0] \"m\": expansions 1 and 2 of this entry are both named \"m\"; "
     "names must be unique after expansion (for a fan-in, drop the waiting job's parameters "
     "and use depends_on_regexes), as newer Torc requires of a spec with its keys (here "
     "\"priority\" at t.json5:1:42)"},
    {"file st_mtime not a number", "w.yaml",
     "name: w\njobs: []\nfiles:\n  - {name: f, path: p, st_mtime: soon}\n",
     "w.yaml:4:34: files[0] \"f\": field \"st_mtime\" must be a number (seconds since the "
     "epoch), found \"soon\""},
};

BOOST_DATA_TEST_CASE(refused_with_place_and_reason, bdata::make(refusals), c)
{
    BOOST_TEST(message_of(plan(c.text, {}, c.file_name)) == c.expected);
}

BOOST_AUTO_TEST_SUITE_END()
