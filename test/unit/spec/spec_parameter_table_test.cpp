// parameters_file tables (newer Torc, docs/TORC-COMPATIBILITY.md §4.4): the CSV, JSON and JSONL
// readings with each cell's type, every refusal of a table verbatim with its file and line, and
// the table keys of a spec (parameters_file, use_parameters_file) with Torc's exclusions, each
// refused at the spec's file:line:col. Tables come from an in-memory loader: no file I/O.
#include "spec_support.hpp"

#include "torcrun/spec/parameter_table.hpp"
#include "torcrun/spec/spec_limits.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <map>
#include <ostream>
#include <variant>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

// `a=i:1 b=f:2.5 c=s:x` per row, rows joined by " | ".
std::string describe(spec::parameter_table const& t)
{
    strings rows;
    for (auto const& row : t.rows) {
        strings cells;
        for (auto const& b : row) {
            auto const& v = b.value.v;
            std::string const text = std::holds_alternative<std::int64_t>(v)
                                         ? "i:" + spec::plain_form(b.value)
                                     : std::holds_alternative<double>(v)
                                         ? "f:" + spec::plain_form(b.value)
                                         : "s:" + std::get<std::string>(v);
            cells.push_back(b.name + "=" + text);
        }
        rows.push_back(join(cells, " "));
    }
    return join(rows, " | ");
}

struct table_case {
    std::string label;
    std::string path;
    std::string text;
    std::string expected;  // describe(), or the error
};
std::ostream& operator<<(std::ostream& os, table_case const& c) { return os << c.label; }

std::vector<table_case> const tables{
    {"csv cells typed integer, float, string", "t.csv", "a,b,c\n1,2.5,x\n-3,1e3,inf\n",
     "a=i:1 b=f:2.5 c=s:x | a=i:-3 b=f:1000 c=f:inf"},
    {"csv quotes, CRLF, blank lines and a BOM", "t.CSV",
     "\xEF\xBB\xBFname,cmd\r\n\r\n\"a,b\",\"say \"\"hi\"\"\"\r\n\"line\nbreak\",7\r\n",
     "name=s:a,b cmd=s:say \"hi\" | name=s:line\nbreak cmd=i:7"},
    {"csv cells are not trimmed", "t.csv", "k,v\n 5,x \n", "k=s: 5 v=s:x "},
    {"csv empty cells are empty strings", "t.csv", "k,v\n,\n", "k=s: v=s:"},
    {"csv without a final line end", "t.csv", "k\n1", "k=i:1"},
    {"csv row too short", "t.csv", "a,b,c\n1,2,3\n\n4,5\n",
     "t.csv:4: row 2 has 2 cells, the header has 3"},
    {"csv header only", "t.csv", "a,b\n",
     "t.csv: the table has no rows; a parameters_file needs at least one"},
    {"csv empty", "t.csv", "",
     "t.csv: the table has no rows; a parameters_file needs at least one"},
    {"json numbers keep their type, others become text", "t.json",
     R"([{"m": "resnet", "lr": 0.001, "bs": 32, "f": true, "n": null, "l": [1, 2],
          "o": {"z": 1, "a": "b"}, "s": "5"}])",
     "m=s:resnet lr=f:0.001 bs=i:32 f=s:true n=s:null l=s:[1,2] o=s:{\"a\":\"b\",\"z\":1} s=s:5"},
    {"json rows need not share keys", "t.json", R"([{"a": 1}, {"b": 2}])", "a=i:1 | b=i:2"},
    {"json not an array", "t.json", R"({"a": 1})",
     "t.json:1:1: a .json parameters_file must be an array of objects, found {\"a\":1}"},
    {"json element not an object", "t.json", "[{\"a\": 1},\n 5]",
     "t.json:2:2: element 1 must be an object of parameter values, found 5"},
    {"json empty array", "t.json", "[]",
     "t.json: the table has no rows; a parameters_file needs at least one"},
    {"json syntax error", "t.json", "[{\"a\": 1,}",
     "t.json:1:11: expected ',' or ']' after an array element, found end of input"},
    {"jsonl lines, blank ones skipped", "t.jsonl", "{\"a\": 1}\n\n  \n{\"a\": \"x\"}\n",
     "a=i:1 | a=s:x"},
    {"ndjson", "t.ndjson", "{\"a\": 2.5}", "a=f:2.5"},
    {"jsonl bad line", "t.jsonl", "{\"a\": 1}\n{\"a\": }\n",
     "t.jsonl:2:7: expected a value, found '}'"},
    {"jsonl line not an object", "t.jsonl", "{\"a\": 1}\n[1]\n",
     "t.jsonl:2: the line must be an object of parameter values, found [1]"},
    {"unknown extension", "t.tsv", "a\tb\n1\t2\n",
     "t.tsv: a parameters_file must be named .csv, .json, .jsonl or .ndjson"},
};

// Specs whose tables come from this map.
std::map<std::string, std::string> const files{
    {"sweep.csv", "model,lr\nresnet,0.001\nvit,0.0001\n"},
    {"tables/sweep.csv", "model,lr\nresnet,0.001\nvit,0.0001\n"},
    {"bad.csv", "model,lr\nresnet\n"},
    {"one.json", R"([{"k": 1}])"},
};

result<std::string> from_map(std::string const& path)
{
    auto const it = files.find(path);
    if (it == files.end())
        return torcrun::core::error{path + ": cannot read: No such file or directory"};
    return result<std::string>(boost::system::in_place_value, it->second);
}

result<spec::expanded_workflow> expand_with_tables(std::string const& text,
                                                   std::string const& name = "w.yaml")
{
    auto parsed = spec::read_spec(text, name, from_map);
    if (!parsed) return parsed.error();
    return spec::expand_workflow(*parsed);
}

struct spec_case {
    std::string label;
    std::string text;  // YAML
    std::string expected;  // job names joined by ",", or the error
};
std::ostream& operator<<(std::ostream& os, spec_case const& c) { return os << c.label; }

std::string const job = "jobs:\n  - name: t_{model}\n    command: run {model} {lr}\n";

std::vector<spec_case> const specs{
    {"a job's own table", "name: w\n" + job + "    parameters_file: sweep.csv\n",
     "t_resnet,t_vit"},
    {"the workflow's table, opted into", "name: w\nparameters_file: sweep.csv\n" + job +
     "    use_parameters_file: true\n  - name: once\n    command: x\n", "t_resnet,t_vit,once"},
    {"use_parameters_file false is no table", "name: w\nparameters_file: sweep.csv\n"
     "jobs:\n  - name: once\n    command: x\n    use_parameters_file: false\n", "once"},
    {"a table path with a variable", "name: w\nvariables: {dir: tables}\n" + job +
     "    parameters_file: \"{dir}/sweep.csv\"\n", "t_resnet,t_vit"},
    {"beside parameters", "name: w\n" + job + "    parameters_file: sweep.csv\n"
     "    parameters: {x: \"1:2\"}\n",
     "w.yaml:5:22: jobs[0] \"t_{model}\": field \"parameters_file\" cannot be combined with "
     "\"parameters\", \"parameter_mode\" or \"use_parameters\": the table gives the combinations "
     "itself"},
    {"beside parameter_mode", "name: w\n" + job + "    parameter_mode: zip\n"
     "    use_parameters_file: true\nparameters_file: sweep.csv\n",
     "w.yaml:6:26: jobs[0] \"t_{model}\": field \"use_parameters_file\" cannot be combined with "
     "\"parameters\", \"parameter_mode\" or \"use_parameters\": the table gives the combinations "
     "itself"},
    {"beside use_parameters", "name: w\n" + job + "    use_parameters: [lr]\n"
     "    parameters_file: sweep.csv\n",
     "w.yaml:6:22: jobs[0] \"t_{model}\": field \"parameters_file\" cannot be combined with "
     "\"parameters\", \"parameter_mode\" or \"use_parameters\": the table gives the combinations "
     "itself"},
    {"both table keys", "name: w\nparameters_file: sweep.csv\n" + job +
     "    parameters_file: sweep.csv\n    use_parameters_file: true\n",
     "w.yaml:7:26: jobs[0] \"t_{model}\": fields \"parameters_file\" and \"use_parameters_file\" "
     "exclude each other: give the entry one table"},
    {"opting into no workflow table", "name: w\n" + job + "    use_parameters_file: true\n",
     "w.yaml:5:26: jobs[0] \"t_{model}\": field \"use_parameters_file\" needs a workflow-level "
     "\"parameters_file\" to take the rows from"},
    {"two shared sources", "name: w\nparameters: {x: \"1:2\"}\nparameters_file: sweep.csv\n"
     "jobs: []\n",
     "w.yaml:3:18: workflow: fields \"parameters\" and \"parameters_file\" exclude each other: a "
     "workflow has one shared parameter source"},
    {"a missing table", "name: w\n" + job + "    parameters_file: none.csv\n",
     "w.yaml:5:22: jobs[0] \"t_{model}\": field \"parameters_file\": none.csv: cannot read: No "
     "such file or directory"},
    {"a malformed table", "name: w\n" + job + "    parameters_file: bad.csv\n",
     "w.yaml:5:22: jobs[0] \"t_{model}\": field \"parameters_file\": bad.csv:2: row 1 has 1 "
     "cell, the header has 2"},
    {"a missing shared table, named where it is given", "name: w\nparameters_file: none.csv\n"
     "jobs:\n  - name: a\n    command: x\n    use_parameters_file: true\n",
     "w.yaml:2:18: workflow: field \"parameters_file\": none.csv: cannot read: No such file or "
     "directory"},
    {"a shared table nobody uses is not read", "name: w\nparameters_file: none.csv\njobs: []\n",
     ""},
    {"repeated names are refused with a table",
     "name: w\njobs:\n  - name: m\n    command: x\n    parameters_file: sweep.csv\n",
     "w.yaml:3:5: jobs[0] \"m\": expansions 1 and 2 of this entry are both named \"m\"; names "
     "must be unique after expansion (for a fan-in, drop the waiting job's parameters and use "
     "depends_on_regexes), as newer Torc requires of a spec with its keys (here "
     "\"parameters_file\" at w.yaml:5:5)"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_parameter_table)

BOOST_DATA_TEST_CASE(tables_read_as_torc_reads_them, bdata::make(tables), c)
{
    auto const t = spec::parse_parameter_table(c.text, c.path);
    BOOST_TEST((t ? describe(*t) : t.error().message) == c.expected);
}

BOOST_AUTO_TEST_CASE(columns_in_first_seen_order)
{
    auto const t = spec::parse_parameter_table("[{\"b\": 1, \"a\": 2}, {\"c\": 3, \"a\": 4}]",
                                               "t.json");
    BOOST_TEST_REQUIRE(message_of(t) == "ok");
    BOOST_TEST(join(t->columns) == "b,a,c");
}

BOOST_AUTO_TEST_CASE(bounded_rows_and_size)
{
    std::string csv = "k\n";
    for (std::size_t i = 0; i <= spec::max_combinations; ++i) csv.append("1\n");
    BOOST_TEST(message_of(spec::parse_parameter_table(csv, "big.csv")) ==
               "big.csv:1000002: more than 1000000 rows, torcrun's limit on the combinations of "
               "one entry");
    std::string const huge(spec::max_parameter_table_bytes + 1, '1');
    BOOST_TEST(message_of(spec::parse_parameter_table(huge, "huge.csv")) ==
               "huge.csv: larger than 67108864 bytes, torcrun's limit on a parameters_file");
}

BOOST_DATA_TEST_CASE(table_keys_in_a_spec, bdata::make(specs), c)
{
    auto const w = expand_with_tables(c.text);
    BOOST_TEST((w ? join(job_names(w->jobs)) : w.error().message) == c.expected);
}

BOOST_AUTO_TEST_CASE(rows_bind_typed_values)
{
    auto const w = expand_with_tables("name: w\n" + job + "    parameters_file: sweep.csv\n"
                                      "files:\n  - name: f_{k:03d}\n    path: /d/{k}\n"
                                      "    parameters_file: one.json\n"
                                      "user_data:\n  - name: u_{model}\n    data: {lr: \"{lr:.2f}\"}\n"
                                      "    parameters_file: sweep.csv\n");
    BOOST_TEST_REQUIRE(message_of(w) == "ok");
    BOOST_TEST(w->jobs[1].command == "run vit 0.0001");
    BOOST_TEST(w->files[0].name == "f_001");
    BOOST_TEST(w->user_data[0].name == "u_resnet");
    BOOST_TEST(w->user_data[0].data->at("lr").as_string() == "0.00");
}

BOOST_AUTO_TEST_CASE(without_a_loader_a_table_is_refused)
{
    BOOST_TEST(message_of(read("name: w\n" + job + "    parameters_file: sweep.csv\n", "w.yaml")) ==
               "w.yaml:5:22: jobs[0] \"t_{model}\": field \"parameters_file\": sweep.csv: cannot "
               "read: no table reader was given");
}

BOOST_AUTO_TEST_SUITE_END()
