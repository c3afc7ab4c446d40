// `torcrun config worker|server [flags]`: prints the effective configuration as JSON, the
// commented example file (--example) or the Markdown reference table (--reference). With
// --workflow ID the worker's configuration is combined with that workflow's execution_config as a
// worker would combine it; --sources prints each key's value and where it came from instead.
#include "torcrun/cli/commands.hpp"

#include "cli/command_line_parse.hpp"
#include "cli/positional_command.hpp"

#include "config_options.hpp"
#include "workflow_settings.hpp"

#include "torcrun/config/config_schema.hpp"
#include "torcrun/common/json_writer.hpp"

#include <boost/program_options/parsers.hpp>

#include <algorithm>
#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;

namespace {

void print_usage(std::ostream& out, po::options_description const* options)
{
    out << "usage: torcrun config worker|server [options]\n\n"
           "Prints the effective configuration as JSON: the defaults, then the --config file,\n"
           "then (worker) $TORC_API_URL, then --set, then the other flags. Problems are printed\n"
           "one per line (exit 2).\n"
           "worker --workflow ID: also reads that workflow from the server (--url) and applies\n"
           "its execution_config as the worker does: default < workflow execution_config <\n"
           "file < --set and flags (exit 1 when the server cannot be read).\n";
    if (options)
        out << "\n" << *options;
    else
        out << "\n'torcrun config worker --help' and 'torcrun config server --help' list the\n"
               "options of each (--example, --reference, --sources and every flag).\n";
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

// The value at a dotted path of the configuration's JSON.
boost::json::value const* at_path(boost::json::value const& root, std::string_view path)
{
    auto const* v = &root;
    while (v) {
        auto const dot = path.find('.');
        auto const* obj = v->if_object();
        if (!obj) return nullptr;
        v = obj->if_contains(path.substr(0, dot));
        if (dot == std::string_view::npos) return v;
        path.remove_prefix(dot + 1);
    }
    return nullptr;
}

void print_sources(core::sourced_worker_config const& c)
{
    auto const json = core::to_json(c.config);
    auto const schema = core::worker_schema();
    std::size_t width = 3;
    for (auto const& key : schema.keys) width = std::max(width, key.path.size());
    auto const row = [&](std::string_view key, std::string const& value, std::string_view from) {
        std::cout << key << std::string(width + 2 - key.size(), ' ') << value
                  << std::string(value.size() < 30 ? 32 - value.size() : 2, ' ') << from << "\n";
    };
    row("key", "value", "source");
    for (auto const& key : schema.keys) {
        auto const* v = at_path(json, key.path);
        row(key.path, v ? core::write_json(*v) : "?", core::source_of(c.sources, key.path));
    }
    for (auto const& [job, stdio] : c.config.job_stdio)
        row("stdio of job " + job,
            "{\"mode\":\"" + std::string(core::to_string(stdio.mode)) +
                "\",\"delete_on_success\":" + (stdio.delete_on_success ? "true" : "false") + "}",
            "workflow execution_config.job_stdio_overrides");
}

// The worker's configuration, with --workflow combined with that workflow's execution_config
// (read once, no retries: this command only looks).
int worker_config_command(po::variables_map const& flags)
{
    auto config = load_sourced_worker_config(flags, true);
    if (!config) return std::cerr << config.error().message << "\n", 2;
    if (flags.count("workflow")) {
        auto once = config->config;
        once.server.retry_window_seconds = 0;
        auto record = read_workflow_record(once);
        if (!record) return std::cerr << "torcrun config: " << record.error().message << "\n", 1;
        auto workflow = workflow_settings_of(*record, std::move(*config));
        if (!workflow) return std::cerr << workflow.error().message << "\n", 2;
        config = std::move(workflow->config);
    }
    if (flags.count("sources")) return print_sources(*config), 0;
    std::cout << core::write_json(core::to_json(config->config)) << "\n";
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
    if (worker)
        options.add_options()("sources",
                              "a table instead of JSON: each key, its effective value (JSON) and "
                              "its source: default, file PATH, environment TORC_API_URL, --set, "
                              "flag --NAME or workflow ID execution_config");
    po::variables_map flags;
    try {
        po::store(parse_command_line(arguments(args.begin() + 1, args.end()), options),
                  flags);
    } catch (po::error const& e) {
        std::cerr << "torcrun config: " << command_line_error(e, options) << "\n";
        return 2;
    }
    auto const schema = worker ? core::worker_schema() : core::server_schema();
    if (flags.count("help")) return print_usage(std::cout, &options), 0;
    if (flags.count("example")) return std::cout << core::render_example(schema), 0;
    if (flags.count("reference")) return std::cout << core::render_reference(schema), 0;
    if (worker) return worker_config_command(flags);
    return print_config(load_server_config(flags));
}

}  // namespace torcrun::apps
