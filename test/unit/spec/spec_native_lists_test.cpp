// Parameters written as native lists (newer Torc, docs/TORC-COMPATIBILITY.md §4.4): in YAML,
// JSON and JSON5 a value that is not a string is read as its serde_json text by the string
// grammar, as Torc's deserialize_parameter_map does, so `[a, b]`, `[1, 5]`, `[0.1, 0.5]` and
// mixed lists expand and format exactly as their string forms. A spec using one is read by newer
// Torc's rules (a repeated expanded name is refused).
#include "spec_support.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

struct list_case {
    std::string label;
    std::string file_name;
    std::string text;
    std::string names;     // the expanded jobs' names, joined by ","
    std::string commands;  // their commands, joined by "|"
};
std::ostream& operator<<(std::ostream& os, list_case const& c) { return os << c.label; }

std::string commands_of(spec::expanded_workflow const& w)
{
    strings out;
    for (auto const& j : w.jobs) out.push_back(j.command);
    return join(out, "|");
}

std::vector<list_case> const lists{
    {"yaml strings", "w.yaml",
     "name: w\njobs:\n  - name: process_{dataset}\n    command: p {dataset}\n    parameters:\n"
     "      dataset: [train, test, validation]\n",
     "process_train,process_test,process_validation", "p train|p test|p validation"},
    {"yaml integers with a width", "w.yaml",
     "name: w\njobs:\n  - name: c_{i:03d}\n    command: c {i}\n    parameters:\n"
     "      i: [1, 5, 10]\n",
     "c_001,c_005,c_010", "c 1|c 5|c 10"},
    {"yaml floats with a precision", "w.yaml",
     "name: w\njobs:\n  - name: t{lr:.4f}\n    command: t --lr={lr}\n    parameters:\n"
     "      lr: [0.0001, 0.001, 0.01]\n",
     "t0.0001,t0.0010,t0.0100", "t --lr=0.0001|t --lr=0.001|t --lr=0.01"},
    {"yaml integral floats stay floats", "w.yaml",
     "name: w\njobs:\n  - name: a_{x:.1f}\n    command: a {x}\n    parameters:\n"
     "      x: [1.0, 2.5]\n",
     "a_1.0,a_2.5", "a 1|a 2.5"},
    {"yaml product of a list and a string range", "w.yaml",
     "name: w\njobs:\n  - name: a_{r}_{y}\n    command: a\n    parameters:\n"
     "      r: [north, south]\n      y: \"2020:2021\"\n",
     "a_north_2020,a_north_2021,a_south_2020,a_south_2021", "a|a|a|a"},
    {"json zip", "w.json",
     R"({"name": "w", "jobs": [{"name": "t_{d}_{m}", "command": "t {d} {m}",
         "parameters": {"d": ["cifar10", "mnist"], "m": ["resnet", "cnn"]},
         "parameter_mode": "zip"}]})",
     "t_cifar10_resnet,t_mnist_cnn", "t cifar10 resnet|t mnist cnn"},
    {"json5 mixed", "w.json5", "{name:'w', jobs:[{name:'a_{v}', command:'a {v}', "
                               "parameters:{v:[1, 2.5, 'x', -3]}}]}",
     "a_1,a_2.5,a_x,a_-3", "a 1|a 2.5|a x|a -3"},
    {"json5 number alone", "w.json5",
     "{name:'w', jobs:[{name:'a_{i:02d}', command:'a', parameters:{i:5}}]}", "a_05", "a"},
    {"yaml boolean and null are strings", "w.yaml",
     "name: w\njobs:\n  - name: a_{f}_{n}\n    command: a\n    parameters:\n"
     "      f: true\n      n: null\n",
     "a_true_null", "a"},
    // Torc splits the serde_json text on every comma, as it splits a string list.
    {"a comma inside an item splits it, as in Torc", "w.json",
     R"({"name": "w", "jobs": [{"name": "a_{v}", "command": "a",
         "parameters": {"v": ["x,y", "z"]}}]})",
     "a_x,a_y,a_z", "a|a|a"},
    // serde_json quotes the string "1", so the item is no integer: Torc keeps it a string.
    {"a quoted number stays a string, as in Torc", "w.yaml",
     "name: w\njobs:\n  - name: a_{x:03d}\n    command: a\n    parameters:\n"
     "      x: [\"1\", 2]\n",
     "a_1,a_002", "a|a"},
    {"nested brackets are stripped, as in Torc", "w.json5",
     "{name:'w', jobs:[{name:'a_{v}', command:'a', parameters:{v:[[1, 2], 3]}}]}",
     "a_1,a_2],a_3", "a|a|a"},
    {"an empty list expands to nothing", "w.yaml",
     "name: w\njobs:\n  - name: a_{v}\n    command: a\n    parameters:\n      v: []\n", "", ""},
    {"workflow pool taken by use_parameters", "w.yaml",
     "name: w\nparameters:\n  s: [1, 2]\njobs:\n  - name: g_{s}\n    command: g {s}\n"
     "    use_parameters: [s]\n",
     "g_1,g_2", "g 1|g 2"},
    {"a string list beside a native one", "w.yaml",
     "name: w\njobs:\n  - name: a_{p}_{q}\n    command: a\n    parameters:\n"
     "      p: \"['x','y']\"\n      q: [1]\n",
     "a_x_1,a_y_1", "a|a"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_native_lists)

BOOST_DATA_TEST_CASE(expand_as_their_string_forms, bdata::make(lists), c)
{
    auto const w = expand(c.text, c.file_name);
    BOOST_TEST_REQUIRE(message_of(w) == "ok");
    BOOST_TEST(join(job_names(w->jobs)) == c.names);
    BOOST_TEST(commands_of(*w) == c.commands);
}

BOOST_AUTO_TEST_CASE(user_data_and_files_take_native_lists)
{
    auto const w = expand("name: w\nuser_data:\n  - name: cfg_{e}\n    data: {e: \"{e}\"}\n"
                          "    parameters:\n      e: [base, full]\nfiles:\n  - name: f_{k}\n"
                          "    path: /d/{k}.csv\n    parameters:\n      k: [1, 2]\njobs: []\n",
                          "w.yaml");
    BOOST_TEST_REQUIRE(message_of(w) == "ok");
    BOOST_TEST_REQUIRE(w->user_data.size() == 2u);
    BOOST_TEST(w->user_data[1].name == "cfg_full");
    BOOST_TEST_REQUIRE(w->files.size() == 2u);
    BOOST_TEST(w->files[1].path == "/d/2.csv");
}

BOOST_AUTO_TEST_CASE(the_string_form_keeps_v0_10_rules)
{
    auto const planned = plan("{name:'w', jobs:[{name:'m', command:'c', parameters:{i:'[1,2]'}}]}");
    BOOST_TEST_REQUIRE(message_of(planned) == "ok");
    BOOST_TEST(planned->jobs.size() == 1u);
    BOOST_TEST(planned->jobs[0].copies == 2u);
}

// Newer Torc replaces every `{p}` and `{p:fmt}` as torcrun does: no comparison with Torc 0.10.
BOOST_AUTO_TEST_CASE(no_torc_0_10_substitution_warning_with_newer_rules)
{
    auto const newer = plan("{name:'w', jobs:[{name:'a_{i:02d}', command:'a {i}', "
                            "parameters:{i:[1, 2]}}]}");
    BOOST_TEST_REQUIRE(message_of(newer) == "ok");
    BOOST_TEST(join(newer->warnings) == "");
    auto const v0_10 = plan("{name:'w', jobs:[{name:'a_{i:02d}', command:'a {i:02d} {i}', "
                            "parameters:{i:'[1, 2]'}}]}");
    BOOST_TEST_REQUIRE(message_of(v0_10) == "ok");
    BOOST_TEST(join(v0_10->warnings) ==
               "jobs[0] \"a_{i:02d}\": template \"a {i:02d} {i}\": Torc 0.10 would leave \"{i}\" "
               "literal here; torcrun substitutes it");
}

BOOST_AUTO_TEST_CASE(a_native_list_makes_repeated_names_an_error)
{
    BOOST_TEST(message_of(plan("{name:'w', jobs:[{name:'m', command:'c', parameters:{i:[1,2]}}]}"))
               == "t.json5:1:18: jobs[0] \"m\": expansions 1 and 2 of this entry are both named "
                  "\"m\"; names must be unique after expansion (for a fan-in, drop the waiting "
                  "job's parameters and use depends_on_regexes), as newer Torc requires of a "
                  "spec with its keys (here a native list in \"parameters\" at t.json5:1:56)");
    BOOST_TEST(message_of(plan("name: w\nparameters:\n  i: [1, 2]\njobs:\n  - name: m\n"
                               "    command: c\n    use_parameters: [i]\n",
                               {}, "w.yaml"))
               == "w.yaml:5:5: jobs[0] \"m\": expansions 1 and 2 of this entry are both named "
                  "\"m\"; names must be unique after expansion (for a fan-in, drop the waiting "
                  "job's parameters and use depends_on_regexes), as newer Torc requires of a "
                  "spec with its keys (here a native list in \"parameters\" at w.yaml:3:6)");
}

BOOST_AUTO_TEST_SUITE_END()
