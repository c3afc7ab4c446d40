// See report_gathering.hpp.
#include "report_gathering.hpp"

#include "torcrun/cli/job_listing.hpp"

#include "attempt_records.hpp"
#include "json_fields.hpp"
#include "run_directory.hpp"
#include "worker_output_dirs.hpp"
#include "workflow_summary.hpp"
#include "torcrun/server/job_status.hpp"
#include "torcrun/worker/launch_plan.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <iostream>
#include <map>

namespace torcrun::apps {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::optional<double> real_of(json::value const& v, std::string_view key)
{
    auto const* f = field(v, key);
    if (!f) return std::nullopt;
    if (f->is_double()) return f->as_double();
    if (f->is_int64()) return static_cast<double>(f->as_int64());
    if (f->is_uint64()) return static_cast<double>(f->as_uint64());
    return std::nullopt;
}

std::optional<std::uint64_t> bytes_of(json::value const& v, std::string_view key)
{
    auto const* f = field(v, key);
    if (f && f->is_int64() && f->as_int64() >= 0) return static_cast<std::uint64_t>(f->as_int64());
    if (f && f->is_uint64()) return f->as_uint64();
    return std::nullopt;
}

struct job_facts {
    std::string name;
    std::int64_t cpus = 1;
    std::int64_t gpus = 0;
    std::string origin;  // dynamic jobs: "spawn by 8" (core::origin_cell); empty if declared
};

core::attempt_paths paths_of(std::string const& output_dir, core::report_attempt const& a,
                             std::int64_t workflow_id)
{
    return core::attempt_log_paths(
        output_dir, {workflow_id, a.job_id, a.job_name, a.run_id, a.attempt_id, std::nullopt});
}

// The GPU ids, the step's nodes and the series the worker wrote into the attempt's directory, where they are.
core::result<void> read_attempt_files(std::string const& output_dir, core::report_attempt& a,
                                      std::int64_t workflow_id, recorded_attempts& records)
{
    auto const paths = paths_of(output_dir, a, workflow_id);
    auto const* facts = records.find(
        output_dir, {workflow_id, a.job_id, a.job_name, a.run_id, a.attempt_id, std::nullopt});
    auto recorded = read_recorded_attempt(paths.result_file, facts);
    if (!recorded) return recorded.error();
    if (recorded->gpu_ids) a.gpu_ids = std::move(*recorded->gpu_ids);
    a.step_nodes = std::move(recorded->nodes);
    auto series = read_usage_series(paths.usage_file, facts);
    if (!series) return series.error();
    if (*series) a.series = std::move(**series);
    if (facts && facts->gpu) a.gpu = *facts->gpu;
    return {};
}

// The attempt's log directory relative to the page's directory and the output files in it, when
// it exists.
void link_logs(std::string const& output_dir, std::string const& html_path,
               core::report_attempt& a, std::int64_t workflow_id)
{
    auto const dir = fs::absolute(paths_of(output_dir, a, workflow_id).dir);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    auto const page_dir = fs::absolute(html_path).parent_path();
    a.log_link = dir.lexically_relative(page_dir).generic_string();
    for (auto const* name : {"stderr", "stdout", "output"})
        if (fs::is_regular_file(dir / name, ec)) a.log_files.emplace_back(name);
}

}  // namespace

core::result<core::report_input> gather_report(torc_client& client, std::int64_t workflow_id,
                                               std::optional<std::string> const& output_dir,
                                               std::string const& html_path)
{
    auto const wf = std::to_string(workflow_id);
    auto summary = workflow_summary(client, workflow_id);
    if (!summary) return summary.error();
    core::report_input in;
    in.workflow_id = workflow_id;
    in.workflow_name = text_of(&summary->at("name"));
    auto const& counts = summary->at("jobs").as_object();
    for (auto const st : core::all_job_statuses)
        if (auto const n = counts.at(core::to_string(st)).as_int64(); n != 0)
            in.job_counts.emplace_back(core::to_string(st), n);

    auto requirements = client.list_all("/resource_requirements?workflow_id=" + wf);
    if (!requirements) return requirements.error();
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> rr;  // id -> cpus, gpus
    for (auto const& r : *requirements)
        rr[integer_of(r, "id")] = {integer_of(r, "num_cpus", 1), integer_of(r, "num_gpus", 0)};
    auto jobs = client.list_all("/jobs?workflow_id=" + wf);
    if (!jobs) return jobs.error();
    std::map<std::int64_t, job_facts> job_by_id;
    for (auto const& j : *jobs) {
        job_facts facts{text_of(field(j, "name")), 1, 0, {}};
        if (auto const* o = field(j, "origin"); o && o->is_string()) {
            auto const* by = field(j, "spawned_by_job_id");
            facts.origin = core::origin_cell(
                std::string_view(o->get_string()),
                by && by->is_int64() ? std::optional(by->get_int64()) : std::nullopt);
        }
        if (auto it = rr.find(integer_of(j, "resource_requirements_id", -1)); it != rr.end())
            std::tie(facts.cpus, facts.gpus) = it->second;
        job_by_id[integer_of(j, "id")] = std::move(facts);
    }
    auto nodes = client.list_all("/compute_nodes?workflow_id=" + wf);
    if (!nodes) return nodes.error();
    worker_output_dirs dirs(output_dir);
    dirs.add_nodes(*nodes);
    for (auto const& n : *nodes) {
        core::report_node node{integer_of(n, "id"), text_of(field(n, "hostname")),
                               integer_of(n, "num_cpus"), integer_of(n, "num_gpus"),
                               std::nullopt};
        if (auto const dir = dirs.known(node.id)) {
            auto usage = read_node_series(*dir, node.id);
            if (!usage) return usage.error();
            node.usage = std::move(*usage);
        }
        in.nodes.push_back(std::move(node));
    }

    auto results = client.list_all("/results?workflow_id=" + wf + "&all_runs=true");
    if (!results) return results.error();
    recorded_attempts records;
    for (auto const& r : *results) {
        core::report_attempt a;
        a.job_id = integer_of(r, "job_id");
        a.run_id = integer_of(r, "run_id");
        a.attempt_id = integer_of(r, "attempt_id", 1);
        a.compute_node_id = integer_of(r, "compute_node_id");
        a.return_code = integer_of(r, "return_code");
        a.status = text_of(field(r, "status"));
        auto const completion = text_of(field(r, "completion_time"));
        auto const end = core::parse_utc_timestamp(completion);
        if (!end)
            return core::error{"result " + std::to_string(integer_of(r, "id")) +
                               ": completion_time \"" + completion + "\" is not a UTC time"};
        a.end_seconds = *end;
        a.start_seconds = *end - real_of(r, "exec_time_minutes").value_or(0) * 60;
        if (auto it = job_by_id.find(a.job_id); it != job_by_id.end()) {
            a.job_name = it->second.name;
            a.num_cpus = it->second.cpus;
            a.num_gpus = it->second.gpus;
            a.origin = it->second.origin;
        } else {
            a.job_name = "job " + std::to_string(a.job_id);
        }
        a.peak_memory_bytes = bytes_of(r, "peak_memory_bytes");
        a.avg_memory_bytes = bytes_of(r, "avg_memory_bytes");
        a.peak_cpu_percent = real_of(r, "peak_cpu_percent");
        a.avg_cpu_percent = real_of(r, "avg_cpu_percent");
        if (auto const dir = dirs.known(a.compute_node_id)) {
            if (auto read = read_attempt_files(*dir, a, workflow_id, records); !read)
                return read.error();
            if (a.status != "completed") link_logs(*dir, html_path, a, workflow_id);
        }
        in.attempts.push_back(std::move(a));
    }
    for (auto const& why : records.skipped())
        std::cerr << "torcrun report: warning: a job record line was skipped: " << why << "\n";
    return in;
}

core::result<void> write_report(torc_client& client, std::int64_t workflow_id,
                                std::optional<std::string> const& output_dir,
                                std::string const& html_path)
{
    auto in = gather_report(client, workflow_id, output_dir, html_path);
    if (!in) return in.error();
    return write_whole_file(html_path, core::render_report_html(*in));
}

}  // namespace torcrun::apps
