// Every error parse_spec reports (docs/TORC-COMPATIBILITY.md §4.1-§4.3, §4.8 and torcrun's §4.10
// items 13-14), asserted verbatim: the position, the entry as written, the field and the offending
// value.
#include "spec_support.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

struct error_case {
    std::string label;
    std::string file_name;
    std::string text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, error_case const& c)
{
    return os << c.label;
}

std::vector<error_case> const error_cases{
    {"workflow unknown with suggestion", "t.json5", "{name:'w', jobs:[], descripton:'d'}",
     "t.json5:1:21: workflow: field \"descripton\" is unknown (did you mean \"description\"?)"},
    {"workflow unknown without suggestion", "t.json5", "{name:'w', jobs:[], colour:'red'}",
     "t.json5:1:21: workflow: field \"colour\" is unknown"},
    {"job unknown with suggestion", "t.json5", "{name:'w', jobs:[{name:'train_{i}', comand:'x'}]}",
     "t.json5:1:37: jobs[0] \"train_{i}\": field \"comand\" is unknown (did you mean "
     "\"command\"?)"},
    {"job unknown transposed", "t.json5",
     "{name:'w', jobs:[{name:'a', command:'x', dpeends_on:[]}]}",
     "t.json5:1:42: jobs[0] \"a\": field \"dpeends_on\" is unknown (did you mean \"depends_on\"?)"},
    {"file unknown", "t.json5", "{name:'w', jobs:[], files:[{name:'f', path:'p', size:3}]}",
     "t.json5:1:49: files[0] \"f\": field \"size\" is unknown"},
    {"user data unknown", "t.json5", "{name:'w', jobs:[], user_data:[{name:'u', value:1}]}",
     "t.json5:1:43: user_data[0] \"u\": field \"value\" is unknown"},
    {"resource requirements unknown", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:1, memory:'1g', num_gpu:1}]}",
     "t.json5:1:80: resource_requirements[0] \"r\": field \"num_gpu\" is unknown (did you mean "
     "\"num_gpus\"?)"},
    {"failure handler unknown", "t.json5",
     "{name:'w', jobs:[], failure_handlers:[{name:'h', rules:[], retries:1}]}",
     "t.json5:1:60: failure_handlers[0] \"h\": field \"retries\" is unknown"},
    {"rule unknown", "t.json5",
     "{name:'w', jobs:[], failure_handlers:[{name:'h', rules:[{exit_code:[1]}]}]}",
     "t.json5:1:58: failure_handlers[0] \"h\" rules[0]: field \"exit_code\" is unknown (did you "
     "mean \"exit_codes\"?)"},
    {"scheduler unknown", "t.json5",
     "{name:'w', jobs:[], slurm_schedulers:[{name:'s', account:'a', time:'1:00'}]}",
     "t.json5:1:63: slurm_schedulers[0] \"s\": field \"time\" is unknown"},
    {"action unknown", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start', action_type:'run_commands', "
     "commands:['x'], command:'y'}]}",
     "t.json5:1:109: actions[0]: field \"command\" is unknown (did you mean \"commands\"?)"},
    {"workflow name missing", "t.json5", "{jobs:[]}",
     "t.json5:1:1: workflow: field \"name\" is required"},
    {"jobs missing", "t.json5", "{name:'w'}", "t.json5:1:1: workflow: field \"jobs\" is required"},
    {"jobs null", "t.json5", "{name:'w', jobs:null}",
     "t.json5:1:1: workflow: field \"jobs\" is required"},
    {"job name missing", "t.json5", "{name:'w', jobs:[{command:'x'}]}",
     "t.json5:1:18: jobs[0]: field \"name\" is required"},
    {"job command missing", "t.json5", "{name:'w', jobs:[{name:'a'}]}",
     "t.json5:1:18: jobs[0] \"a\": field \"command\" is required"},
    {"job command null", "t.json5", "{name:'w', jobs:[{name:'a', command:null}]}",
     "t.json5:1:18: jobs[0] \"a\": field \"command\" is required"},
    {"file path missing", "t.json5", "{name:'w', jobs:[], files:[{name:'f'}]}",
     "t.json5:1:28: files[0] \"f\": field \"path\" is required"},
    {"rr num_cpus missing", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', memory:'1g'}]}",
     "t.json5:1:44: resource_requirements[0] \"r\": field \"num_cpus\" is required"},
    {"rr memory missing", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:1}]}",
     "t.json5:1:44: resource_requirements[0] \"r\": field \"memory\" is required"},
    {"handler rules missing", "t.json5", "{name:'w', jobs:[], failure_handlers:[{name:'h'}]}",
     "t.json5:1:39: failure_handlers[0] \"h\": field \"rules\" is required"},
    {"scheduler account missing", "t.json5", "{name:'w', jobs:[], slurm_schedulers:[{name:'s'}]}",
     "t.json5:1:39: slurm_schedulers[0] \"s\": field \"account\" is required"},
    {"scheduler name missing", "t.json5", "{name:'w', jobs:[], slurm_schedulers:[{account:'a'}]}",
     "t.json5:1:39: slurm_schedulers[0]: field \"name\" is required (Torc 0.10 silently drops "
     "unnamed schedulers)"},
    {"user data name missing", "t.json5", "{name:'w', jobs:[], user_data:[{data:1}]}",
     "t.json5:1:32: user_data[0]: field \"name\" is required (Torc 0.10 silently drops unnamed "
     "user data)"},
    {"action trigger missing", "t.json5",
     "{name:'w', jobs:[], actions:[{action_type:'run_commands', commands:['x']}]}",
     "t.json5:1:30: actions[0]: field \"trigger_type\" is required"},
    {"action type missing", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start'}]}",
     "t.json5:1:30: actions[0]: field \"action_type\" is required"},
    {"string given a number", "t.json5", "{name:5, jobs:[]}",
     "t.json5:1:7: workflow: field \"name\" must be a string, found 5"},
    {"boolean given a string", "t.json5",
     "{name:'w', jobs:[{name:'a', command:'x', supports_termination:'yes'}]}",
     "t.json5:1:63: jobs[0] \"a\": field \"supports_termination\" must be true or false, found "
     "\"yes\""},
    {"integer given a float", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:4.0, memory:'1g'}]}",
     "t.json5:1:64: resource_requirements[0] \"r\": field \"num_cpus\" must be an integer from 0 "
     "to 9223372036854775807, found 4.0"},
    {"integer given a string", "t.json5",
     "{name:'w', jobs:[], compute_node_expiration_buffer_seconds:'2'}",
     "t.json5:1:60: workflow: field \"compute_node_expiration_buffer_seconds\" must be an integer "
     "from 0 to 9223372036854775807, found \"2\""},
    {"i32 out of range", "t.json5",
     "{name:'w', jobs:[], failure_handlers:[{name:'h', rules:[{max_retries:3000000000}]}]}",
     "t.json5:1:70: failure_handlers[0] \"h\" rules[0]: field \"max_retries\" must be an integer "
     "from 0 to 2147483647, found 3000000000"},
    {"negative cpus", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:-1, memory:'1g'}]}",
     "t.json5:1:64: resource_requirements[0] \"r\": field \"num_cpus\" must be an integer from 0 "
     "to 9223372036854775807, found -1"},
    {"zero nodes", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:1, memory:'1g', "
     "num_nodes:0}]}",
     "t.json5:1:90: resource_requirements[0] \"r\": field \"num_nodes\" must be an integer from 1 "
     "to 9223372036854775807, found 0"},
    {"zero tasks per node", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:1, memory:'1g', "
     "tasks_per_node:0}]}",
     "t.json5:1:95: resource_requirements[0] \"r\": field \"tasks_per_node\" must be an integer "
     "from 1 to 9223372036854775807, found 0"},
    {"uint64 too large", "t.json5",
     "{name:'w', jobs:[], compute_node_wait_for_new_jobs_seconds:18446744073709551615}",
     "t.json5:1:60: workflow: field \"compute_node_wait_for_new_jobs_seconds\" must be an integer "
     "from 0 to 9223372036854775807, found 18446744073709551615"},
    {"list element not a string", "t.json5",
     "{name:'w', jobs:[{name:'a', command:'x', depends_on:['b', 5]}]}",
     "t.json5:1:59: jobs[0] \"a\": field \"depends_on\" must be a list of strings, found 5 at "
     "index 1"},
    {"list given a string", "t.json5",
     "{name:'w', jobs:[{name:'a', command:'x', input_files:'f'}]}",
     "t.json5:1:54: jobs[0] \"a\": field \"input_files\" must be a list, found \"f\""},
    {"parameters not an object", "t.json5",
     "{name:'w', jobs:[{name:'a', command:'x', parameters:'i=1:3'}]}",
     "t.json5:1:53: jobs[0] \"a\": field \"parameters\" must be an object of parameter values "
     "such as \"1:10\", \"[1,2]\" or a list [1, 2], found \"i=1:3\""},
    {"workflow parameters a list", "w.yaml", "name: w\njobs: []\nparameters: [1, 2]\n",
     "w.yaml:3:13: workflow: field \"parameters\" must be an object of parameter values such as "
     "\"1:10\", \"[1,2]\" or a list [1, 2], found [1,2]"},
    {"exit code not an integer", "t.json5",
     "{name:'w', jobs:[], failure_handlers:[{name:'h', rules:[{exit_codes:[1, 2.5]}]}]}",
     "t.json5:1:73: failure_handlers[0] \"h\" rules[0]: field \"exit_codes\" must be a list of "
     "integers from -2147483648 to 2147483647, found 2.5 at index 1"},
    {"job not an object", "t.json5", "{name:'w', jobs:['a']}",
     "t.json5:1:18: jobs[0]: must be an object, found \"a\""},
    {"document not an object", "t.json5", "[1, 2]",
     "t.json5:1:1: workflow: must be an object, found [1,2]"},
    {"jobs not a list", "t.json5", "{name:'w', jobs:{}}",
     "t.json5:1:17: workflow: field \"jobs\" must be a list, found {}"},
    {"resource monitor not an object", "t.json5", "{name:'w', jobs:[], resource_monitor:true}",
     "t.json5:1:38: workflow: field \"resource_monitor\" must be an object, found true"},
    {"slurm_defaults not an object", "t.json5", "{name:'w', jobs:[], slurm_defaults:'x'}",
     "t.json5:1:36: workflow: field \"slurm_defaults\" must be an object, found \"x\""},
    {"jobs_sort_method unknown", "t.json5", "{name:'w', jobs:[], jobs_sort_method:'fastest'}",
     "t.json5:1:38: workflow: field \"jobs_sort_method\" must be one of \"gpus_runtime_memory\", "
     "\"gpus_memory_runtime\", \"none\", found \"fastest\""},
    {"granularity unknown", "t.json5",
     "{name:'w', jobs:[], resource_monitor:{granularity:'hourly'}}",
     "t.json5:1:51: resource_monitor: field \"granularity\" must be one of \"summary\", "
     "\"time_series\", found \"hourly\""},
    {"action type unknown", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start', action_type:'send_email'}]}",
     "t.json5:1:77: actions[0]: field \"action_type\" must be one of \"run_commands\", "
     "\"schedule_nodes\", found \"send_email\""},
    {"run_commands without commands", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start', "
     "action_type:'run_commands'}]}",
     "t.json5:1:30: actions[0]: a run_commands action needs a non-empty \"commands\" list"},
    {"run_commands with no commands", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start', action_type:'run_commands', "
     "commands:[]}]}",
     "t.json5:1:30: actions[0]: a run_commands action needs a non-empty \"commands\" list"},
    {"schedule_nodes without scheduler_type", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start', "
     "action_type:'schedule_nodes', scheduler:'s'}]}",
     "t.json5:1:30: actions[0]: a schedule_nodes action needs \"scheduler\" and "
     "\"scheduler_type\""},
    {"schedule_nodes without scheduler", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start', "
     "action_type:'schedule_nodes', scheduler_type:'slurm'}]}",
     "t.json5:1:30: actions[0]: a schedule_nodes action needs \"scheduler\" and "
     "\"scheduler_type\""},
    {"schedule_nodes with an unknown Slurm scheduler", "t.json5",
     "{name:'w', jobs:[], slurm_schedulers:[{name:'s', account:'a'}], "
     "actions:[{trigger_type:'on_workflow_start', action_type:'schedule_nodes', scheduler:'t', "
     "scheduler_type:'slurm'}]}",
     "t.json5:1:149: actions[0]: scheduler \"t\" names no slurm_schedulers entry"},
    {"num_allocations zero", "t.json5",
     "{name:'w', jobs:[], actions:[{trigger_type:'on_workflow_start', "
     "action_type:'schedule_nodes', scheduler:'t', scheduler_type:'local', num_allocations:0}]}",
     "t.json5:1:150: actions[0]: field \"num_allocations\" must be an integer from 1 to "
     "9223372036854775807, found 0"},
    {"rr named default", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'default', num_cpus:1, memory:'1g'}]}",
     "t.json5:1:50: resource_requirements[0] \"default\": the name \"default\" is reserved for the "
     "requirements the server creates with every workflow"},
    {"rr duplicate", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:1, memory:'1g'}, {name:'r', "
     "num_cpus:2, memory:'2g'}]}",
     "t.json5:1:87: resource_requirements[1] \"r\": the name \"r\" is already used by "
     "resource_requirements[0]"},
    {"handler duplicate", "t.json5",
     "{name:'w', jobs:[], failure_handlers:[{name:'h', rules:[]}, {name:'h', rules:[]}]}",
     "t.json5:1:67: failure_handlers[1] \"h\": the name \"h\" is already used by "
     "failure_handlers[0]"},
    {"scheduler duplicate", "t.json5",
     "{name:'w', jobs:[], slurm_schedulers:[{name:'s', account:'a'}, {name:'s', account:'b'}]}",
     "t.json5:1:70: slurm_schedulers[1] \"s\": the name \"s\" is already used by "
     "slurm_schedulers[0]"},
    {"memory invalid", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:1, memory:'1.5g'}]}",
     "t.json5:1:74: resource_requirements[0] \"r\": field \"memory\": memory: \"1.5g\" is not an "
     "integer followed by an optional k, m, g or t"},
    {"runtime invalid", "t.json5",
     "{name:'w', jobs:[], resource_requirements:[{name:'r', num_cpus:1, memory:'1g', runtime:'2 "
     "hours'}]}",
     "t.json5:1:88: resource_requirements[0] \"r\": field \"runtime\": duration: \"2 hours\" does "
     "not start with P (e.g. PT30M, P1DT12H)"},
    {"slurm_defaults forbidden", "t.json5",
     "{name:'w', jobs:[], slurm_defaults:{account:'a', 'Job-Name':'x'}}",
     "t.json5:1:50: slurm_defaults: key \"Job-Name\" is set per scheduler; slurm_defaults may not "
     "hold partition, nodes, walltime, time, mem, gres, name or job-name"},
    {"sample interval zero", "t.json5",
     "{name:'w', jobs:[], resource_monitor:{sample_interval_seconds:0}}",
     "t.json5:1:63: resource_monitor: field \"sample_interval_seconds\" must be an integer from 1 "
     "to 2147483647, found 0"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_model_errors)

BOOST_DATA_TEST_CASE(error_message, bdata::make(error_cases), c)
{
    BOOST_TEST(message_of(read(c.text, c.file_name)) == c.expected);
}

BOOST_AUTO_TEST_SUITE_END()
