// `torcrun ro-crate export WF [-o FILE]`, `torcrun ro-crate create WF --entity-id ID
// --entity-type T [--metadata JSON] [--file-id N]` and `torcrun ro-crate list WF`, Torc's
// spellings (docs/TORC-COMPATIBILITY.md §5, "RO-Crate"). export reads the workflow and its
// RO-Crate entities from the server, hashes the content of each File entity it finds on disk
// (from the working directory, as the jobs wrote them) and writes `ro-crate-metadata.json`
// (ro_crate_document.hpp); create records one entity, as a job does through `$TORC_API_URL` and
// `$TORC_WORKFLOW_ID`.
#include "torcrun/cli/commands.hpp"

#include "torc_client.hpp"
#include "torcrun/cli/ro_crate_document.hpp"
#include "torcrun/common/date_time.hpp"
#include "torcrun/server/dataset_digest.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun ro-crate: " << message << "\n";
    return status;
}

std::optional<std::string> file_sha256(std::string const& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    core::sha256 h;
    std::string buffer(1 << 16, '\0');
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        h.update(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
    }
    if (in.bad()) return std::nullopt;
    return h.hex_digest();
}

core::result<crate_input> gather(torc_client& client, std::int64_t wf)
{
    auto workflow = client.call("GET", "/workflows/" + std::to_string(wf));
    if (!workflow) return workflow.error();
    crate_input in;
    in.workflow_id = wf;
    auto const& w = workflow->as_object();
    if (auto const* n = w.if_contains("name"); n && n->is_string()) in.name = n->as_string();
    if (auto const* d = w.if_contains("description"); d && d->is_string())
        in.description = std::string(d->as_string());
    auto const now = std::chrono::duration<double>(
        std::chrono::system_clock::now().time_since_epoch());
    in.date_published = core::format_date_time(now.count());
    auto rows = client.list_all("/workflows/" + std::to_string(wf) + "/ro_crate_entities");
    if (!rows) return rows.error();
    for (auto const& r : *rows) {
        auto const* o = r.if_object();
        if (!o) continue;
        crate_entity e;
        if (auto const* v = o->if_contains("entity_id"); v && v->is_string())
            e.entity_id = v->as_string();
        if (auto const* v = o->if_contains("entity_type"); v && v->is_string())
            e.entity_type = v->as_string();
        if (auto const* v = o->if_contains("metadata"); v && v->is_object())
            e.metadata = v->as_object();
        if (e.entity_type == "File") {
            if (auto h = file_sha256(e.entity_id)) in.file_sha256[e.entity_id] = *h;
        }
        in.entities.push_back(std::move(e));
    }
    return in;
}

int export_crate(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "output,o", po::value<std::string>()->value_name("FILE"),
        "write the document to FILE (default: standard output)");
    auto command_line = parse_workflow_command(args, options, "ro-crate export");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    torc_client client(std::move(command.settings));
    auto in = gather(client, command.workflow_id);
    if (!in) return fail(in.error().message, 1);
    auto const text = json::serialize(ro_crate_document(*in)) + "\n";
    if (!command.flags.count("output")) {
        std::cout << text;
        return 0;
    }
    auto const path = command.flags["output"].as<std::string>();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return fail("cannot write " + path, 1);
    std::cerr << "torcrun ro-crate: wrote " << path << " (" << in->entities.size()
              << " entities)\n";
    return 0;
}

int create_entity(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")(
        "entity-id", po::value<std::string>()->value_name("ID"), "the entity's @id (required)")(
        "entity-type", po::value<std::string>()->value_name("TYPE"),
        "the entity's @type (required)")("metadata", po::value<std::string>()->value_name("JSON"),
                                         "its other properties, a JSON object")(
        "file-id", po::value<std::int64_t>()->value_name("N"), "the file record it describes");
    auto command_line = parse_workflow_command(args, options, "ro-crate create");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const& flags = command.flags;
    if (!flags.count("entity-id") || !flags.count("entity-type"))
        return fail("--entity-id and --entity-type are required", 2);
    json::object metadata;
    if (flags.count("metadata")) {
        boost::system::error_code ec;
        auto parsed = json::parse(flags["metadata"].as<std::string>(), ec);
        if (ec || !parsed.is_object()) return fail("--metadata is not a JSON object", 2);
        metadata = parsed.as_object();
    }
    auto const id = flags["entity-id"].as<std::string>();
    auto const type = flags["entity-type"].as<std::string>();
    metadata["@id"] = id;
    metadata["@type"] = type;
    json::object body{{"workflow_id", command.workflow_id},
                      {"entity_id", id},
                      {"entity_type", type},
                      {"metadata", std::move(metadata)}};
    if (flags.count("file-id")) body["file_id"] = flags["file-id"].as<std::int64_t>();
    torc_client client(std::move(command.settings));
    auto made = client.call("POST", "/ro_crate_entities", json::serialize(body));
    if (!made) return fail(made.error().message, 1);
    std::cout << json::serialize(*made) << "\n";
    return 0;
}

int list_entities(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help");
    auto command_line = parse_workflow_command(args, options, "ro-crate list");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    torc_client client(std::move(command.settings));
    auto rows =
        client.list_all("/workflows/" + std::to_string(command.workflow_id) + "/ro_crate_entities");
    if (!rows) return fail(rows.error().message, 1);
    json::array out(rows->begin(), rows->end());
    std::cout << json::serialize(out) << "\n";
    return 0;
}

}  // namespace

int cmd_ro_crate(arguments const& args)
{
    auto const rest = args.empty() ? arguments{} : arguments(args.begin() + 1, args.end());
    if (!args.empty() && args.front() == "export") return export_crate(rest);
    if (!args.empty() && args.front() == "create") return create_entity(rest);
    if (!args.empty() && args.front() == "list") return list_entities(rest);
    bool const help = !args.empty() && (args.front() == "-h" || args.front() == "--help");
    (help ? std::cout : std::cerr)
        << "usage: torcrun ro-crate export WF [-o FILE]: write the workflow's "
           "ro-crate-metadata.json\n"
           "       torcrun ro-crate create WF --entity-id ID --entity-type TYPE [--metadata "
           "JSON]: record an entity\n"
           "       torcrun ro-crate list WF: the workflow's entities as JSON\n";
    return help ? 0 : 2;
}

}  // namespace torcrun::apps
