// `torcrun jobs WF [--status S,...] [--json] [--url URL | --output-dir D] [--worker-output-dir
// D]`: the workflow's jobs (404 when there is no such workflow), paged through GET /jobs, with
// the facts of each job's latest result (the highest run id, then the latest row; GET /results
// with all_runs, whose rows also count the attempts): return code, start (completion time less
// the run time), duration, the compute node's hostname, peak memory and CPU, and the attempt's
// logs under the worker's output directory (worker_output_dirs.hpp: its directory where it has
// one, else its stdout file), and the GPU ids the attempt held as the worker recorded them there
// (attempt_records.hpp; the server's result has no such field). After the table, the
// workflow's datasets (dataset_listing.hpp).
#include "torcrun/cli/commands.hpp"

#include "attempt_records.hpp"
#include "dataset_records.hpp"
#include "json_fields.hpp"
#include "torc_client.hpp"
#include "torcrun/cli/dataset_listing.hpp"
#include "worker_output_dirs.hpp"
#include "torcrun/cli/job_listing.hpp"
#include "torcrun/common/date_time.hpp"
#include "torcrun/server/job_status.hpp"
#include "torcrun/worker/launch_plan.hpp"

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

double number_of(json::value const& v, std::string_view key, double fallback)
{
    auto const* f = field(v, key);
    return f && f->is_number() ? f->to_number<double>() : fallback;
}

// Per job: its latest result (the highest run id, then the latest row) and how many it has.
struct job_results {
    json::value const* latest = nullptr;
    std::int64_t count = 0;
};

std::map<std::int64_t, job_results> results_by_job(std::vector<json::value> const& rows)
{
    std::map<std::int64_t, job_results> out;
    for (auto const& r : rows) {
        auto& entry = out[integer_of(r, "job_id")];
        ++entry.count;
        if (!entry.latest || std::pair(integer_of(r, "run_id"), integer_of(r, "id")) >
                                 std::pair(integer_of(*entry.latest, "run_id"),
                                           integer_of(*entry.latest, "id")))
            entry.latest = &r;
    }
    return out;
}

struct job_row {
    std::int64_t id;
    std::string name;
    std::string status;
    std::optional<std::int64_t> return_code;
    core::attempt_facts attempt;
    std::string command;
    std::string origin;  // newer Torc's `origin` ("spawn"); empty for a declared job
    std::optional<std::int64_t> spawned_by;
};

std::string one_line(std::string s)
{
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

void print_table(std::ostream& out, std::vector<job_row> const& rows)
{
    std::vector<std::string> headings{"ID", "NAME", "STATUS", "RC"};
    // GPU figures and bound CPUs: only when some job held a GPU or was bound, so a CPU
    // workflow's table stays as it was.
    bool const gpus = std::any_of(rows.begin(), rows.end(), [](job_row const& r) {
        auto const& a = r.attempt;
        return (a.gpu_ids && !a.gpu_ids->empty()) || !a.bound_cpus.empty();
    });
    for (auto const& h : core::attempt_headings(gpus)) headings.push_back(h);
    // Dynamic jobs: the column only when some job has an origin, so a static workflow's table
    // stays as it was.
    bool const origins =
        std::any_of(rows.begin(), rows.end(), [](job_row const& r) { return !r.origin.empty(); });
    if (origins) headings.push_back("ORIGIN");
    headings.push_back("COMMAND");
    std::vector<std::vector<std::string>> cells{headings};
    for (auto const& r : rows) {
        std::vector<std::string> line{std::to_string(r.id), r.name, r.status,
                                      r.return_code ? std::to_string(*r.return_code) : "-"};
        for (auto& c : core::attempt_cells(r.attempt, gpus)) line.push_back(std::move(c));
        if (origins) line.push_back(core::origin_cell(r.origin, r.spawned_by));
        line.push_back(one_line(r.command));
        cells.push_back(std::move(line));
    }
    auto const padded = headings.size() - 1;  // the command ends the line
    std::vector<std::size_t> widths(padded, 0);
    for (auto const& line : cells)
        for (std::size_t c = 0; c < padded; ++c) widths[c] = std::max(widths[c], line[c].size());
    for (auto const& line : cells) {
        for (std::size_t c = 0; c < padded; ++c)
            out << line[c] << std::string(widths[c] - line[c].size() + 2, ' ');
        out << line[padded] << "\n";
    }
}

template <class T>
json::value or_null(std::optional<T> const& v)
{
    return v ? json::value(*v) : json::value(nullptr);
}

json::array to_json(std::vector<job_row> const& rows)
{
    json::array out;
    for (auto const& r : rows) {
        json::object o{{"id", r.id}, {"name", r.name}, {"status", r.status}};
        o["return_code"] = or_null(r.return_code);
        auto const& a = r.attempt;
        o["attempts"] = a.attempts;
        o["start_time"] = a.start_unix ? json::value(core::format_torc_time(*a.start_unix))
                                       : json::value(nullptr);
        o["exec_seconds"] = or_null(a.seconds);
        o["node"] = a.node.empty() ? json::value(nullptr) : json::value(a.node);
        if (a.gpu_ids) {
            json::array ids;
            for (auto const& id : *a.gpu_ids) ids.emplace_back(id);
            o["gpu_ids"] = std::move(ids);
        } else {
            o["gpu_ids"] = nullptr;
        }
        o["peak_memory_bytes"] = or_null(a.peak_memory_bytes);
        o["avg_memory_bytes"] = or_null(a.avg_memory_bytes);
        o["peak_cpu_percent"] = or_null(a.peak_cpu_percent);
        o["avg_cpu_percent"] = or_null(a.avg_cpu_percent);
        o["peak_gpu_percent"] = or_null(a.peak_gpu_percent);
        o["avg_gpu_percent"] = or_null(a.avg_gpu_percent);
        o["peak_gpu_memory_bytes"] = or_null(a.peak_gpu_memory_bytes);
        if (a.peak_gpu_memory_bytes) o["gpu_per_process"] = a.gpu_per_process;
        o["bound_cpus"] = a.bound_cpus.empty() ? json::value(nullptr) : json::value(a.bound_cpus);
        o["log_dir"] = or_null(a.log_dir);
        o["command"] = r.command;
        if (!r.origin.empty()) {  // as Torc: no `origin` for a declared job
            o["origin"] = r.origin;
            o["spawned_by_job_id"] = or_null(r.spawned_by);
        }
        out.push_back(std::move(o));
    }
    return out;
}

// The latest result's facts, its files under the output directory of the worker that ran it.
// Error: its result.json does not read (attempt_records.hpp).
core::result<core::attempt_facts> facts_of(job_results const& results, std::int64_t wf,
                                           job_row const& job,
                                           std::map<std::int64_t, std::string> const& hosts,
                                           worker_output_dirs const& dirs,
                                           recorded_attempts& records)
{
    core::attempt_facts f;
    f.attempts = results.count;
    auto const& r = *results.latest;
    f.seconds = number_of(r, "exec_time_minutes", 0) * 60;
    if (auto done = core::parse_date_time(text_of(field(r, "completion_time"))))
        f.start_unix = *done - *f.seconds;
    if (auto it = hosts.find(integer_of(r, "compute_node_id")); it != hosts.end())
        f.node = it->second;
    if (auto const* m = field(r, "peak_memory_bytes"); m && m->is_number())
        f.peak_memory_bytes = m->to_number<std::uint64_t>();
    if (auto const* c = field(r, "peak_cpu_percent"); c && c->is_number())
        f.peak_cpu_percent = c->to_number<double>();
    if (auto const* m = field(r, "avg_memory_bytes"); m && m->is_number())
        f.avg_memory_bytes = m->to_number<std::uint64_t>();
    if (auto const* c = field(r, "avg_cpu_percent"); c && c->is_number())
        f.avg_cpu_percent = c->to_number<double>();
    auto const root = dirs.of_node(integer_of(r, "compute_node_id"));
    core::torc_job_identity const id{wf, job.id, job.name, integer_of(r, "run_id"),
                                     integer_of(r, "attempt_id", 1), std::nullopt};
    auto const paths = core::attempt_log_paths(root, id);
    f.log_dir = log_location(paths);
    auto const* facts = records.find(root, id);
    if (facts) f.bound_cpus = facts->bound_cpus;
    if (facts && facts->gpu) {
        f.peak_gpu_percent = facts->gpu->peak_percent;
        f.avg_gpu_percent = facts->gpu->avg_percent;
        f.peak_gpu_memory_bytes = facts->gpu->peak_memory_bytes;
        f.gpu_per_process = facts->gpu->per_process;
    }
    auto recorded = read_recorded_attempt(paths.result_file, facts);
    if (!recorded) return recorded.error();
    f.gpu_ids = std::move(recorded->gpu_ids);
    // slurm mode: the step's own node(s), not the host of the worker that started it.
    if (!recorded->nodes.empty()) f.node = std::move(recorded->nodes);
    return f;
}

core::result<std::vector<job_row>> job_rows(torc_client& client, std::int64_t wf,
                                            std::vector<core::job_status> const& statuses,
                                            worker_output_dirs dirs)
{
    auto const w = std::to_string(wf);
    auto jobs = client.workflow_jobs(wf);
    if (!jobs) return jobs.error();
    auto results = client.list_all("/results?workflow_id=" + w + "&all_runs=true");
    if (!results) return results.error();
    auto nodes = client.list_all("/compute_nodes?workflow_id=" + w);
    if (!nodes) return nodes.error();
    std::map<std::int64_t, std::string> hosts;
    for (auto const& n : *nodes) hosts[integer_of(n, "id")] = text_of(field(n, "hostname"));
    dirs.add_nodes(*nodes);
    auto const by_job = results_by_job(*results);
    recorded_attempts records;
    std::vector<job_row> rows;
    for (auto const& j : *jobs) {
        job_row row{integer_of(j, "id"), text_of(field(j, "name")), text_of(field(j, "status")),
                    std::nullopt, {}, text_of(field(j, "command")), {}, std::nullopt};
        if (auto const* o = field(j, "origin"); o && o->is_string())
            row.origin = std::string(o->get_string());
        if (auto const* by = field(j, "spawned_by_job_id"); by && by->is_int64())
            row.spawned_by = by->get_int64();
        if (!statuses.empty()) {
            auto const status = core::parse_job_status(row.status);
            if (!status || std::find(statuses.begin(), statuses.end(), *status) == statuses.end())
                continue;
        }
        if (auto it = by_job.find(row.id); it != by_job.end()) {
            row.return_code = integer_of(*it->second.latest, "return_code");
            auto facts = facts_of(it->second, wf, row, hosts, dirs, records);
            if (!facts) return facts.error();
            row.attempt = std::move(*facts);
        }
        rows.push_back(std::move(row));
    }
    for (auto const& why : records.skipped())
        std::cerr << "torcrun jobs: warning: a job record line was skipped: " << why << "\n";
    return rows;
}

}  // namespace

int cmd_jobs(arguments const& args)
{
    po::options_description options("options");
    options.add_options()("help,h", "print this help")("json", "print one JSON array")(
        "status", po::value<std::string>()->value_name("S[,S...]"),
        "only jobs in these statuses (failed,canceled)");
    options.add(worker_output_dir_option());
    auto command_line = parse_workflow_command(args, options, "jobs");
    if (auto const* exit_status = std::get_if<int>(&command_line)) return *exit_status;
    auto& command = std::get<workflow_command>(command_line);
    auto const& flags = command.flags;
    std::vector<core::job_status> statuses;
    if (flags.count("status")) {
        auto parsed = core::parse_status_list(flags["status"].as<std::string>());
        if (!parsed) return fail(parsed.error().message, 2);
        statuses = std::move(*parsed);
    }
    torc_client client(std::move(command.settings));
    auto rows = job_rows(client, command.workflow_id, statuses,
                         worker_output_dirs(named_worker_output_dir(flags)));
    if (!rows) return fail(rows.error().message, 1);
    if (flags.count("json")) {
        std::cout << json::serialize(to_json(*rows)) << "\n";
    } else {
        print_table(std::cout, *rows);
        auto datasets = workflow_datasets(client, command.workflow_id);
        if (!datasets) return fail(datasets.error().message, 1);
        std::cout << dataset_lines(*datasets);
    }
    return 0;
}

}  // namespace torcrun::apps
