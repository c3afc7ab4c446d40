// `torcrun config worker|server [flags]`: prints the effective configuration as JSON, the
// commented example file (--example) or the Markdown reference table (--reference).
#include "torcrun/cli/commands.hpp"

#include "config_options.hpp"

#include "torcrun/config/config_schema.hpp"
#include "torcrun/common/json_writer.hpp"

#include <boost/program_options/parsers.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

void print_usage(std::ostream& out, po::options_description const* options)
{
    out << "usage: torcrun config worker|server [options]\n\n"
           "Prints the effective configuration as JSON: the defaults, then the --config file,\n"
           "then --set, then the other flags. Problems are printed one per line (exit 2).\n\n"
           "  --example     print the commented example file with every default\n"
           "  --reference   print the Markdown table of keys\n";
    if (options) out << "\n" << *options;
}

template <class Config>
int print_config(core::result<Config> const& config)
{
    if (!config) {
        std::cerr << config.error().message << "\n";
        return 2;
    }
    std::cout << core::write_json(core::to_json(*config)) << "\n";
    return 0;
}

}  // namespace

int cmd_config(arguments const& args)
{
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        print_usage(args.empty() ? std::cerr : std::cout, nullptr);
        return args.empty() ? 2 : 0;
    }
    bool const worker = args[0] == "worker";
    if (!worker && args[0] != "server") {
        std::cerr << "torcrun config: expected worker or server, found '" << args[0] << "'\n";
        return 2;
    }
    auto options = worker ? worker_config_options() : server_config_options();
    options.add_options()("example", "print the commented example file")(
        "reference", "print the Markdown table of keys")("help,h", "print this help");
    po::variables_map flags;
    try {
        po::store(po::command_line_parser(arguments(args.begin() + 1, args.end()))
                      .options(options)
                      .run(),
                  flags);
    } catch (po::error const& e) {
        std::cerr << "torcrun config: " << e.what() << "\n";
        return 2;
    }
    auto const schema = worker ? core::worker_schema() : core::server_schema();
    if (flags.count("help")) return print_usage(std::cout, &options), 0;
    if (flags.count("example")) return std::cout << core::render_example(schema), 0;
    if (flags.count("reference")) return std::cout << core::render_reference(schema), 0;
    return worker ? print_config(load_worker_config(flags))
                  : print_config(load_server_config(flags));
}

}  // namespace torcrun::apps
