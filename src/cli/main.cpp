// torcrun: dispatch to the subcommand named by argv[1]. Wiring only.
#include "torcrun/cli/command_hints.hpp"
#include "torcrun/cli/command_table.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using torcrun::apps::arguments;
using torcrun::apps::subcommands;

void print_usage(std::ostream& out)
{
    out << "usage: torcrun <command> [options]\n\ncommands:\n";
    std::size_t width = 0;
    for (auto const& c : subcommands()) width = std::max(width, c.name.size());
    for (auto const& c : subcommands())
        out << "  " << c.name << std::string(width + 2 - c.name.size(), ' ') << c.summary << "\n";
    out << "\n'torcrun <command> --help' describes each command's options.\n";
}

int dispatch(int argc, char** argv)
{
    if (argc < 2) {
        print_usage(std::cerr);
        return 2;
    }
    std::string_view const name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        print_usage(std::cout);
        return 0;
    }
    if (name == "--version") return torcrun::apps::cmd_version({});
    for (auto const& c : subcommands()) {
        if (c.name == name) return c.run(arguments(argv + 2, argv + argc));
    }
    std::vector<std::string_view> names;
    for (auto const& c : subcommands()) names.push_back(c.name);
    std::cerr << "torcrun: unknown command '" << name << "'";
    if (auto const near = torcrun::core::closest_command(name, names))
        std::cerr << " (did you mean '" << *near << "'?)";
    std::cerr << "\n";
    print_usage(std::cerr);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    try {
        return dispatch(argc, argv);
    } catch (std::exception const& e) {
        std::cerr << "torcrun: " << e.what() << "\n";
        return 1;
    }
}
