// `torcrun spec SPEC [--json]`: reads a Torc workflow spec and shows what submitting it would
// create (jobs with their commands, dependencies and files, both kinds of edges, warnings)
// without contacting a server. The spec user falls back to $USER as Torc's client does.
// `torcrun spec --keys [--json]` prints the table of spec keys the reader checks against
// (core::spec::spec_objects), the source of docs/reference/spec-keys.md.
#include "torcrun/cli/commands.hpp"

#include "cli/command_line_parse.hpp"
#include "cli/positional_command.hpp"
#include "cli/spec_render.hpp"
#include "config_options.hpp"
#include "spec_submission.hpp"
#include "table_files.hpp"
#include "torcrun/spec/creation_plan.hpp"
#include "torcrun/spec/spec_keys.hpp"
#include "torcrun/spec/spec_reader.hpp"

#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>

namespace torcrun::apps {

namespace {

namespace po = boost::program_options;

int fail(std::string const& message)
{
    std::cerr << "torcrun spec: " << message << "\n";
    return 2;
}

// `--keys [--json]`: the key table, Markdown or JSON; no spec is read.
int print_keys(arguments const& args, po::options_description const& options)
{
    po::options_description all;
    all.add(options).add_options()("spec-words", po::value<std::vector<std::string>>());
    po::positional_options_description positional;
    positional.add("spec-words", -1);
    po::variables_map vm;
    try {
        po::store(parse_command_line(args, all, &positional), vm);
    } catch (po::error const& e) {
        return fail(command_line_error(e, options));
    }
    if (vm.count("spec-words"))
        return fail("--keys prints the key table and reads no SPEC: \"" +
                    vm["spec-words"].as<std::vector<std::string>>().front() + "\"");
    for (char const* other : {"skip-checks", "no-resource-monitoring"})
        if (vm.count(other))
            return fail(std::string("--keys prints the key table; --") + other +
                        " applies to a SPEC");
    if (vm.count("json"))
        std::cout << boost::json::serialize(core::spec::spec_keys_json()) << "\n";
    else
        std::cout << core::spec::render_spec_keys_markdown();
    return 0;
}

}  // namespace

int cmd_spec(arguments const& args)
{
    po::options_description options("torcrun spec SPEC [options]");
    options.add_options()("help,h", "show this help")(
        "json", "print the plan (with --keys the key table) as one JSON document")(
        "skip-checks", "skip the multi-node scheduler check, as Torc's --skip-checks")(
        "no-resource-monitoring", "no default resource monitor, as Torc's option of that name")(
        "keys", "print the spec keys torcrun reads, with how it treats each (Markdown; with --json "
                "JSON), instead of reading a SPEC");
    bool const keys = std::find(args.begin(), args.end(), "--keys") != args.end();
    bool const help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                      std::find(args.begin(), args.end(), "-h") != args.end();
    if (keys && !help) return print_keys(args, options);
    auto command = parse_positional_command(
        args, options,
        {"spec", "spec", "SPEC", "",
         "a spec file is required (torcrun spec SPEC [--json], or torcrun spec --keys)"});
    if (auto const* status = std::get_if<int>(&command)) return *status;
    auto const& vm = std::get<po::variables_map>(command);
    std::string const path = vm["spec"].as<std::string>();
    auto text = read_text_file(path);  // as `torcrun run` and `submit` read it
    if (!text) return fail(text.error().message);
    auto parsed = core::spec::read_spec(*text, path, table_file_loader());
    if (!parsed) return fail(parsed.error().message);
    core::spec::plan_options plan_options{current_user(), !vm.count("no-resource-monitoring"),
                                          vm.count("skip-checks") > 0};
    auto plan = core::spec::plan_spec(*parsed, plan_options);
    if (!plan) return fail(plan.error().message);
    if (vm.count("json")) {
        std::cout << boost::json::serialize(plan_to_json(*plan)) << "\n";
    } else {
        print_plan_summary(std::cout, *plan);
    }
    return 0;
}

}  // namespace torcrun::apps
