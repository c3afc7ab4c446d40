// The hints of mistyped command lines: the command meant (swaps, one letter off, a unique
// prefix; nothing for a word too far or a prefix of several), and for an unknown option the
// command's closest option or the torcrun equivalent of Torc's option when the command has it.
#include "torcrun/cli/command_hints.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace core = torcrun::core;

namespace {

std::vector<std::string_view> const commands{"status", "jobs", "workflows", "worker", "run",
                                             "cancel", "server", "submit", "spec"};

std::string closest(std::string_view typed)
{
    auto const found = core::closest_command(typed, commands);
    return found ? std::string(*found) : std::string("-");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(command_hints)

BOOST_AUTO_TEST_CASE(closest_command_by_edits_then_unique_prefix)
{
    BOOST_TEST(closest("stauts") == "status");    // a swap
    BOOST_TEST(closest("cancle") == "cancel");
    BOOST_TEST(closest("job") == "jobs");         // one letter missing
    BOOST_TEST(closest("rn") == "run");
    BOOST_TEST(closest("workflow") == "workflows");
    BOOST_TEST(closest("serve") == "server");
    BOOST_TEST(closest("can") == "cancel");       // "run" is two edits away: a prefix then
    BOOST_TEST(closest("work") == "-");           // the prefix of two, "worker" two edits away
    BOOST_TEST(closest("frobnicate") == "-");
    BOOST_TEST(closest("x") == "-");              // as many edits as letters
    BOOST_TEST(closest("") == "-");
}

BOOST_AUTO_TEST_CASE(unknown_option_hints)
{
    std::vector<std::string> const run{"help", "quiet", "poll-interval", "output-dir", "set",
                                       "max-parallel-jobs"};
    BOOST_TEST(core::unknown_option_hint("--max-paralel-jobs", run) ==
               " (did you mean --max-parallel-jobs?)");
    BOOST_TEST(core::unknown_option_hint("--num-cpus", run) ==
               " (torcrun's equivalent of Torc's --num-cpus: --set resources.cpus=N)");
    BOOST_TEST(core::unknown_option_hint("--memory-gb", run) ==
               " (torcrun's equivalent of Torc's --memory-gb: --set resources.memory=Ng)");
    BOOST_TEST(core::unknown_option_hint("-o", run) ==
               " (torcrun's equivalent of Torc's -o: --output-dir DIR)");
    BOOST_TEST(core::unknown_option_hint("-p", run) ==
               " (torcrun's equivalent of Torc's -p: --poll-interval S)");
    BOOST_TEST(core::unknown_option_hint("--frobnicate", run) == "");
    BOOST_TEST(core::unknown_option_hint("-z", run) == "");
    // A command without --set gets no --set equivalent, nor one for -f without --json.
    std::vector<std::string> const status{"help", "json", "url", "user", "password-file"};
    BOOST_TEST(core::unknown_option_hint("--num-cpus", status) == "");
    BOOST_TEST(core::unknown_option_hint("-f", status) ==
               " (torcrun's equivalent of Torc's -f: --json)");
    BOOST_TEST(core::unknown_option_hint("--password", status) ==
               " (torcrun's equivalent of Torc's --password: --password-file FILE or "
               "$TORC_PASSWORD)");
    BOOST_TEST(core::unknown_option_hint("--ulr", status) == " (did you mean --url?)");
}

BOOST_AUTO_TEST_SUITE_END()
