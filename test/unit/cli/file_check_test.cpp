// The check before a workflow starts: which files are required inputs (read by a job, written
// by none) and outputs, from a real spec's plan, and the exact lines of the refusal and the
// warnings, with the override, with paths that cannot be looked at and with long lists cut.
#include "torcrun/cli/file_check.hpp"

#include "../spec/spec_support.hpp"

#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <vector>

namespace core = torcrun::core;
using strings = std::vector<std::string>;

namespace {

// Torc's diamond: f1 is read by preprocess and written by nobody; f2..f6 are written.
constexpr char const* diamond = R"({
  name: "diamond",
  jobs: [
    {name: "preprocess", command: "p ${files.input.f1} ${files.output.f2} ${files.output.f3}"},
    {name: "work1", command: "w ${files.input.f2} ${files.output.f4}"},
    {name: "work2", command: "w ${files.input.f3} ${files.output.f5}"},
    {name: "postprocess", command: "q ${files.input.f4} ${files.input.f5} ${files.output.f6}"},
    {name: "again", command: "p ${files.input.f1} ${files.input.f1}"},
  ],
  files: [
    {name: "f1", path: "/data/f1.json"}, {name: "f2", path: "f2.json"},
    {name: "f3", path: "f3.json"}, {name: "f4", path: "f4.json"},
    {name: "f5", path: "f5.json"}, {name: "f6", path: "f6.json"},
    {name: "unused", path: "unused.json"},
  ],
})";

core::spec::workflow_file_uses diamond_uses()
{
    auto plan = spec_test::plan(diamond);
    BOOST_TEST_REQUIRE(plan.has_value(), spec_test::message_of(plan));
    return core::spec::file_uses(*plan);
}

// Only the paths in `present` exist.
auto existing(std::set<std::string> present)
{
    return [present = std::move(present)](std::string const& path) {
        return core::path_state{present.count(path) > 0, {}};
    };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(file_check)

BOOST_AUTO_TEST_CASE(required_inputs_are_read_and_never_written)
{
    auto const uses = diamond_uses();
    BOOST_TEST_REQUIRE(uses.required_inputs.size() == 1u);
    BOOST_TEST(uses.required_inputs[0].name == "f1");
    BOOST_TEST(uses.required_inputs[0].path == "/data/f1.json");
    BOOST_TEST((uses.required_inputs[0].jobs == strings{"preprocess", "again"}));
    strings outputs;
    for (auto const& o : uses.outputs) outputs.push_back(o.name + "<" + spec_test::join(o.jobs));
    BOOST_TEST((outputs == strings{"f2<preprocess", "f3<preprocess", "f4<work1", "f5<work2",
                                   "f6<postprocess"}));
}

BOOST_AUTO_TEST_CASE(a_missing_input_refuses_and_names_its_jobs)
{
    auto const check =
        core::check_files(diamond_uses(), existing({}), {"--ignore-missing-data", false});
    BOOST_TEST(check.refuse);
    BOOST_TEST((check.errors ==
                strings{"1 required input file does not exist (read by a job, written by none):",
                        "  /data/f1.json (file f1), read by preprocess, again",
                        "nothing was started: create it or correct the spec's paths, or pass "
                        "--ignore-missing-data to start anyway"}));
    BOOST_TEST(check.warnings.empty());
}

BOOST_AUTO_TEST_CASE(the_override_makes_it_a_warning_and_outputs_there_warn)
{
    auto const check = core::check_files(diamond_uses(), existing({"f2.json", "f6.json"}),
                                         {"--ignore-missing-data", true});
    BOOST_TEST(!check.refuse);
    BOOST_TEST(check.errors.empty());
    BOOST_TEST((check.warnings ==
                strings{"1 required input file does not exist (read by a job, written by none); "
                        "starting anyway (--ignore-missing-data):",
                        "  /data/f1.json (file f1), read by preprocess, again",
                        "2 output files exist already; torcrun leaves them as they are and the "
                        "jobs may write over them:",
                        "  f2.json (file f2), written by preprocess",
                        "  f6.json (file f6), written by postprocess"}));
}

BOOST_AUTO_TEST_CASE(a_resumed_run_expects_its_outputs)
{
    auto const check = core::check_files(
        diamond_uses(), existing({"/data/f1.json", "f2.json"}), {"--x", false, false});
    BOOST_TEST(!check.refuse);
    BOOST_TEST(check.warnings.empty());
}

BOOST_AUTO_TEST_CASE(all_present_says_nothing)
{
    auto const check = core::check_files(diamond_uses(), existing({"/data/f1.json"}), {"--x"});
    BOOST_TEST(!check.refuse);
    BOOST_TEST(check.errors.empty());
    BOOST_TEST(check.warnings.empty());
}

BOOST_AUTO_TEST_CASE(a_path_that_cannot_be_looked_at_is_missing_with_its_reason)
{
    auto const check = core::check_files(
        diamond_uses(),
        [](std::string const&) { return core::path_state{false, "Permission denied"}; }, {"--x"});
    BOOST_TEST_REQUIRE(check.errors.size() == 3u);
    BOOST_TEST(check.errors[1] ==
               "  /data/f1.json (file f1), read by preprocess, again: cannot be looked at: "
               "Permission denied");
}

BOOST_AUTO_TEST_CASE(long_lists_are_cut)
{
    core::spec::workflow_file_uses uses;
    strings jobs;
    for (int j = 1; j <= 7; ++j) jobs.push_back("j" + std::to_string(j));
    for (int f = 1; f <= 23; ++f)
        uses.required_inputs.push_back({"f" + std::to_string(f), "/in/" + std::to_string(f), jobs});
    auto const check = core::check_files(uses, existing({}), {"--x"});
    BOOST_TEST_REQUIRE(check.errors.size() == 1u + 20u + 1u + 1u);
    BOOST_TEST(check.errors[0] ==
               "23 required input files do not exist (read by a job, written by none):");
    BOOST_TEST(check.errors[1] ==
               "  /in/1 (file f1), read by j1, j2, j3, j4, j5, ... (7 jobs)");
    BOOST_TEST(check.errors[21] == "  ... and 3 more");
    BOOST_TEST(check.errors[22] ==
               "nothing was started: create them or correct the spec's paths, or pass --x to "
               "start anyway");
}

BOOST_AUTO_TEST_SUITE_END()
