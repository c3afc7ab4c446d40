// See positional_command.hpp.
#include "positional_command.hpp"

#include <boost/program_options/parsers.hpp>
#include <boost/program_options/positional_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;

std::variant<po::variables_map, int> parse_positional_command(
    std::vector<std::string> const& args, po::options_description const& options,
    positional_command const& command)
{
    auto const fail = [&](std::string const& message) {
        std::cerr << "torcrun " << command.name << ": " << message << "\n";
        return 2;
    };
    po::options_description all;
    all.add(options).add_options()(command.positional.c_str(), po::value<std::string>());
    po::positional_options_description positional;
    positional.add(command.positional.c_str(), 1);
    po::variables_map flags;
    try {
        po::store(po::command_line_parser(args).options(all).positional(positional).run(), flags);
    } catch (po::error const& e) {
        return fail(e.what());
    }
    if (flags.count("help")) {
        if (!command.usage.empty()) std::cout << command.usage << "\n";
        std::cout << options;
        return 0;
    }
    if (!flags.count(command.positional)) return fail(command.missing);
    return flags;
}

}  // namespace torcrun::apps
