// See positional_command.hpp.
#include "positional_command.hpp"
#include "command_line_parse.hpp"

#include "torcrun/cli/command_hints.hpp"

#include <boost/program_options/parsers.hpp>
#include <boost/program_options/positional_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;

std::string command_line_error(po::error const& e, po::options_description const& options)
{
    auto const* unknown = dynamic_cast<po::unknown_option const*>(&e);
    if (!unknown) return e.what();
    std::vector<std::string> names;
    for (auto const& o : options.options()) names.push_back(o->long_name());
    return e.what() + core::unknown_option_hint(unknown->get_option_name(), names);
}

std::variant<po::variables_map, int> parse_positional_command(
    std::vector<std::string> const& args, po::options_description const& options,
    positional_command const& command)
{
    auto const fail = [&](std::string const& message) {
        std::cerr << "torcrun " << command.name << ": " << message << "\n";
        return 2;
    };
    // Every positional word is collected, so that a second one is named in the message.
    std::string const all_words = command.positional + "-words";
    po::options_description all;
    all.add(options).add_options()(all_words.c_str(),
                                   po::value<std::vector<std::string>>());
    po::positional_options_description positional;
    positional.add(all_words.c_str(), -1);
    po::variables_map flags;
    try {
        po::store(parse_command_line(args, all, &positional), flags);
    } catch (po::error const& e) {
        return fail(command_line_error(e, options));
    }
    if (flags.count("help")) {
        if (!command.usage.empty()) std::cout << command.usage << "\n";
        std::cout << options;
        return 0;
    }
    if (!flags.count(all_words)) return fail(command.missing);
    auto const words = flags[all_words].as<std::vector<std::string>>();
    std::size_t const takes = command.second.empty() ? 1 : 2;
    if (words.size() > takes)
        return fail("too many arguments: \"" + words[takes] + "\" (torcrun " + command.name +
                    " " + command.placeholder + " [options] takes " +
                    (takes == 1 ? "one" : "two") + ")");
    if (words.size() < takes) return fail(command.second_missing);
    flags.erase(all_words);
    flags.insert({command.positional, po::variable_value(words.front(), false)});
    if (takes == 2) flags.insert({command.second, po::variable_value(words[1], false)});
    return flags;
}

}  // namespace torcrun::apps
