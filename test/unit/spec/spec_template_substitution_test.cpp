// Template substitution (docs/TORC-COMPATIBILITY.md §4.5): the format specs, Torc 0.10's own
// algorithm against the results of Torc's real code, torcrun's every-placeholder rule with its
// warnings (§4.10 item 7), and the worked examples A and B of §4.5 from parameter strings to
// expanded texts.
#include "torcrun/spec/template_substitution.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace spec = torcrun::core::spec;

namespace {

using strings = std::vector<std::string>;

spec::parameter_value int_value(std::int64_t i) { return {i}; }
spec::parameter_value float_value(double f) { return {f}; }
spec::parameter_value text_value(std::string s) { return {std::move(s)}; }

spec::named_value bind(std::string name, spec::parameter_value value)
{
    spec::named_value out{std::move(name), {}};
    out.value.v = std::move(value.v);
    return out;
}

struct format_case {
    spec::parameter_value value;
    std::string spec_text;
    std::string expected;
};
std::ostream& operator<<(std::ostream& os, format_case const& c)
{
    return os << '{' << spec::plain_form(c.value) << ':' << c.spec_text << '}';
}

std::vector<format_case> const format_cases{
    {int_value(7), "03d", "007"},
    {int_value(-5), "03d", "-05"},
    {int_value(7), "003d", "007"},
    {int_value(7), "0+3d", "007"},  // usize parsing accepts +N
    {int_value(12345), "03d", "12345"},
    {int_value(7), "00d", "7"},
    {int_value(7), "3d", "7"},
    {int_value(7), "d", "7"},
    {int_value(7), "0d", "7"},
    {int_value(7), "05", "7"},
    {int_value(7), "0-3d", "7"},
    {int_value(7), ".2f", "7"},
    {int_value(7), "", "7"},
    {int_value(7), "x", "7"},
    {int_value(7), "01025d", "7"},  // above max_format_width: plain
    {float_value(0.125), ".2f", "0.12"},
    {float_value(0.375), ".2f", "0.38"},
    {float_value(0.0001), ".4f", "0.0001"},
    {float_value(0.1), ".+2f", "0.10"},
    {float_value(2.5), ".0f", "2"},
    {float_value(0.1), "03d", "0.1"},
    {float_value(0.1), ".f", "0.1"},
    {float_value(0.1), "2f", "0.1"},
    {float_value(0.1), ".2e", "0.1"},
    {float_value(1.0), ".1025f", "1"},
    {float_value(std::numeric_limits<double>::quiet_NaN()), ".2f", "NaN"},
    {text_value("a"), "03d", "a"},
    {text_value("a"), ".2f", "a"},
};

struct template_case {
    std::string text;
    spec::combination bindings;
    std::string expected;
    strings warnings;  // torcrun only
};
std::ostream& operator<<(std::ostream& os, template_case const& c) { return os << c.text; }

spec::combination const lr_bs{bind("lr", float_value(0.0001)), bind("bs", int_value(16))};
spec::combination const i7{bind("i", int_value(7))};

// What Torc 0.10's `substitute_parameters`, compiled and run on its own, printed for these
// templates, plus Torc's own unit tests and more corners.
std::vector<template_case> const torc_cases{
    {"--learning-rate={lr} --bs={bs} model_lr{lr:.4f}_x{lr:.2f}",
     lr_bs,
     "--learning-rate={lr} --bs=16 model_lr0.0001_x{lr:.2f}",
     {}},
    {"{i:03d}-{i}", i7, "007-{i}", {}},
    {"{i:3d}|{i:0d}|{i:003d}", i7, "7|{i:0d}|{i:003d}", {}},
    {"${i}", i7, "$7", {}},
    {"job_{i}_{name}",
     {bind("i", int_value(42)), bind("name", text_value("test"))},
     "job_42_test",
     {}},
    {"job_{i:03d}", {bind("i", int_value(5))}, "job_005", {}},
    {"{i:03d}_{i:03d}", i7, "007_007", {}},
    {"{i}{i:03d", i7, "7{i:03d", {}},  // no `}` after `{i:`: plain form instead
    {"{a}", {bind("a", text_value("{b}")), bind("b", int_value(1))}, "1", {}},  // re-scans
    {"{x} {i", i7, "{x} {i", {}},
};

std::vector<template_case> const torcrun_cases{
    {"--learning-rate={lr} --bs={bs} model_lr{lr:.4f}_x{lr:.2f}",
     lr_bs,
     "--learning-rate=0.0001 --bs=16 model_lr0.0001_x0.00",
     {"template \"--learning-rate={lr} --bs={bs} model_lr{lr:.4f}_x{lr:.2f}\": Torc 0.10 would "
      "leave \"{lr}\" literal here; torcrun substitutes it",
      "template \"--learning-rate={lr} --bs={bs} model_lr{lr:.4f}_x{lr:.2f}\": Torc 0.10 would "
      "leave \"{lr:.2f}\" literal here; torcrun substitutes it"}},
    {"{i:03d}-{i}",
     i7,
     "007-7",
     {"template \"{i:03d}-{i}\": Torc 0.10 would leave \"{i}\" literal here; torcrun substitutes "
      "it"}},
    {"{i:3d}|{i:0d}|{i:003d}",
     i7,
     "7|7|007",
     {"template \"{i:3d}|{i:0d}|{i:003d}\": Torc 0.10 would leave \"{i:0d}\" literal here; "
      "torcrun substitutes it",
      "template \"{i:3d}|{i:0d}|{i:003d}\": Torc 0.10 would leave \"{i:003d}\" literal here; "
      "torcrun substitutes it"}},
    {"python process_input.py --id {i} --output output/stage1_{i:03d}.dat",
     i7,
     "python process_input.py --id 7 --output output/stage1_007.dat",
     {"template \"python process_input.py --id {i} --output output/stage1_{i:03d}.dat\": Torc "
      "0.10 would leave \"{i}\" literal here; torcrun substitutes it"}},
    {"{i}-{i:03d}-{i}",
     i7,
     "7-007-7",
     {"template \"{i}-{i:03d}-{i}\": Torc 0.10 would leave \"{i}\" literal here; torcrun "
      "substitutes it"}},
    {"${i}", i7, "$7", {}},
    {"{i}-{i}", i7, "7-7", {}},
    {"{i:03d}_{i:03d}", i7, "007_007", {}},
    {"{lr:.4f}/{lr:.4f} bs{bs}", lr_bs, "0.0001/0.0001 bs16", {}},
    {"job_{i}_{name}",
     {bind("i", int_value(42)), bind("name", text_value("test"))},
     "job_42_test",
     {}},
    {"{x} {i", i7, "{x} {i", {}},
    {"{{i}}", i7, "{7}", {}},
    {"{i}{i:03d", i7, "7{i:03d", {}},
    {"{name:03d}", {bind("name", text_value("x"))}, "x", {}},
    {"{ab}-{a}", {bind("a", int_value(1)), bind("ab", int_value(2))}, "2-1", {}},
    {"", i7, "", {}},
    {"{a}",
     {bind("a", text_value("{b}")), bind("b", int_value(1))},
     "{b}",
     {"template \"{a}\": Torc 0.10 would produce \"1\" here; torcrun produces \"{b}\""}},
    {"{i:01025d}-{i:01025d}",
     i7,
     "7-7",
     {"template \"{i:01025d}-{i:01025d}\": \"{i:01025d}\" exceeds the 1024-character limit; the "
      "plain form is used"}},
};

// Select, parse, combine and substitute, as the spec expander does; "error: ..." on failure.
strings expand(std::string const& text, std::optional<spec::raw_parameters> const& own,
               std::optional<strings> const& use, spec::raw_parameters const& pool,
               std::optional<std::string> const& mode)
{
    auto const selected = spec::select_parameters(own, use, pool);
    if (!selected.parameters) return {text};
    std::vector<spec::named_values> parameters;
    for (auto const& [name, value_text] : *selected.parameters) {
        auto parsed = spec::parse_parameter_values(value_text, name);
        if (!parsed) return {"error: " + parsed.error().message};
        parameters.push_back({name, std::move(parsed->values)});
    }
    auto const combinations = spec::combine_parameters(parameters, mode);
    if (!combinations) return {"error: " + combinations.error().message};
    strings out;
    for (auto const& c : *combinations) out.push_back(spec::substitute(text, c).text);
    return out;
}

struct example_case {
    std::string label;
    std::string text;
    std::optional<spec::raw_parameters> own;
    std::optional<strings> use;
    std::optional<std::string> mode;
    strings expected;
};
std::ostream& operator<<(std::ostream& os, example_case const& c) { return os << c.label; }

spec::raw_parameters const example_a_pool{{"seed", "[1,2]"}, {"lr", "0.1:0.3:0.1"}};
spec::raw_parameters const zip_d_m{{"d", "['a','b']"}, {"m", "['x','y']"}};

std::vector<example_case> const example_cases{
    {"A file name",
     "data_{seed}",
     std::nullopt,
     strings{"seed"},
     std::nullopt,
     {"data_1", "data_2"}},
    {"A file path",
     "/d/data_{seed}.bin",
     std::nullopt,
     strings{"seed"},
     std::nullopt,
     {"/d/data_1.bin", "/d/data_2.bin"}},
    {"A unparameterized file", "summary", std::nullopt, std::nullopt, std::nullopt, {"summary"}},
    {"A gen names", "gen_{seed}", std::nullopt, strings{"seed"}, std::nullopt, {"gen_1", "gen_2"}},
    {"A gen commands",
     "gen --seed {seed} -o ${files.output.data_{seed}}",
     std::nullopt,
     strings{"seed"},
     std::nullopt,
     {"gen --seed 1 -o ${files.output.data_1}", "gen --seed 2 -o ${files.output.data_2}"}},
    {"A fit names",
     "fit_s{seed}_lr{lr:.2f}",
     std::nullopt,
     strings{"seed", "lr"},
     std::nullopt,
     {"fit_s1_lr0.10", "fit_s1_lr0.20", "fit_s1_lr0.30", "fit_s2_lr0.10", "fit_s2_lr0.20",
      "fit_s2_lr0.30"}},
    {"A fit commands",
     "fit --lr {lr} -i ${files.input.data_{seed}}",
     std::nullopt,
     strings{"seed", "lr"},
     std::nullopt,
     {"fit --lr 0.1 -i ${files.input.data_1}", "fit --lr 0.2 -i ${files.input.data_1}",
      "fit --lr 0.30000000000000004 -i ${files.input.data_1}",
      "fit --lr 0.1 -i ${files.input.data_2}", "fit --lr 0.2 -i ${files.input.data_2}",
      "fit --lr 0.30000000000000004 -i ${files.input.data_2}"}},
    {"A collect",
     "collect -o ${files.output.summary}",
     std::nullopt,
     std::nullopt,
     std::nullopt,
     {"collect -o ${files.output.summary}"}},
    {"B zip", "t_{d}_{m}", zip_d_m, std::nullopt, "zip", {"t_a_x", "t_b_y"}},
    {"B product",
     "t_{d}_{m}",
     zip_d_m,
     std::nullopt,
     std::nullopt,
     {"t_a_x", "t_a_y", "t_b_x", "t_b_y"}},
    {"B zip with counts 2 and 1",
     "t_{d}_{m}",
     spec::raw_parameters{{"d", "['a','b']"}, {"m", "['x']"}},
     std::nullopt,
     "zip",
     {"error: All parameters must have the same number of values when using 'zip' mode. "
      "Parameter 'd' has 2 values, but 'm' has 1 values."}},
    {"C fan-in copies are not merged here",
     "merge",
     spec::raw_parameters{{"k", "1:3"}},
     std::nullopt,
     std::nullopt,
     {"merge", "merge", "merge"}},
    {"own {} is one copy, unsubstituted",
     "x_{k}",
     spec::raw_parameters{},
     std::nullopt,
     std::nullopt,
     {"x_{k}"}},
    {"a parameter with zero values removes the template",
     "w_{k}",
     spec::raw_parameters{{"k", "10:1"}},
     std::nullopt,
     std::nullopt,
     {}},
};

BOOST_AUTO_TEST_SUITE(spec_template_substitution)

BOOST_DATA_TEST_CASE(format_specs, bdata::make(format_cases), c)
{
    BOOST_TEST(spec::format_value(c.value, c.spec_text) == c.expected);
}

BOOST_AUTO_TEST_CASE(widest_format_allowed_is_max_format_width)
{
    BOOST_TEST(spec::format_value(int_value(7), "01024d") == std::string(1023, '0') + "7");
    BOOST_TEST(spec::format_value(float_value(0.5), ".1024f").size() == 1026u);
}

BOOST_DATA_TEST_CASE(torc_algorithm_reproduced, bdata::make(torc_cases), c)
{
    BOOST_TEST(spec::substitute_as_torc(c.text, c.bindings) == c.expected);
}

BOOST_DATA_TEST_CASE(every_placeholder_substituted_with_warnings, bdata::make(torcrun_cases), c)
{
    auto const r = spec::substitute(c.text, c.bindings);
    BOOST_TEST(r.text == c.expected);
    BOOST_TEST(r.warnings == c.warnings, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(worked_examples_expand, bdata::make(example_cases), c)
{
    auto const out =
        expand(c.text, c.own, c.use, c.own ? spec::raw_parameters{} : example_a_pool, c.mode);
    BOOST_TEST(out == c.expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(hundred_jobs_parameterized_names)
{
    auto const out =
        expand("job_{i:03d}", spec::raw_parameters{{"i", "1:100"}}, std::nullopt, {}, std::nullopt);
    BOOST_REQUIRE_EQUAL(out.size(), 100u);
    BOOST_TEST(out.front() == "job_001");
    BOOST_TEST(out[41] == "job_042");
    BOOST_TEST(out.back() == "job_100");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
