// Help text read back into completion words: Boost's option rows (short and long names, a
// value placeholder, a default, a wrapped description that starts with an option), usage lines
// with subcommands, optional or not, and an option's choices; then the script's keys.
#include "torcrun/cli/completion_script.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace apps = torcrun::apps;

namespace {

using words = std::vector<std::string>;

char const* const allocation_help =
    "usage: torcrun allocation [--json] [--mode auto|direct|slurm]\n"
    "\n"
    "Prints the nodes this process may use.\n"
    "\n"
    "options:\n"
    "  -h [ --help ]         print this help\n"
    "  --json                print JSON instead of text\n"
    "  --mode arg (=auto)    the mode to evaluate: auto, direct or slurm\n";

char const* const workflows_help =
    "usage: torcrun workflows [list] [options]\n"
    "       torcrun workflows sync-status WF [--dry-run] [--json]: fail the jobs\n"
    "\n"
    "options:\n"
    "  -h [ --help ]          print this help\n"
    "  --json                 print one JSON array\n"
    "  --url URL              server API base URL (default: $TORC_API_URL, else \n"
    "                         http://127.0.0.1:8080/torc-service/v1)\n"
    "  -f [ --follow ]        keep printing\n"
    "  --skip-checks          skip the check, as Torc's \n"
    "                         --skip-checks\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(completion_script)

BOOST_AUTO_TEST_CASE(option_rows_values_and_choices)
{
    auto const w = apps::read_help("allocation", allocation_help);
    BOOST_TEST(w.name == "allocation");
    BOOST_TEST(w.options == (words{"--json", "--mode", "-h", "--help"}), boost::test_tools::per_element());
    BOOST_TEST(w.value_options == (words{"--mode"}), boost::test_tools::per_element());
    BOOST_REQUIRE(w.choices.count("--mode") == 1);
    BOOST_TEST(w.choices.at("--mode") == (words{"auto", "direct", "slurm"}),
               boost::test_tools::per_element());
    BOOST_TEST(w.subcommands.empty());
}

BOOST_AUTO_TEST_CASE(subcommands_and_their_options_kept_apart)
{
    auto const w = apps::read_help("workflows", workflows_help);
    BOOST_TEST(w.subcommands == (words{"list", "sync-status"}), boost::test_tools::per_element());
    // --dry-run is on the sync-status line only: the subcommand's, not the command's
    BOOST_TEST(w.options == (words{"-h", "--help", "--json", "--url", "-f", "--follow", "--skip-checks"}),
               boost::test_tools::per_element());
    BOOST_TEST(w.value_options == (words{"--url"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(placeholders_are_not_subcommands)
{
    auto const w = apps::read_help("status", "usage: torcrun status WF [options]\n"
                                             "  --json   print one JSON object\n");
    BOOST_TEST(w.subcommands.empty());
    auto const c = apps::read_help("config", "usage: torcrun config worker|server [options]\n");
    BOOST_TEST(c.subcommands == (words{"worker", "server"}), boost::test_tools::per_element());
    // another command's usage line is not this one's
    auto const other = apps::read_help("jobs", "usage: torcrun logs WF JOB [--stderr]\n");
    BOOST_TEST(other.options.empty());
}

BOOST_AUTO_TEST_CASE(script_keys)
{
    std::vector<apps::command_words> commands{apps::read_help("allocation", allocation_help),
                                              apps::read_help("workflows", workflows_help)};
    commands.push_back(apps::read_help("workflows", "  --dry-run   say what\n"));
    commands.back().name = "workflows sync-status";
    commands.push_back(apps::read_help("slurm-script", "  --time T   walltime\n"));
    auto const script = apps::bash_completion_script(commands);
    BOOST_TEST(script.find("_torcrun_commands='allocation workflows slurm-script'\n") != std::string::npos);
    BOOST_TEST(script.find("_torcrun_options[workflows__sync_status]='--dry-run'\n") != std::string::npos);
    BOOST_TEST(script.find("_torcrun_values[slurm_script]=' --time '\n") != std::string::npos);
    BOOST_TEST(script.find("_torcrun_choices[allocation__mode]='auto direct slurm'\n") != std::string::npos);
    BOOST_TEST(script.find("_torcrun_subcommands[workflows]='list sync-status'\n") != std::string::npos);
    BOOST_TEST(script.find("complete -F _torcrun torcrun\n") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
