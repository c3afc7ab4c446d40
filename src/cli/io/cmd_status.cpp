// `torcrun status WF [--json]`: a workflow's name, user, run id, whether it is complete or
// canceled, and how many jobs are in each status. The counts come from the listing's
// `total_count` per status filter, so a workflow of any size costs a dozen small requests.
#include "torcrun/cli/commands.hpp"

#include "torc_client.hpp"
#include "torcrun/server/job_status.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <iostream>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun status: " << message << "\n";
    return status;
}

json::value const* field(json::value const& v, std::string_view key)
{
    auto const* o = v.if_object();
    return o ? o->if_contains(key) : nullptr;
}

std::string text_of(json::value const* v)
{
    if (!v || v->is_null()) return "";
    if (v->is_string()) return std::string(v->as_string());
    return json::serialize(*v);
}

// Each status's count, in status order, and the total.
core::result<json::object> job_counts(torc_client& client, std::int64_t wf)
{
    json::object counts;
    std::int64_t total = 0;
    for (auto const s : core::all_job_statuses) {
        auto const name = core::to_string(s);
        auto const path = "/jobs?workflow_id=" + std::to_string(wf) +
                          "&status=" + std::string(name) + "&offset=0&limit=1";
        auto page = client.call("GET", path);
        if (!page) return page.error();
        auto const* n = field(*page, "total_count");
        if (!n || !n->is_int64())
            return core::error{"GET " + path + ": the answer has no integer \"total_count\""};
        counts[name] = n->as_int64();
        total += n->as_int64();
    }
    counts["total"] = total;
    return counts;
}

core::result<json::object> workflow_summary(torc_client& client, std::int64_t wf)
{
    auto const base = "/workflows/" + std::to_string(wf);
    auto workflow = client.call("GET", base);
    if (!workflow) return workflow.error();
    auto status = client.call("GET", base + "/status");
    if (!status) return status.error();
    auto complete = client.call("GET", base + "/is_complete");
    if (!complete) return complete.error();
    auto counts = job_counts(client, wf);
    if (!counts) return counts.error();
    json::object out{{"id", wf},
                     {"name", text_of(field(*workflow, "name"))},
                     {"user", text_of(field(*workflow, "user"))}};
    auto copy = [&out](json::value const& from, std::string_view key) {
        auto const* v = field(from, key);
        out[key] = v ? *v : json::value(nullptr);
    };
    copy(*status, "run_id");
    copy(*complete, "is_complete");
    copy(*complete, "is_canceled");
    out["jobs"] = std::move(*counts);
    return out;
}

void print_summary(std::ostream& out, json::object const& s)
{
    out << "workflow " << text_of(&s.at("id")) << ": " << text_of(&s.at("name")) << " (user "
        << text_of(&s.at("user")) << ")\n"
        << "run id: " << text_of(&s.at("run_id")) << "\n"
        << "is complete: " << text_of(&s.at("is_complete")) << "\n"
        << "is canceled: " << text_of(&s.at("is_canceled")) << "\n";
    auto const& jobs = s.at("jobs").as_object();
    out << "jobs: " << jobs.at("total").as_int64() << "\n";
    for (auto const st : core::all_job_statuses) {
        auto const n = jobs.at(core::to_string(st)).as_int64();
        if (n != 0) out << "  " << core::to_string(st) << ": " << n << "\n";
    }
}

}  // namespace

int cmd_status(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")("json", "print one JSON object");
    auto command_line = parse_workflow_command(args, options, "status");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const& flags = command.flags;
    torc_client client(std::move(command.settings));
    auto summary = workflow_summary(client, command.workflow_id);
    if (!summary) return fail(summary.error().message, 1);
    if (flags.count("json")) {
        std::cout << json::serialize(*summary) << "\n";
    } else {
        print_summary(std::cout, *summary);
    }
    return 0;
}

}  // namespace torcrun::apps
