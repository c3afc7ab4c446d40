// `torcrun run SPEC --resume`: the stored workflow against the spec's plan, each kind of
// difference with its message verbatim, and the match (copies of one name compared in order).
#include "torcrun/cli/spec_match.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;

namespace {

core::spec::creation_plan plan(std::vector<std::pair<std::string, std::string>> const& jobs)
{
    core::spec::creation_plan p;
    p.workflow.name = "wf";
    for (auto const& [name, command] : jobs) {
        core::spec::expanded_job j;
        j.name = name;
        j.command = command;
        p.jobs.push_back(j);
    }
    return p;
}

std::string difference(core::spec::creation_plan const& p, std::string const& name,
                       std::vector<core::stored_job> const& stored)
{
    return core::spec_difference(p, name, stored, "D/torcrun.db").value_or("match");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_match)

BOOST_AUTO_TEST_CASE(differences_and_the_match)
{
    auto const p = plan({{"a", "echo a"}, {"b", "echo b"}});
    BOOST_TEST(difference(p, "wf", {{"b", "echo b"}, {"a", "echo a"}}) == "match");
    BOOST_TEST(difference(p, "other", {{"a", "echo a"}, {"b", "echo b"}}) ==
               "the spec's workflow is \"wf\", D/torcrun.db holds \"other\"");
    BOOST_TEST(difference(p, "wf", {{"a", "echo a"}}) ==
               "job \"b\" is in the spec but not in D/torcrun.db");
    BOOST_TEST(difference(p, "wf", {{"a", "echo a"}, {"b", "echo b"}, {"c", "x"}}) ==
               "job \"c\" is in D/torcrun.db but not in the spec");
    BOOST_TEST(difference(p, "wf", {{"a", "echo 1"}, {"b", "echo b"}}) ==
               "job \"a\": the spec runs \"echo a\", D/torcrun.db ran \"echo 1\"");
    auto copies = plan({{"a", "echo a"}});
    copies.jobs[0].copies = 2;
    BOOST_TEST(difference(copies, "wf", {{"a", "echo a"}}) ==
               "job \"a\": the spec makes 2 jobs of that name, D/torcrun.db holds 1");
    BOOST_TEST(difference(copies, "wf", {{"a", "echo a"}, {"a", "echo a"}}) == "match");
}

BOOST_AUTO_TEST_SUITE_END()
