// The change record of a job's environment: the difference from the worker's, sorted, and
// environment.txt's text verbatim, control characters included.
#include "torcrun/worker/env_policy.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(env_change)

BOOST_AUTO_TEST_CASE(diff_lists_removed_then_set_by_name)
{
    core::env_map const before{{"A", "1"}, {"B", "2"}, {"C", "3"}, {"E", ""}};
    core::env_map const after{{"A", "1"}, {"B", "5"}, {"D", "4"}, {"E", ""}, {"F", ""}};
    auto const change = core::diff_environment(before, after);
    BOOST_TEST((change.removed == std::vector<std::string>{"C"}));
    BOOST_TEST((change.set == std::vector<std::pair<std::string, std::string>>{
                                  {"B", "5"}, {"D", "4"}, {"F", ""}}));
    BOOST_TEST((core::diff_environment(after, after) == core::env_change{}));
}

// The diff walks both maps side by side: names only on one side at either end, and empty maps.
BOOST_AUTO_TEST_CASE(diff_handles_either_end_and_empty_maps)
{
    using set_list = std::vector<std::pair<std::string, std::string>>;
    core::env_map const before{{"B", "1"}, {"Y", "2"}, {"Z", "3"}};
    core::env_map const after{{"A", "0"}, {"B", "1"}, {"C", "9"}};
    auto const change = core::diff_environment(before, after);
    BOOST_TEST((change.removed == std::vector<std::string>{"Y", "Z"}));
    BOOST_TEST((change.set == set_list{{"A", "0"}, {"C", "9"}}));
    auto const emptied = core::diff_environment(before, {});
    BOOST_TEST((emptied.removed == std::vector<std::string>{"B", "Y", "Z"}));
    BOOST_TEST(emptied.set.empty());
    auto const filled = core::diff_environment({}, after);
    BOOST_TEST(filled.removed.empty());
    BOOST_TEST((filled.set == set_list{{"A", "0"}, {"B", "1"}, {"C", "9"}}));
    BOOST_TEST((core::diff_environment({}, {}) == core::env_change{}));
}

namespace {

struct render_case {
    std::string desc;
    core::env_change change;
    std::string text;
};

std::ostream& operator<<(std::ostream& os, render_case const& c)
{
    return os << c.desc;
}

std::vector<render_case> const render_cases{
    {"nothing changed", {}, ""},
    {"removed only", {{"PMI_RANK", "PMIX_RANK"}, {}, {}}, "- PMI_RANK\n- PMIX_RANK\n"},
    {"set only", {{}, {{"CUDA_VISIBLE_DEVICES", "2"}}, {}}, "+ CUDA_VISIBLE_DEVICES=2\n"},
    {"empty value", {{}, {{"CUDA_VISIBLE_DEVICES", ""}}, {}}, "+ CUDA_VISIBLE_DEVICES=\n"},
    {"removed before set", {{"Z"}, {{"A", "1"}}, {}}, "- Z\n+ A=1\n"},
    {"printable values stay as they are",
     {{}, {{"X", "a b 'c' \\d $e = é"}}, {}},
     "+ X=a b 'c' \\d $e = é\n"},
    {"a newline keeps the entry on one line",
     {{}, {{"SCRIPT", "line1\nline2"}}, {}},
     "+ SCRIPT=$'line1\\nline2'\n"},
    {"tab, CR, quote and backslash with a control character",
     {{}, {{"X", "it's\t\\\r"}}, {}},
     "+ X=$'it\\'s\\t\\\\\\r'\n"},
    {"other control characters in hex",
     {{}, {{"X", std::string("\x01\x1b[0m\x7f", 6)}}, {}},
     "+ X=$'\\x01\\x1b[0m\\x7f'\n"},
    {"grouped by source in precedence order, the unstated first",
     {{"P"},
      {{"A", "1"}, {"B", "2"}, {"C", "3"}, {"D", "4"}, {"E", "5"}, {"F", "6"}},
      {{"A", "torcrun"}, {"B", "job env"}, {"C", "workflow env"}, {"D", "environment.set"},
       {"F", "job env"}}},
     "- P\n+ E=5\n# environment.set\n+ D=4\n# workflow env\n+ C=3\n# job env\n+ B=2\n"
     "+ F=6\n# torcrun\n+ A=1\n"},
    {"an unknown source is written with the unstated",
     {{}, {{"A", "1"}}, {{"A", "elsewhere"}}},
     "+ A=1\n"},
};

}  // namespace

BOOST_DATA_TEST_CASE(render_verbatim, bdata::make(render_cases), c)
{
    BOOST_TEST(core::render_env_change(c.change) == c.text);
}

BOOST_AUTO_TEST_SUITE_END()
