// Parameter selection and combination (docs/TORC-COMPATIBILITY.md §4.4): product order, zip, zero
// values, the mode check (§4.10 item 14) and every message.
#include "torcrun/spec/parameter_combinations.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bdata = boost::unit_test::data;
namespace spec = torcrun::core::spec;

namespace {

using strings = std::vector<std::string>;

// Values are assigned in place: moving a temporary parameter_value into the vector draws a
// false -Wmaybe-uninitialized from GCC 12 at -O3 (std::variant's string alternative).
template <class T>
spec::named_values named(std::string name, std::vector<T> const& values)
{
    spec::named_values out{std::move(name), std::vector<spec::parameter_value>(values.size())};
    for (std::size_t i = 0; i < values.size(); ++i) out.values[i].v = values[i];
    return out;
}

spec::named_values ints(std::string name, std::vector<std::int64_t> const& values)
{
    return named(std::move(name), values);
}

spec::named_values texts(std::string name, strings const& values)
{
    return named(std::move(name), values);
}

// "a=1,b=x" per combination.
strings describe(std::vector<spec::combination> const& combinations)
{
    strings out;
    for (auto const& c : combinations) {
        std::string line;
        for (auto const& b : c)
            line.append(line.empty() ? "" : ",")
                .append(b.name)
                .append("=")
                .append(spec::plain_form(b.value));
        out.push_back(line);
    }
    return out;
}

struct combine_case {
    std::string label;
    std::vector<spec::named_values> parameters;
    std::optional<std::string> mode;
    strings expected;
};
std::ostream& operator<<(std::ostream& os, combine_case const& c) { return os << c.label; }

std::vector<combine_case> const combine_cases{
    {"product, first parameter outermost",
     {ints("a", {1, 2}), texts("b", {"x", "y"})},
     std::nullopt,
     {"a=1,b=x", "a=1,b=y", "a=2,b=x", "a=2,b=y"}},
    {"explicit product",
     {texts("b", {"x", "y"}), ints("a", {1, 2})},
     "product",
     {"b=x,a=1", "b=x,a=2", "b=y,a=1", "b=y,a=2"}},
    {"product of three",
     {ints("a", {1, 2}), ints("b", {3}), ints("c", {4, 5})},
     std::nullopt,
     {"a=1,b=3,c=4", "a=1,b=3,c=5", "a=2,b=3,c=4", "a=2,b=3,c=5"}},
    {"one parameter", {ints("i", {1, 2, 3})}, std::nullopt, {"i=1", "i=2", "i=3"}},
    {"product with a parameter of zero values",
     {ints("a", {1, 2}), ints("b", {})},
     std::nullopt,
     {}},
    {"product of nothing is one empty combination", {}, std::nullopt, {""}},
    {"zip of nothing is one empty combination", {}, "zip", {""}},
    {"zip pairs the i-th values",
     {texts("d", {"a", "b"}), texts("m", {"x", "y"})},
     "zip",
     {"d=a,m=x", "d=b,m=y"}},
    {"zip of zero values", {ints("a", {}), ints("b", {})}, "zip", {}},
    {"zip of one parameter", {ints("a", {1, 2})}, "zip", {"a=1", "a=2"}},
};

struct combine_error_case {
    std::string label;
    std::vector<spec::named_values> parameters;
    std::optional<std::string> mode;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, combine_error_case const& c) { return os << c.label; }

std::vector<combine_error_case> const combine_error_cases{
    {"zip with counts 2 and 1",
     {texts("d", {"a", "b"}), texts("m", {"x"})},
     "zip",
     "All parameters must have the same number of values when using 'zip' mode. Parameter 'd' "
     "has 2 values, but 'm' has 1 values."},
    {"zip names the first mismatch",
     {ints("a", {1, 2}), ints("b", {3, 4}), ints("c", {5, 6, 7})},
     "zip",
     "All parameters must have the same number of values when using 'zip' mode. Parameter 'a' "
     "has 2 values, but 'c' has 3 values."},
    {"zip with one empty parameter",
     {ints("a", {1, 2}), ints("b", {})},
     "zip",
     "All parameters must have the same number of values when using 'zip' mode. Parameter 'a' "
     "has 2 values, but 'b' has 0 values."},
    {"mode spelled Zip",
     {ints("a", {1})},
     "Zip",
     "parameter_mode: \"Zip\" is neither \"product\" nor \"zip\""},
    {"empty mode", {ints("a", {1})}, "", "parameter_mode: \"\" is neither \"product\" nor \"zip\""},
    {"unknown mode without parameters",
     {},
     "cartesian",
     "parameter_mode: \"cartesian\" is neither \"product\" nor \"zip\""},
};

// Own, use and pool as the spec entry writes them; expected parameters (nullopt: unparameterized).
struct select_case {
    std::string label;
    std::optional<spec::raw_parameters> own;
    std::optional<strings> use;
    spec::raw_parameters pool;
    std::optional<spec::raw_parameters> expected;
    strings warnings;
};
std::ostream& operator<<(std::ostream& os, select_case const& c) { return os << c.label; }

spec::raw_parameters const pool{{"a", "1:2"}, {"b", "[x]"}, {"c", "3"}};

std::vector<select_case> const select_cases{
    {"own parameters",
     spec::raw_parameters{{"k", "1:3"}},
     std::nullopt,
     pool,
     spec::raw_parameters{{"k", "1:3"}},
     {}},
    {"own parameters win over use_parameters",
     spec::raw_parameters{{"k", "1:3"}},
     strings{"a", "b"},
     pool,
     spec::raw_parameters{{"k", "1:3"}},
     {"use_parameters: [\"a\", \"b\"] is ignored because the entry has its own parameters"}},
    {"own empty parameters are parameterized",
     spec::raw_parameters{},
     std::nullopt,
     pool,
     spec::raw_parameters{},
     {}},
    {"own empty parameters still win",
     spec::raw_parameters{},
     strings{"a"},
     pool,
     spec::raw_parameters{},
     {"use_parameters: [\"a\"] is ignored because the entry has its own parameters"}},
    {"use_parameters in the order listed",
     std::nullopt,
     strings{"c", "a"},
     pool,
     spec::raw_parameters{{"c", "3"}, {"a", "1:2"}},
     {}},
    {"a missing name is skipped with a warning",
     std::nullopt,
     strings{"a", "lr"},
     pool,
     spec::raw_parameters{{"a", "1:2"}},
     {"use_parameters: \"lr\" is not a workflow parameter; it is skipped"}},
    {"no name found: unparameterized",
     std::nullopt,
     strings{"lr", "bs"},
     pool,
     std::nullopt,
     {"use_parameters: \"lr\" is not a workflow parameter; it is skipped",
      "use_parameters: \"bs\" is not a workflow parameter; it is skipped"}},
    {"no workflow parameters at all",
     std::nullopt,
     strings{"a"},
     {},
     std::nullopt,
     {"use_parameters: \"a\" is not a workflow parameter; it is skipped"}},
    {"a repeated name is taken once",
     std::nullopt,
     strings{"a", "a"},
     pool,
     spec::raw_parameters{{"a", "1:2"}},
     {}},
    {"empty use_parameters", std::nullopt, strings{}, pool, std::nullopt, {}},
    {"neither: unparameterized", std::nullopt, std::nullopt, pool, std::nullopt, {}},
};

BOOST_AUTO_TEST_SUITE(spec_parameter_combinations)

BOOST_DATA_TEST_CASE(combinations_in_declaration_order, bdata::make(combine_cases), c)
{
    auto const r = spec::combine_parameters(c.parameters, c.mode);
    BOOST_REQUIRE(r.has_value());
    BOOST_TEST(describe(*r) == c.expected, boost::test_tools::per_element());
}

BOOST_DATA_TEST_CASE(combination_errors, bdata::make(combine_error_cases), c)
{
    auto const r = spec::combine_parameters(c.parameters, c.mode);
    BOOST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message == c.message);
}

BOOST_DATA_TEST_CASE(which_parameters_an_entry_uses, bdata::make(select_cases), c)
{
    auto const r = spec::select_parameters(c.own, c.use, c.pool);
    BOOST_TEST((r.parameters == c.expected));
    BOOST_TEST(r.warnings == c.warnings, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(parameter_mode_absent_is_product)
{
    BOOST_TEST((spec::parse_parameter_mode(std::nullopt).value() == spec::parameter_mode::product));
    BOOST_TEST((spec::parse_parameter_mode("product").value() == spec::parameter_mode::product));
    BOOST_TEST((spec::parse_parameter_mode("zip").value() == spec::parameter_mode::zip));
}

BOOST_AUTO_TEST_CASE(a_product_past_max_combinations_is_an_error)
{
    std::vector<std::int64_t> thousand(1000, 0);
    std::vector<spec::named_values> const parameters{ints("a", thousand), ints("b", thousand),
                                                     ints("c", {1, 2})};
    auto const r = spec::combine_parameters(parameters, std::nullopt);
    BOOST_REQUIRE(r.has_error());
    BOOST_TEST(r.error().message ==
               "parameters: the product of \"a\" (1000 values), \"b\" (1000 values), \"c\" (2 "
               "values) exceeds 1000000 combinations");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
