// The command-line shape most subcommands share: `torcrun NAME ARG [options]`, one positional
// argument (a spec file, a workflow id) beside the command's own flags.
#pragma once

#include <boost/program_options/errors.hpp>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <string>
#include <variant>
#include <vector>

namespace torcrun::apps {

struct positional_command {
    std::string name;         // "run": messages start `torcrun run: `
    std::string positional;   // the flag name the argument is stored under ("spec")
    std::string placeholder;  // the argument in the synopsis ("SPEC", "WF")
    std::string usage;        // printed before the options for --help (none when empty)
    std::string missing;      // the message when the argument is absent
    // A second argument, stored under this flag name (`torcrun logs WF JOB`: "job"); empty:
    // the command takes one. `second_missing` is the message when it is absent.
    std::string second = {};
    std::string second_missing = {};
};

// The parsed flags (the positional one under `command.positional`), or the exit status after
// printing the help (0) or `torcrun NAME: message` on stderr (2). A second argument is
// `too many arguments: "2" (torcrun NAME WF [options] takes one)` (`takes two` with a second); an unknown option gets the
// hint of core::unknown_option_hint.
std::variant<boost::program_options::variables_map, int> parse_positional_command(
    std::vector<std::string> const& args,
    boost::program_options::options_description const& options,
    positional_command const& command);

// Boost's message for a command-line error, with the hint of core::unknown_option_hint when it
// is an unknown option of `options`.
std::string command_line_error(boost::program_options::error const& e,
                               boost::program_options::options_description const& options);

}  // namespace torcrun::apps
