// See command_line_parse.hpp.
#include "command_line_parse.hpp"

#include <string_view>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

// Whether `word` ("--help", "--port=1") names a long option of `options`.
bool names_option(std::string_view word, po::options_description const& options)
{
    if (!word.starts_with("--") || word.size() == 2) return false;
    word.remove_prefix(2);
    std::string const name(word.substr(0, word.find('=')));
    return options.find_nothrow(name, false) != nullptr;
}

}  // namespace

po::parsed_options parse_command_line(std::vector<std::string> const& args,
                                      po::options_description const& options,
                                      po::positional_options_description const* positional)
{
    po::command_line_parser parser(args);
    parser.options(options);
    if (positional) parser.positional(*positional);
    po::parsed_options parsed = parser.run();
    for (auto const& o : parsed.options) {
        // `--db VALUE` arrives as two words; `--db=--x` as one, an explicit value.
        if (o.position_key != -1 || o.original_tokens.size() < 2 || o.value.empty()) continue;
        std::string const& value = o.value.front();
        if (!names_option(value, options)) continue;
        throw po::error("the option '--" + o.string_key + "' needs a value; '" + value +
                        "' is an option (write --" + o.string_key + "=" + value +
                        " for a value that starts with --)");
    }
    return parsed;
}

}  // namespace torcrun::apps
