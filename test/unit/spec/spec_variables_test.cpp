// Workflow `variables` (newer Torc, docs/TORC-COMPATIBILITY.md §4.5): constants substituted into
// every string of the spec before parameters expand, with Torc's rules for what is left alone
// (`${...}`, non-identifier braces, `parameters` keys, `use_parameters`), and each refusal
// verbatim at its file:line:col: bad names and values, references inside values, names shared
// with parameters or table columns, and `{name}` tokens that are neither.
#include "spec_support.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

struct variable_case {
    std::string label;
    std::string file_name;
    std::string text;
    std::string expected;  // `name: command` per job joined by " | ", or the error
};
std::ostream& operator<<(std::ostream& os, variable_case const& c) { return os << c.label; }

std::string describe_jobs(result<spec::expanded_workflow> const& w)
{
    if (!w) return w.error().message;
    strings out;
    for (auto const& j : w->jobs) out.push_back(j.name + ": " + j.command);
    return join(out, " | ");
}

result<std::string> one_table(std::string const& path)
{
    if (path == "cols.csv")
        return result<std::string>(boost::system::in_place_value, "lr,model\n0.1,a\n");
    return torcrun::core::error{path + ": cannot read: No such file or directory"};
}

std::vector<variable_case> const accepted{
    {"into names, commands and parameter values", "w.yaml",
     "name: w\nvariables: {root: /s, n: \"3\"}\njobs:\n  - name: t_{i}\n"
     "    command: run {root}/in {i}\n    parameters: {i: \"2:{n}\"}\n",
     "t_2: run /s/in 2 | t_3: run /s/in 3"},
    {"shell forms stay", "w.yaml",
     "name: w\nvariables: {HOME: /h, f: x}\nfiles:\n  - {name: f, path: /p}\njobs:\n"
     "  - name: a\n    command: echo ${HOME} {HOME} ${files.input.f}\n",
     "a: echo ${HOME} /h /p"},
    {"a format spec prints the value as it is", "t.json5",
     "{name:'w', variables:{v:'7'}, jobs:[{name:'a', command:'x {v:03d}'}]}", "a: x 7"},
    {"braces that name nothing are left", "t.json5",
     "{name:'w', variables:{v:'1'}, jobs:[{name:'a', command:'find . -exec rm {} \\\\; "
     "{\"k\": 1} {1}'}]}",
     "a: find . -exec rm {} \\; {\"k\": 1} {1}"},
    {"parameter keys and use_parameters are names", "w.yaml",
     "name: w\nvariables: {x: y}\nparameters: {p: \"[{x}]\"}\njobs:\n  - name: a_{p}\n"
     "    command: a\n    use_parameters: [p]\n",
     "a_y: a"},
    {"native list items are substituted", "w.yaml",
     "name: w\nvariables: {x: y}\njobs:\n  - name: a_{p}\n    command: a\n"
     "    parameters: {p: [\"{x}1\", \"{x}2\"]}\n",
     "a_y1: a | a_y2: a"},
    {"table columns are valid names", "w.yaml",
     "name: w\nvariables: {x: y}\njobs:\n  - name: a_{model}\n    command: a {lr} {x}\n"
     "    parameters_file: cols.csv\n",
     "a_a: a 0.1 y"},
    {"an empty map checks nothing", "t.json5",
     "{name:'w', variables:{}, jobs:[{name:'a', command:'x {typo}'}]}", "a: x {typo}"},
    {"a shell reference in a value is kept", "t.json5",
     "{name:'w', variables:{d:'${HOME}/d'}, jobs:[{name:'a', command:'ls {d}'}]}",
     "a: ls ${HOME}/d"},
};

std::vector<variable_case> const refused{
    {"a name that is no identifier", "w.yaml",
     "name: w\nvariables:\n  data-root: /s\njobs: []\n",
     "w.yaml:3:3: workflow: variables: \"data-root\" is not a valid name "
     "([A-Za-z_][A-Za-z0-9_]*)"},
    {"a value that is no string", "w.yaml", "name: w\nvariables:\n  n: 5\njobs: []\n",
     "w.yaml:3:6: workflow: variables: the value of \"n\" must be a string, found 5"},
    {"variables not an object", "t.json5", "{name:'w', variables:['a'], jobs:[]}",
     "t.json5:1:12: workflow: field \"variables\" must be an object of strings, found [\"a\"]"},
    {"variables null", "w.yaml", "name: w\nvariables:\njobs: []\n",
     "w.yaml:2:1: workflow: field \"variables\" must be an object of strings, found null"},
    {"a name shared with a job's parameter", "w.yaml",
     "name: w\nvariables:\n  i: \"1\"\njobs:\n  - name: a_{i}\n    command: a\n"
     "    parameters:\n      i: \"1:2\"\n",
     "w.yaml:8:7: jobs[0] parameters key \"i\" is also the name of a workflow variable "
     "(w.yaml:3:3); rename the one or the other"},
    {"a name shared with a workflow parameter", "t.json5",
     "{name:'w', parameters:{lr:'[1]'}, variables:{lr:'1'}, jobs:[]}",
     "t.json5:1:24: parameters key \"lr\" is also the name of a workflow variable (t.json5:1:46); "
     "rename the one or the other"},
    {"a name shared with a table column", "w.yaml",
     "name: w\nvariables: {lr: \"1\"}\njobs:\n  - name: a_{model}\n    command: a\n"
     "    parameters_file: cols.csv\n",
     "w.yaml:6:22: jobs[0] parameters_file column of cols.csv \"lr\" is also the name of a "
     "workflow variable (w.yaml:2:13); rename the one or the other"},
    {"a value referring to a variable", "w.yaml",
     "name: w\nvariables:\n  base: /s\n  sub: \"{base}/x\"\njobs: []\n",
     "w.yaml:4:8: workflow: variables: the value of \"sub\" refers to the variable {base}; a "
     "variable's value must be a literal string (compose at the use site; ${...} is kept)"},
    {"a value holding another reference", "w.yaml",
     "name: w\nvariables:\n  sub: \"{i:02d}/x\"\njobs: []\n",
     "w.yaml:3:8: workflow: variables: the value of \"sub\" holds the template reference "
     "{i:02d}; a variable's value must be a literal string (compose at the use site; ${...} is "
     "kept)"},
    {"an undefined name in a command", "w.yaml",
     "name: w\nvariables: {root: /s}\njobs:\n  - name: a\n    command: run {rot}/x\n",
     "w.yaml:5:14: jobs[0] command: undefined template name {rot} in \"run {rot}/x\": neither a "
     "workflow variable nor a parameter (add it to \"variables\" or fix the typo)"},
    {"an undefined name deep in user data", "t.json5",
     "{name:'w', variables:{a:'1'}, user_data:[{name:'u', data:{k:['{b:x}']}}], jobs:[]}",
     "t.json5:1:62: user_data[0] data k[0]: undefined template name {b:x} in \"{b:x}\": neither a "
     "workflow variable nor a parameter (add it to \"variables\" or fix the typo)"},
    {"repeated names are refused once variables are used", "t.json5",
     "{name:'w', variables:{c:'x'}, jobs:[{name:'m', command:'{c}', parameters:{i:'1:2'}}]}",
     "t.json5:1:37: jobs[0] \"m\": expansions 1 and 2 of this entry are both named \"m\"; names "
     "must be unique after expansion (for a fan-in, drop the waiting job's parameters and use "
     "depends_on_regexes), as newer Torc requires of a spec with its keys (here \"variables\" at "
     "t.json5:1:12)"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_variables)

BOOST_DATA_TEST_CASE(substituted, bdata::make(accepted), c)
{
    auto parsed = spec::read_spec(c.text, c.file_name, one_table);
    BOOST_TEST_REQUIRE(message_of(parsed) == "ok");
    BOOST_TEST(describe_jobs(spec::expand_workflow(*parsed)) == c.expected);
}

BOOST_DATA_TEST_CASE(refused_with_place_and_reason, bdata::make(refused), c)
{
    auto parsed = spec::read_spec(c.text, c.file_name, one_table);
    auto const message = parsed ? message_of(spec::plan_spec(*parsed, {})) : parsed.error().message;
    BOOST_TEST(message == c.expected);
}

BOOST_AUTO_TEST_CASE(every_string_field_takes_them)
{
    auto const p = plan("name: w\ndescription: \"{p} work\"\nvariables: {p: proj, acct: a1}\n"
                        "env: {P: \"{p}\"}\njobs:\n  - name: a\n    command: x\n"
                        "    scheduler: s\n    env: {Q: \"{p}-q\"}\n"
                        "slurm_schedulers:\n  - {name: s, account: \"{acct}\"}\n"
                        "slurm_defaults: {mail-user: \"{p}@x\"}\n"
                        "actions:\n  - {trigger_type: on_workflow_start, action_type: run_commands,"
                        " commands: [\"echo {p}\"]}\n",
                        {}, "w.yaml");
    BOOST_TEST_REQUIRE(message_of(p) == "ok");
    BOOST_TEST(or_none(p->workflow.description) == "proj work");
    BOOST_TEST(boost::json::serialize(*p->workflow.env) == R"({"P":"proj"})");
    BOOST_TEST(p->jobs[0].env[0].second == "proj-q");
    BOOST_TEST(p->slurm_schedulers[0].account == "a1");
    BOOST_TEST(or_none(p->workflow.slurm_defaults) == R"({"mail-user":"proj@x"})");
    BOOST_TEST(join(p->actions[0].commands) == "echo proj");
}

BOOST_AUTO_TEST_SUITE_END()
