// Reading spec files (docs/TORC-COMPATIBILITY.md §4.1): format by extension, strict JSON for
// `.json`, YAML scalars typed as serde_yaml 0.9 types them, anchors, positions in messages, and the
// fallback for unknown extensions.
#include "spec_support.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

struct format_case {
    std::string file_name;
    std::string expected;  // "json", "json5", "yaml", "kdl", "try all", or the error
};
std::ostream& operator<<(std::ostream& os, format_case const& c)
{
    return os << c.file_name;
}

std::string format_text(std::string const& file_name)
{
    auto const format = spec::format_of(file_name);
    if (!format) return format.error().message;
    if (!*format) return "try all";
    switch (**format) {
    case spec::spec_format::json: return "json";
    case spec::spec_format::json5: return "json5";
    case spec::spec_format::yaml: return "yaml";
    case spec::spec_format::kdl: return "kdl";
    }
    return "?";
}

std::vector<format_case> const format_cases{
    {"spec.json", "json"},
    {"SPEC.JSON", "json"},
    {"dir/spec.json5", "json5"},
    {"spec.Json5", "json5"},
    {"spec.yaml", "yaml"},
    {"spec.YML", "yaml"},
    {"spec.txt", "try all"},
    {"spec", "try all"},
    {"dir.v2/spec", "try all"},
    {".json", "try all"},
    {"spec.kdl", "kdl"},
    {"dir/SPEC.KDL", "kdl"},
};

struct scalar_case {
    std::string yaml;      // the value of `v:`
    std::string expected;  // "kind serialized", or the error
};
std::ostream& operator<<(std::ostream& os, scalar_case const& c)
{
    return os << c.yaml;
}

std::string describe_v(std::string const& yaml_value)
{
    auto const doc = spec::read_yaml_document("v: " + yaml_value + "\n", "t.yaml");
    if (!doc) return doc.error().message;
    auto const& v = doc->root().at("v");
    char const* kind = v.is_null()     ? "null"
                       : v.is_bool()   ? "bool"
                       : v.is_int64()  ? "int64"
                       : v.is_uint64() ? "uint64"
                       : v.is_double() ? "double"
                       : v.is_string() ? "string"
                       : v.is_array()  ? "array"
                                       : "object";
    return std::string(kind) + " " + boost::json::serialize(v);
}

// serde_yaml 0.9's visit_untagged_str and tag handling, case by case.
std::vector<scalar_case> const scalar_cases{
    {"~", "null null"},
    {"null", "null null"},
    {"", "null null"},
    {"Null", "string \"Null\""},
    {"NULL", "string \"NULL\""},
    {"true", "bool true"},
    {"false", "bool false"},
    {"True", "string \"True\""},
    {"yes", "string \"yes\""},
    {"on", "string \"on\""},
    {"5", "int64 5"},
    {"+5", "int64 5"},
    {"-5", "int64 -5"},
    {"0", "int64 0"},
    {"007", "string \"007\""},
    {"-007", "string \"-007\""},
    {"0x1F", "int64 31"},
    {"+0x1F", "int64 31"},
    {"0x+1F", "int64 31"},
    {"-0x10", "int64 -16"},
    {"0o17", "int64 15"},
    {"0b101", "int64 5"},
    {"-0b11", "int64 -3"},
    {"0xZZ", "string \"0xZZ\""},
    {"9223372036854775807", "int64 9223372036854775807"},
    {"9223372036854775808", "uint64 9223372036854775808"},
    {"-9223372036854775808", "int64 -9223372036854775808"},
    {"99999999999999999999",
     "t.yaml:1:4: the integer 99999999999999999999 does not fit in 64 bits"},
    {"1.5", "double 1.5E0"},
    {"1e3", "double 1E3"},
    {".5", "double 5E-1"},
    {"5.", "double 5E0"},
    {"-2.5E-3", "double -2.5E-3"},
    {".inf", "null null"},
    {"+.inf", "null null"},
    {"-.Inf", "null null"},
    {".NaN", "null null"},
    {"inf", "string \"inf\""},
    {"nan", "string \"nan\""},
    {"1_000", "string \"1_000\""},
    {"12:30:00", "string \"12:30:00\""},
    {"2g", "string \"2g\""},
    {"PT30M", "string \"PT30M\""},
    {"\"5\"", "string \"5\""},
    {"'true'", "string \"true\""},
    {"\"\"", "string \"\""},
    {"!!str 5", "string \"5\""},
    {"!!int \"7\"", "int64 7"},
    {"!!float 1", "double 1E0"},
    {"!!bool true", "bool true"},
    {"!!bool yes", "t.yaml:1:4: !!bool \"yes\" is not a boolean"},
    {"!!int 1.5", "t.yaml:1:4: !!int \"1.5\" is not an integer"},
    {"!!float x", "t.yaml:1:4: !!float \"x\" is not a float"},
    {"!!null x", "t.yaml:1:4: !!null \"x\" is not null"},
    {"!!null ~", "null null"},
    {"!custom 5", "string \"5\""},
    {"[1, '1:3', [2]]", "array [1,\"1:3\",[2]]"},
    {"{b: 1, a: x}", "object {\"b\":1,\"a\":\"x\"}"},
    {"|\n  line\n", "string \"line\\n\""},
    {">-\n  a\n  b\n", "string \"a b\""},
};

struct document_case {
    std::string label;
    std::string file_name;
    std::string text;
    std::string expected;  // the root serialized, or the error
};
std::ostream& operator<<(std::ostream& os, document_case const& c)
{
    return os << c.label;
}

std::string root_text(std::string const& text, std::string const& file_name)
{
    auto const doc = spec::read_spec_document(text, file_name);
    return doc ? boost::json::serialize(doc->root()) : doc.error().message;
}

std::vector<document_case> const document_cases{
    {"YAML anchors and aliases", "t.yaml", "a: &x {k: [1]}\nb: *x\n",
     "{\"a\":{\"k\":[1]},\"b\":{\"k\":[1]}}"},
    {"YAML repeated key: the last wins", "t.yaml", "a: 1\na: 2\n", "{\"a\":2}"},
    {"YAML keys are text whatever their type", "t.yaml", "1: a\ntrue: b\n~: c\n",
     "{\"1\":\"a\",\"true\":\"b\",\"~\":\"c\"}"},
    {"YAML empty value before a key named Null", "t.yaml", "a:\nNull: 1\n",
     "{\"a\":null,\"Null\":1}"},
    {"YAML empty document", "t.yaml", "", "null"},
    {"YAML comment only", "t.yaml", "# nothing\n", "null"},
    {"YAML two documents", "t.yaml", "a: 1\n---\nb: 2\n",
     "t.yaml:2:1: a spec is one YAML document; a second one starts here"},
    {"YAML mapping key that is a sequence", "t.yaml", "? [1]\n: 2\n",
     "t.yaml:1:3: a YAML mapping key must be a scalar"},
    {"YAML syntax error", "t.yaml", "a: [1,\n", "t.yaml:2:1: end of sequence flow not found"},
    {"YAML alias to a sequence as a key", "t.yaml", "a: &x [1]\n*x : 2\n",
     "t.yaml:2:1: a YAML mapping key must be a scalar"},
    {"JSON strict", "t.json", "{\"a\": [1, 2.5, \"x\"]}", "{\"a\":[1,2.5E0,\"x\"]}"},
    {"JSON with a comment", "t.json", "{\"a\": 1, // no\n\"b\": 2}",
     "t.json:1:10: not strict JSON, which Torc requires of a .json file (comments, trailing "
     "commas, single quotes, unquoted keys and the like are JSON5: name the file .json5)"},
    {"JSON with a trailing comma", "t.json", "{\"a\": [1,]}",
     "t.json:1:10: not strict JSON, which Torc requires of a .json file (comments, trailing "
     "commas, single quotes, unquoted keys and the like are JSON5: name the file .json5)"},
    {"JSON with an unquoted key", "t.json", "{\n  a: 1}",
     "t.json:2:3: not strict JSON, which Torc requires of a .json file (comments, trailing "
     "commas, single quotes, unquoted keys and the like are JSON5: name the file .json5)"},
    {"JSON syntax error", "t.json", "{\"a\" 1}",
     "t.json:1:6: expected ':' after an object key, found a number"},
    {"JSON5 with comments, a trailing comma and unquoted keys", "t.json5",
     "// lead\n{a: 'x', /* c */ b: [1,],}", "{\"a\":\"x\",\"b\":[1]}"},
    {"unknown extension: JSON5 first", "spec.txt", "{a: 1}", "{\"a\":1}"},
    {"unknown extension: YAML next", "spec.txt", "a: 1\nb: [x]\n", "{\"a\":1,\"b\":[\"x\"]}"},
    {"unknown extension: JSON5 reads JSON numbers, YAML would not", "spec", "{\"a\": 0x10}",
     "{\"a\":16}"},
    {"unknown extension: neither", "spec", "a: [1\n",
     "spec: is neither JSON5 (spec:1:1: expected a value, found 'a') nor YAML (spec:2:1: end of "
     "sequence flow not found) nor KDL (spec:1:4: expected a value, found '[')"},
};

struct position_case {
    std::string label;
    std::string file_name;
    std::string text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, position_case const& c)
{
    return os << c.label;
}

std::vector<position_case> const position_cases{
    {"YAML unknown field points at its key", "t.yaml",
     "name: w\njobs:\n  - name: a\n    command: x\n    comand: y\n",
     "t.yaml:5:5: jobs[0] \"a\": field \"comand\" is unknown (did you mean \"command\"?)"},
    {"YAML wrong type points at the value", "t.yaml",
     "name: w\njobs: []\nresource_requirements:\n  - name: r\n    num_cpus: 4.0\n    memory: 2g\n",
     "t.yaml:5:15: resource_requirements[0] \"r\": field \"num_cpus\" must be an integer from 0 "
     "to 9223372036854775807, found 4.0"},
    {"YAML missing field points at the entry", "t.yaml", "name: w\njobs:\n  - name: a\n",
     "t.yaml:3:5: jobs[0] \"a\": field \"command\" is required"},
    {"YAML value reached through an alias: the alias's position", "t.yaml",
     "name: w\njobs: []\nresource_requirements:\n  - &r {name: r, num_cpus: 1, memory: 1g}\n  - "
     "*r\n",
     "t.yaml:5:5: resource_requirements[1] \"r\": the name \"r\" is already used by "
     "resource_requirements[0]"},
    {"YAML yes is a string, not a boolean", "t.yaml",
     "name: w\njobs:\n  - name: a\n    command: x\n    supports_termination: yes\n",
     "t.yaml:5:27: jobs[0] \"a\": field \"supports_termination\" must be true or false, found "
     "\"yes\""},
    {"JSON position of a nested value", "t.json",
     "{\"name\": \"w\",\n \"jobs\": [\n  {\"name\": \"a\", \"command\": 5}]}",
     "t.json:3:28: jobs[0] \"a\": field \"command\" must be a string, found 5"},
    {"YAML block scalar keeps its final newline", "t.yaml",
     "name: w\njobs:\n  - name: a\n    command: |\n      echo x\n    bogus: 1\n",
     "t.yaml:6:5: jobs[0] \"a\": field \"bogus\" is unknown"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_reader)

BOOST_DATA_TEST_CASE(format_by_extension, bdata::make(format_cases), c)
{
    BOOST_TEST(format_text(c.file_name) == c.expected);
}

BOOST_DATA_TEST_CASE(yaml_scalar, bdata::make(scalar_cases), c)
{
    BOOST_TEST(describe_v(c.yaml) == c.expected);
}

BOOST_DATA_TEST_CASE(document, bdata::make(document_cases), c)
{
    BOOST_TEST(root_text(c.text, c.file_name) == c.expected);
}

BOOST_DATA_TEST_CASE(position_in_message, bdata::make(position_cases), c)
{
    BOOST_TEST(message_of(read(c.text, c.file_name)) == c.expected);
}

BOOST_AUTO_TEST_CASE(yaml_block_scalar_command)
{
    auto const parsed =
        read("name: w\njobs:\n  - name: a\n    command: |\n      echo x\n", "t.yaml");
    BOOST_TEST_REQUIRE(message_of(parsed) == "ok");
    BOOST_TEST(parsed->jobs[0].command == "echo x\n");
}

BOOST_AUTO_TEST_CASE(the_same_spec_in_three_formats)
{
    std::string const json = R"({"name": "w", "jobs": [{"name": "a_{i}", "command": "run {i}",
        "parameters": {"i": "1:2"}, "cancel_on_blocking_job_failure": false}],
        "resource_requirements": [{"name": "r", "num_cpus": 2, "memory": "1g"}]})";
    std::string const json5 = "// c\n{name:'w', jobs:[{name:'a_{i}', command:\"run {i}\", "
                              "parameters:{i:'1:2'}, cancel_on_blocking_job_failure:false,},], "
                              "resource_requirements:[{name:'r', num_cpus:2, memory:'1g'}],}";
    std::string const yaml =
        "name: w\njobs:\n  - name: a_{i}\n    command: run {i}\n"
        "    parameters: {i: '1:2'}\n    cancel_on_blocking_job_failure: false\n"
        "resource_requirements:\n  - {name: r, num_cpus: 2, memory: 1g}\n";
    auto const a = root_text(json, "t.json");
    BOOST_TEST(a == root_text(json5, "t.json5"));
    BOOST_TEST(a == root_text(yaml, "t.yaml"));
}

BOOST_AUTO_TEST_SUITE_END()
