// Every field of a Torc workflow spec (docs/TORC-COMPATIBILITY.md §4.2-§4.3): the value read, and
// Torc 0.10's default when the field is absent or null (§4.1, §4.10 items 1, 3, 9, 12). In case
// names, §17 item N is §4.10 item N.
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

using getter = std::function<std::string(spec::workflow_spec const&)>;

struct field_case {
    std::string label;
    std::string text;
    getter get;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, field_case const& c)
{
    return os << c.label;
}

std::string b(bool v)
{
    return v ? "true" : "false";
}
std::string n(std::int64_t v)
{
    return std::to_string(v);
}
std::string on(std::optional<std::int64_t> v)
{
    return v ? n(*v) : "none";
}
std::string ob(std::optional<bool> v)
{
    return v ? b(*v) : "none";
}
std::string os(std::optional<strings> const& v)
{
    return v ? "[" + join(*v) + "]" : "none";
}
std::string params(std::optional<spec::raw_parameters> const& p)
{
    if (!p) return "none";
    strings out;
    for (auto const& [k, v] : *p) out.push_back(k + "=" + v);
    return "{" + join(out) + "}";
}

// A workflow with one entry of each kind, written by `jobs` etc.
std::string w(std::string const& members)
{
    return "{name:'w', jobs:[], " + members + "}";
}
std::string job(std::string const& fields)
{
    return "{name:'w', jobs:[{name:'j', command:'c', " + fields + "}]}";
}

spec::job_spec const& j0(spec::workflow_spec const& s)
{
    return s.jobs.at(0);
}

std::vector<field_case> const workflow_cases{
    {"name", w(""), [](auto const& s) { return s.name; }, "w"},
    {"user absent", w(""), [](auto const& s) { return or_none(s.user); }, "none"},
    {"user", w("user:'u'"), [](auto const& s) { return or_none(s.user); }, "u"},
    {"user null", w("user:null"), [](auto const& s) { return or_none(s.user); }, "none"},
    {"description", w("description:'d'"), [](auto const& s) { return or_none(s.description); },
     "d"},
    {"parameters pool in order", w("parameters:{b:'1:2', a:'[x]'}"),
     [](auto const& s) { return params(s.parameters); }, "{b=1:2,a=[x]}"},
    {"jobs may be empty", w(""), [](auto const& s) { return n(s.jobs.size()); }, "0"},
    {"use_pending_failed default", w(""), [](auto const& s) { return b(s.use_pending_failed); },
     "false"},
    {"use_pending_failed", w("use_pending_failed:true"),
     [](auto const& s) { return b(s.use_pending_failed); }, "true"},
    {"expiration buffer default", w(""),
     [](auto const& s) { return n(s.compute_node_expiration_buffer_seconds); }, "60"},
    {"expiration buffer", w("compute_node_expiration_buffer_seconds:7"),
     [](auto const& s) { return n(s.compute_node_expiration_buffer_seconds); }, "7"},
    {"wait for new jobs default", w(""),
     [](auto const& s) { return n(s.compute_node_wait_for_new_jobs_seconds); }, "90"},
    {"wait for new jobs", w("compute_node_wait_for_new_jobs_seconds:0"),
     [](auto const& s) { return n(s.compute_node_wait_for_new_jobs_seconds); }, "0"},
    {"ignore completion default", w(""),
     [](auto const& s) { return b(s.compute_node_ignore_workflow_completion); }, "false"},
    {"ignore completion", w("compute_node_ignore_workflow_completion:true"),
     [](auto const& s) { return b(s.compute_node_ignore_workflow_completion); }, "true"},
    {"healthy database default", w(""),
     [](auto const& s) { return n(s.compute_node_wait_for_healthy_database_minutes); }, "20"},
    {"healthy database", w("compute_node_wait_for_healthy_database_minutes:3"),
     [](auto const& s) { return n(s.compute_node_wait_for_healthy_database_minutes); }, "3"},
    {"jobs_sort_method absent", w(""),
     [](auto const& s) { return s.sort_method ? std::string(to_string(*s.sort_method)) : "none"; },
     "none"},
    {"jobs_sort_method gpus_runtime_memory", w("jobs_sort_method:'gpus_runtime_memory'"),
     [](auto const& s) { return std::string(to_string(*s.sort_method)); }, "gpus_runtime_memory"},
    {"jobs_sort_method gpus_memory_runtime", w("jobs_sort_method:'gpus_memory_runtime'"),
     [](auto const& s) { return std::string(to_string(*s.sort_method)); }, "gpus_memory_runtime"},
    {"jobs_sort_method none", w("jobs_sort_method:'none'"),
     [](auto const& s) { return std::string(to_string(*s.sort_method)); }, "none"},
    {"empty lists", w("files:[], user_data:[], slurm_schedulers:[], actions:[]"),
     [](auto const& s) {
         return n(s.files.size() + s.user_data.size() + s.slurm_schedulers.size()
                  + s.actions.size());
     },
     "0"},
    {"no warnings", w(""), [](auto const& s) { return join(s.warnings); }, ""},
};

std::vector<field_case> const job_cases{
    {"name and command", job(""), [](auto const& s) { return j0(s).name + "/" + j0(s).command; },
     "j/c"},
    {"optional strings absent", job(""),
     [](auto const& s) {
         auto const& j = j0(s);
         return or_none(j.invocation_script) + or_none(j.resource_requirements)
                + or_none(j.scheduler) + or_none(j.failure_handler);
     },
     "nonenonenonenone"},
    {"optional strings null",
     job("invocation_script:null, resource_requirements:null, scheduler:null, "
         "failure_handler:null"),
     [](auto const& s) {
         auto const& j = j0(s);
         return or_none(j.invocation_script) + or_none(j.resource_requirements)
                + or_none(j.scheduler) + or_none(j.failure_handler);
     },
     "nonenonenonenone"},
    {"optional strings",
     job("invocation_script:'#!/bin/sh\\n', resource_requirements:'r', scheduler:'s', "
         "failure_handler:'h'"),
     [](auto const& s) {
         auto const& j = j0(s);
         return *j.invocation_script + "|" + *j.resource_requirements + "|" + *j.scheduler + "|"
                + *j.failure_handler;
     },
     "#!/bin/sh\n|r|s|h"},
    {"cancel_on_blocking_job_failure defaults to true (Torc's code)", job(""),
     [](auto const& s) { return b(j0(s).cancel_on_blocking_job_failure); }, "true"},
    {"cancel_on_blocking_job_failure", job("cancel_on_blocking_job_failure:false"),
     [](auto const& s) { return b(j0(s).cancel_on_blocking_job_failure); }, "false"},
    {"supports_termination default", job(""),
     [](auto const& s) { return b(j0(s).supports_termination); }, "false"},
    {"supports_termination", job("supports_termination:true"),
     [](auto const& s) { return b(j0(s).supports_termination); }, "true"},
    {"lists absent", job(""),
     [](auto const& s) {
         auto const& j = j0(s);
         return n(j.depends_on.size() + j.depends_on_regexes.size() + j.input_files.size()
                  + j.input_file_regexes.size() + j.output_files.size()
                  + j.output_file_regexes.size() + j.input_user_data.size()
                  + j.input_user_data_regexes.size() + j.output_user_data.size()
                  + j.output_user_data_regexes.size());
     },
     "0"},
    {"every list",
     job("depends_on:['a','b'], depends_on_regexes:['c'], input_files:['d'], "
         "input_file_regexes:['e'], "
         "output_files:['f'], output_file_regexes:['g'], input_user_data:['h'], "
         "input_user_data_regexes:['i'], "
         "output_user_data:['j'], output_user_data_regexes:['k']"),
     [](auto const& s) {
         auto const& j = j0(s);
         return join({join(j.depends_on), join(j.depends_on_regexes), join(j.input_files),
                      join(j.input_file_regexes), join(j.output_files), join(j.output_file_regexes),
                      join(j.input_user_data), join(j.input_user_data_regexes),
                      join(j.output_user_data), join(j.output_user_data_regexes)},
                     "|");
     },
     "a,b|c|d|e|f|g|h|i|j|k"},
    {"lists null", job("depends_on:null, input_files:null"),
     [](auto const& s) { return n(j0(s).depends_on.size()); }, "0"},
    {"parameters", job("parameters:{i:'1:3', s:\"['a']\"}"),
     [](auto const& s) { return params(j0(s).params.parameters); }, "{i=1:3,s=['a']}"},
    {"empty parameters", job("parameters:{}"),
     [](auto const& s) { return params(j0(s).params.parameters); }, "{}"},
    {"no parameters", job(""),
     [](auto const& s) {
         auto const& p = j0(s).params;
         return params(p.parameters) + or_none(p.parameter_mode) + os(p.use_parameters);
     },
     "nonenonenone"},
    {"parameter_mode and use_parameters", job("parameter_mode:'zip', use_parameters:['a','b']"),
     [](auto const& s) {
         auto const& p = j0(s).params;
         return *p.parameter_mode + os(p.use_parameters);
     },
     "zip[a,b]"},
    {"where", job(""), [](auto const& s) { return j0(s).where; }, "t.json5:1:18"},
};

std::vector<field_case> const entry_cases{
    {"file", w("files:[{name:'f', path:'/p'}]"),
     [](auto const& s) {
         return s.files[0].name + s.files[0].path + params(s.files[0].params.parameters);
     },
     "f/pnone"},
    {"file template",
     w("files:[{name:'f{i}', path:'/p{i}', parameters:{i:'1:2'}, parameter_mode:'product', "
       "use_parameters:['x']}]"),
     [](auto const& s) {
         auto const& p = s.files[0].params;
         return params(p.parameters) + *p.parameter_mode + os(p.use_parameters);
     },
     "{i=1:2}product[x]"},
    {"user data", w("user_data:[{name:'u', data:{b:[1,2.5,'x'], a:null}, is_ephemeral:true}]"),
     [](auto const& s) {
         auto const& u = s.user_data[0];
         return u.name + boost::json::serialize(*u.data) + ob(u.is_ephemeral);
     },
     "u{\"b\":[1,2.5E0,\"x\"],\"a\":null}true"},
    {"user data without data", w("user_data:[{name:'u'}]"),
     [](auto const& s) {
         auto const& u = s.user_data[0];
         return std::string(u.data ? "data" : "none") + ob(u.is_ephemeral);
     },
     "nonenone"},
    {"user data NaN is null, as in serde_json", w("user_data:[{name:'u', data:[NaN, Infinity]}]"),
     [](auto const& s) { return boost::json::serialize(*s.user_data[0].data); }, "[null,null]"},
    {"resource requirements defaults",
     w("resource_requirements:[{name:'r', num_cpus:2, memory:'1g'}]"),
     [](auto const& s) {
         auto const& r = s.resource_requirements[0];
         return r.name + n(r.num_cpus) + r.memory + n(r.num_gpus) + n(r.num_nodes) + r.runtime;
     },
     "r21g01PT1H"},
    {"resource requirements",
     w("resource_requirements:[{runtime:'P0DT1M', num_nodes:3, num_gpus:4, memory:'2m', "
       "num_cpus:0, name:'r'}]"),
     [](auto const& s) {
         auto const& r = s.resource_requirements[0];
         return r.name + n(r.num_cpus) + r.memory + n(r.num_gpus) + n(r.num_nodes) + r.runtime;
     },
     "r02m43P0DT1M"},
    {"resource requirements, tasks per node (torcrun extension)",
     w("resource_requirements:[{name:'r', num_cpus:4, memory:'1g', num_nodes:2, "
       "tasks_per_node:4}]"),
     [](auto const& s) {
         auto const& r = s.resource_requirements[0];
         return n(r.num_nodes) + "x" + n(r.tasks_per_node.value_or(-1));
     },
     "2x4"},
    {"resource requirements, tasks per node absent",
     w("resource_requirements:[{name:'r', num_cpus:4, memory:'1g'}]"),
     [](auto const& s) {
         return std::string(s.resource_requirements[0].tasks_per_node ? "set" : "none");
     },
     "none"},
    {"resource requirements NaN is absent",
     w("resource_requirements:[{name:'r', num_cpus:1, memory:'1g', num_gpus:NaN}]"),
     [](auto const& s) { return n(s.resource_requirements[0].num_gpus); }, "0"},
    {"failure handler with no rules", w("failure_handlers:[{name:'h', rules:[]}]"),
     [](auto const& s) {
         return s.failure_handlers[0].name + n(s.failure_handlers[0].rules.size());
     },
     "h0"},
    {"failure handler rule defaults", w("failure_handlers:[{name:'h', rules:[{}]}]"),
     [](auto const& s) {
         auto const& r = s.failure_handlers[0].rules[0];
         return n(r.exit_codes.size()) + b(r.match_all_exit_codes) + or_none(r.recovery_script)
                + n(r.max_retries);
     },
     "0falsenone3"},
    {"failure handler rule",
     w("failure_handlers:[{name:'h', rules:[{exit_codes:[10,-1], match_all_exit_codes:true, "
       "recovery_script:'r.sh', max_retries:0}]}]"),
     [](auto const& s) {
         auto const& r = s.failure_handlers[0].rules[0];
         return n(r.exit_codes[0]) + n(r.exit_codes[1]) + b(r.match_all_exit_codes)
                + or_none(r.recovery_script) + n(r.max_retries);
     },
     "10-1truer.sh0"},
    {"slurm scheduler defaults", w("slurm_schedulers:[{name:'s', account:'a'}]"),
     [](auto const& s) {
         auto const& x = s.slurm_schedulers[0];
         return x.name + x.account + n(x.nodes) + x.walltime + or_none(x.partition) + or_none(x.mem)
                + or_none(x.gres) + or_none(x.qos) + or_none(x.tmp) + or_none(x.extra)
                + on(x.ntasks_per_node);
     },
     "sa101:00:00nonenonenonenonenonenonenone"},
    {"slurm scheduler",
     w("slurm_schedulers:[{name:'s', account:'a', nodes:2, walltime:'4:00:00', partition:'p', "
       "mem:'8G', gres:'gpu:1', qos:'q', tmp:'1G', extra:'-x', ntasks_per_node:4}]"),
     [](auto const& s) {
         auto const& x = s.slurm_schedulers[0];
         return x.name + x.account + n(x.nodes) + x.walltime + *x.partition + *x.mem + *x.gres
                + *x.qos + *x.tmp + *x.extra + on(x.ntasks_per_node);
     },
     "sa24:00:00p8Ggpu:1q1G-x4"},
    {"slurm_defaults keep their JSON types",
     w("slurm_defaults:{account:'a', 'mail-type':'END', exclusive:true, nice:5}"),
     [](auto const& s) { return boost::json::serialize(*s.slurm_defaults); },
     "{\"account\":\"a\",\"mail-type\":\"END\",\"exclusive\":true,\"nice\":5}"},
    {"resource monitor absent", w(""),
     [](auto const& s) { return b(s.resource_monitor.has_value()); }, "false"},
    {"resource monitor defaults", w("resource_monitor:{}"),
     [](auto const& s) {
         auto const& m = *s.resource_monitor;
         return b(m.enabled) + std::string(to_string(m.granularity)) + n(m.sample_interval_seconds)
                + b(m.generate_plots);
     },
     "falsesummary5false"},
    {"resource monitor",
     w("resource_monitor:{enabled:true, granularity:'time_series', sample_interval_seconds:2, "
       "generate_plots:false}"),
     [](auto const& s) {
         auto const& m = *s.resource_monitor;
         return b(m.enabled) + std::string(to_string(m.granularity)) + n(m.sample_interval_seconds)
                + b(m.generate_plots);
     },
     "truetime_series2false"},
    {"resource monitor: the docs' spelling TimeSeries is read (§17 item 2)",
     w("resource_monitor:{granularity:'TimeSeries'}"),
     [](auto const& s) {
         return std::string(to_string(s.resource_monitor->granularity)) + "|" + join(s.warnings);
     },
     "time_series|resource_monitor: Torc 0.10 rejects granularity \"TimeSeries\"; torcrun reads it "
     "as \"time_series\""},
    {"resource monitor: the docs' spelling Summary is read",
     w("resource_monitor:{granularity:'Summary'}"),
     [](auto const& s) {
         return std::string(to_string(s.resource_monitor->granularity)) + "|" + join(s.warnings);
     },
     "summary|resource_monitor: Torc 0.10 rejects granularity \"Summary\"; torcrun reads it as "
     "\"summary\""},
    {"resource monitor ignores unknown keys, with a warning",
     w("resource_monitor:{enabled:true, metrics:['cpu']}"),
     [](auto const& s) { return b(s.resource_monitor->enabled) + "|" + join(s.warnings); },
     "true|resource_monitor: field \"metrics\" is not a monitor setting; it is ignored"},
    {"action defaults",
     w("actions:[{trigger_type:'on_workflow_start', action_type:'run_commands', commands:['x']}]"),
     [](auto const& s) {
         auto const& a = s.actions[0];
         return a.trigger_type + a.action_type + os(a.jobs) + os(a.job_name_regexes)
                + os(a.commands) + or_none(a.scheduler) + or_none(a.scheduler_type)
                + n(a.num_allocations) + b(a.start_one_worker_per_node) + on(a.max_parallel_jobs)
                + b(a.persistent);
     },
     "on_workflow_startrun_commandsnonenone[x]nonenone1falsenonefalse"},
    {"action",
     w("slurm_schedulers:[{name:'s', account:'a'}], actions:[{trigger_type:'on_jobs_ready', "
       "action_type:'schedule_nodes', jobs:[], job_name_regexes:['r'], scheduler:'s', "
       "scheduler_type:'slurm', num_allocations:2, start_one_worker_per_node:true, "
       "max_parallel_jobs:4, persistent:true}]"),
     [](auto const& s) {
         auto const& a = s.actions[0];
         return a.trigger_type + a.action_type + os(a.jobs) + os(a.job_name_regexes)
                + os(a.commands) + or_none(a.scheduler) + or_none(a.scheduler_type)
                + n(a.num_allocations) + b(a.start_one_worker_per_node) + on(a.max_parallel_jobs)
                + b(a.persistent);
     },
     "on_jobs_readyschedule_nodes[][r]nonesslurm2true4true"},
    {"schedule_nodes with another scheduler type needs no Slurm scheduler",
     w("actions:[{trigger_type:'on_workflow_start', action_type:'schedule_nodes', scheduler:'x', "
       "scheduler_type:'local'}]"),
     [](auto const& s) { return *s.actions[0].scheduler_type; }, "local"},
    {"an unknown trigger is kept, with a warning",
     w("actions:[{trigger_type:'on_job_done', action_type:'run_commands', commands:['x']}]"),
     [](auto const& s) { return s.actions[0].trigger_type + "|" + join(s.warnings); },
     "on_job_done|actions[0]: trigger_type \"on_job_done\" is not one Torc fires "
     "(on_workflow_start, on_workflow_complete, on_jobs_ready, on_jobs_complete, on_worker_start, "
     "on_worker_complete); it is stored as given"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_model)

BOOST_DATA_TEST_CASE(workflow_fields, bdata::make(workflow_cases), c)
{
    auto const parsed = read(c.text);
    BOOST_TEST_REQUIRE(message_of(parsed) == "ok");
    BOOST_TEST(c.get(*parsed) == c.expected);
}

BOOST_DATA_TEST_CASE(job_fields, bdata::make(job_cases), c)
{
    auto const parsed = read(c.text);
    BOOST_TEST_REQUIRE(message_of(parsed) == "ok");
    BOOST_TEST(c.get(*parsed) == c.expected);
}

BOOST_DATA_TEST_CASE(entry_fields, bdata::make(entry_cases), c)
{
    auto const parsed = read(c.text);
    BOOST_TEST_REQUIRE(message_of(parsed) == "ok");
    BOOST_TEST(c.get(*parsed) == c.expected);
}

BOOST_AUTO_TEST_SUITE_END()
