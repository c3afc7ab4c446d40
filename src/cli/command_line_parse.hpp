// Boost.Program_options' parse of a command's words, with one check it lacks: an option that
// takes a value never takes the command's next option as that value. Without it
// `torcrun server --db --help` created a database file named `--help` instead of saying that
// --db was given no value.
#pragma once

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>
#include <boost/program_options/positional_options.hpp>

#include <string>
#include <vector>

namespace torcrun::apps {

// The parsed options of `args`; throws boost::program_options::error as the parser does, and
// when a value given as a separate word is itself an option of `options` ("--help", "--port=1"):
// `the option '--db' needs a value; '--help' is an option (write --db=--help for a value that
// starts with --)`.
boost::program_options::parsed_options parse_command_line(
    std::vector<std::string> const& args,
    boost::program_options::options_description const& options,
    boost::program_options::positional_options_description const* positional = nullptr);

}  // namespace torcrun::apps
