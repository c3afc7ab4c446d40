// `torcrun jobs WF [--status S] [--json] [--url URL | --output-dir D]`: the workflow's jobs (404
// when there is no such workflow), paged through GET /jobs, with
// the return code of each job's latest result (the highest run id, then the latest row).
#include "torcrun/cli/commands.hpp"

#include "json_fields.hpp"
#include "torc_client.hpp"
#include "torcrun/server/job_status.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <utility>
#include <vector>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

int fail(std::string const& message, int status)
{
    std::cerr << "torcrun jobs: " << message << "\n";
    return status;
}

struct latest_result {
    std::int64_t run_id = -1;
    std::int64_t id = -1;
    std::int64_t return_code = 0;
};

core::result<std::map<std::int64_t, latest_result>> latest_results(torc_client& client,
                                                                   std::int64_t wf)
{
    auto rows = client.list_all("/results?workflow_id=" + std::to_string(wf));
    if (!rows) return rows.error();
    std::map<std::int64_t, latest_result> out;
    for (auto const& r : *rows) {
        latest_result const candidate{integer_of(r, "run_id"), integer_of(r, "id"),
                                      integer_of(r, "return_code")};
        auto& best = out[integer_of(r, "job_id")];
        if (std::pair(candidate.run_id, candidate.id) > std::pair(best.run_id, best.id))
            best = candidate;
    }
    return out;
}

struct job_row {
    std::int64_t id;
    std::string name;
    std::string status;
    std::optional<std::int64_t> return_code;
    std::string command;
};

std::string one_line(std::string s)
{
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

void print_table(std::ostream& out, std::vector<job_row> const& rows)
{
    std::vector<std::vector<std::string>> cells{{"ID", "NAME", "STATUS", "RC", "COMMAND"}};
    for (auto const& r : rows)
        cells.push_back({std::to_string(r.id), r.name, r.status,
                         r.return_code ? std::to_string(*r.return_code) : "-",
                         one_line(r.command)});
    std::size_t widths[4] = {};
    for (auto const& line : cells)
        for (std::size_t c = 0; c < 4; ++c) widths[c] = std::max(widths[c], line[c].size());
    for (auto const& line : cells) {
        for (std::size_t c = 0; c < 4; ++c)
            out << line[c] << std::string(widths[c] - line[c].size() + 2, ' ');
        out << line[4] << "\n";
    }
}

json::array to_json(std::vector<job_row> const& rows)
{
    json::array out;
    for (auto const& r : rows) {
        json::object o{{"id", r.id}, {"name", r.name}, {"status", r.status}};
        o["return_code"] = r.return_code ? json::value(*r.return_code) : json::value(nullptr);
        o["command"] = r.command;
        out.push_back(std::move(o));
    }
    return out;
}

core::result<std::vector<job_row>> job_rows(torc_client& client, std::int64_t wf,
                                            std::optional<std::string> const& status)
{
    // The listing of an unknown workflow is empty; the workflow's own record says 404.
    if (auto workflow = client.call("GET", "/workflows/" + std::to_string(wf)); !workflow)
        return workflow.error();
    auto path = "/jobs?workflow_id=" + std::to_string(wf);
    if (status) path += "&status=" + *status;
    auto jobs = client.list_all(path);
    if (!jobs) return jobs.error();
    auto results = latest_results(client, wf);
    if (!results) return results.error();
    std::vector<job_row> rows;
    for (auto const& j : *jobs) {
        job_row row{integer_of(j, "id"), text_of(field(j, "name")),
                    text_of(field(j, "status")), std::nullopt, text_of(field(j, "command"))};
        if (auto it = results->find(row.id); it != results->end())
            row.return_code = it->second.return_code;
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

int cmd_jobs(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")("json", "print one JSON array")(
        "status", po::value<std::string>()->value_name("S"), "only jobs in this status");
    auto command_line = parse_workflow_command(args, options, "jobs");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const& flags = command.flags;
    std::optional<std::string> status;
    if (flags.count("status")) {
        auto parsed = core::parse_job_status(flags["status"].as<std::string>());
        if (!parsed) return fail(parsed.error().message, 2);
        status = std::string(core::to_string(*parsed));
    }
    torc_client client(std::move(command.settings));
    auto rows = job_rows(client, command.workflow_id, status);
    if (!rows) return fail(rows.error().message, 1);
    if (flags.count("json")) {
        std::cout << json::serialize(to_json(*rows)) << "\n";
    } else {
        print_table(std::cout, *rows);
    }
    return 0;
}

}  // namespace torcrun::apps
