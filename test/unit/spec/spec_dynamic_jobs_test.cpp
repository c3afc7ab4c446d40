// Newer Torc's `dynamic_jobs` (docs/TORC-COMPATIBILITY.md §4.13): read in YAML, JSON5 and KDL and
// sent as the workflow record's `dynamic_jobs` object; its bad values refused with file:line:col.
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

struct dynamic_case {
    std::string label;
    std::string file_name;
    std::string text;
    std::string expected;  // the workflow body's dynamic_jobs, "-" for none, or the error
};
std::ostream& operator<<(std::ostream& os, dynamic_case const& c) { return os << c.label; }

std::vector<dynamic_case> const cases{
    {"yaml", "w.yaml", "name: w\njobs: []\ndynamic_jobs:\n  max_iterations: 10\n",
     R"("dynamic_jobs":{"max_iterations":10})"},
    {"json5", "t.json5", "{name:'w', jobs:[], dynamic_jobs:{max_iterations:3}}",
     R"("dynamic_jobs":{"max_iterations":3})"},
    {"json", "t.json", R"({"name":"w","jobs":[],"dynamic_jobs":{"max_iterations":7}})",
     R"("dynamic_jobs":{"max_iterations":7})"},
    {"kdl", "w.kdl", "name \"w\"\ndynamic_jobs {\n  max_iterations 4\n}\n",
     R"("dynamic_jobs":{"max_iterations":4})"},
    {"empty: the server's default", "w.yaml", "name: w\njobs: []\ndynamic_jobs: {}\n",
     R"("dynamic_jobs":{})"},
    {"null max_iterations: the server's default", "w.yaml",
     "name: w\njobs: []\ndynamic_jobs: {max_iterations: null}\n", R"("dynamic_jobs":{})"},
    {"absent", "w.yaml", "name: w\njobs: []\n", "-"},
    {"zero", "w.yaml", "name: w\njobs: []\ndynamic_jobs: {max_iterations: 0}\n",
     "w.yaml:3:32: dynamic_jobs: field \"max_iterations\" must be an integer from 1 to "
     "9223372036854775807, found 0"},
    {"unknown key", "w.yaml", "name: w\njobs: []\ndynamic_jobs: {max_iteration: 3}\n",
     "w.yaml:3:16: dynamic_jobs: field \"max_iteration\" is unknown (did you mean "
     "\"max_iterations\"?)"},
    {"not an object", "w.yaml", "name: w\njobs: []\ndynamic_jobs: 10\n",
     "w.yaml:3:15: dynamic_jobs: must be an object, found 10"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_dynamic_jobs)

BOOST_DATA_TEST_CASE(read_and_sent, bdata::make(cases), c)
{
    auto const planned = plan(c.text, {}, c.file_name);
    if (!planned) {
        BOOST_TEST(message_of(planned) == c.expected);
        return;
    }
    auto const body = boost::json::serialize(torcrun::api::workflow_body(planned->workflow));
    if (c.expected == "-")
        BOOST_TEST(body.find("dynamic_jobs") == std::string::npos);
    else
        BOOST_TEST(body.find(c.expected) != std::string::npos, body);
}

BOOST_AUTO_TEST_SUITE_END()
