// Log files, progress lines and the summary's facts of `torcrun run`.
#include "run_output.hpp"

#include "torcrun/common/date_time.hpp"
#include "torcrun/worker/launch_plan.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <algorithm>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

struct log_file {
    std::mutex mutex;
    std::ofstream out;
};

std::int64_t int_field(json::value const& v, std::string_view key, std::int64_t fallback)
{
    auto const* o = v.if_object();
    auto const* f = o ? o->if_contains(key) : nullptr;
    return f && f->is_int64() ? f->as_int64() : fallback;
}

std::string string_field(json::value const& v, std::string_view key)
{
    auto const* o = v.if_object();
    auto const* f = o ? o->if_contains(key) : nullptr;
    return f && f->is_string() ? std::string(f->as_string()) : std::string();
}

}  // namespace

core::result<io::logger> file_logger(std::string const& path, io::log_level level)
{
    auto file = std::make_shared<log_file>();
    file->out.open(path, std::ios::app);
    if (!file->out) return core::error{path + ": cannot open: " + std::strerror(errno)};
    return io::logger{level, [file](io::log_level, std::string_view line) {
                          auto const now = std::chrono::duration<double>(
                              std::chrono::system_clock::now().time_since_epoch());
                          auto const stamp = core::format_torc_time(now.count());
                          std::lock_guard lock(file->mutex);
                          file->out << stamp << ' ' << line << '\n' << std::flush;
                      }};
}

std::string progress_display::line(core::status_counts const& counts) const
{
    auto const elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return "torcrun run: " +
           core::format_progress_line(core::compute_progress(counts, elapsed), elapsed);
}

void progress_display::show(core::status_counts const& counts)
{
    std::lock_guard lock(mutex_);
    if (in_place_) {
        std::cerr << '\r' << line(counts) << "\x1b[K" << std::flush;
    } else {
        std::cerr << line(counts) << std::endl;
    }
}

void progress_display::finish(core::status_counts const& counts)
{
    std::lock_guard lock(mutex_);
    if (in_place_) std::cerr << '\r';
    std::cerr << line(counts) << (in_place_ ? "\x1b[K\n" : "\n") << std::flush;
}

void progress_display::note(std::string const& text)
{
    std::lock_guard lock(mutex_);
    if (in_place_) std::cerr << "\r\x1b[K";
    std::cerr << text << std::flush;
}

std::vector<std::string> stderr_tail(std::string const& path)
{
    constexpr std::streamoff window = 8192;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return {};
    auto const size = static_cast<std::streamoff>(in.tellg());
    in.seekg(std::max<std::streamoff>(0, size - window));
    std::string text(static_cast<std::size_t>(std::min(size, window)), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return core::last_lines(text, core::stderr_tail_lines);
}

core::result<core::run_summary> read_summary(torc_client& client, std::int64_t workflow_id,
                                             core::status_counts const& counts,
                                             std::string const& output_dir)
{
    auto const wf = std::to_string(workflow_id);
    auto workflow = client.call("GET", "/workflows/" + wf);
    if (!workflow) return workflow.error();
    auto run = client.run_id(workflow_id, &*workflow);
    if (!run) return run.error();
    auto jobs = client.list_all("/jobs?workflow_id=" + wf);
    if (!jobs) return jobs.error();
    auto results = client.list_all("/results?workflow_id=" + wf);
    if (!results) return results.error();
    std::map<std::int64_t, json::value const*> latest;  // the current result of each job
    for (auto const& r : *results) latest[int_field(r, "job_id", 0)] = &r;
    std::set<std::int64_t> tailed;  // return codes whose first failed job's stderr is read
    core::run_summary s;
    s.workflow_id = workflow_id;
    s.workflow_name = string_field(*workflow, "name");
    s.counts = counts;
    for (auto const& job : *jobs) {
        auto status = core::parse_job_status(string_field(job, "status"));
        if (!status || *status == core::job_status::completed) continue;
        core::unfinished_job u{int_field(job, "id", 0), string_field(job, "name"), *status, {}, {}};
        if (auto it = latest.find(u.id); it != latest.end()) {
            auto const& r = *it->second;
            u.return_code = int_field(r, "return_code", 0);
            core::torc_job_identity id{workflow_id, u.id, u.name, int_field(r, "run_id", 0),
                                       int_field(r, "attempt_id", 1), std::nullopt};
            auto const paths = core::attempt_log_paths(output_dir, id);
            u.log_dir = paths.dir;
            if (*status == core::job_status::failed && tailed.insert(*u.return_code).second)
                u.stderr_tail = stderr_tail(paths.stderr_file);
        } else if (*status == core::job_status::canceled) {
            // Canceled while it ran: the server refused its result, but its attempt has logs.
            core::torc_job_identity id{workflow_id, u.id, u.name, *run,
                                       int_field(job, "attempt_id", 1), std::nullopt};
            auto dir = core::attempt_log_paths(output_dir, id).dir;
            std::error_code ec;
            if (std::filesystem::is_directory(dir, ec)) u.log_dir = std::move(dir);
        }
        s.unfinished.push_back(std::move(u));
    }
    return s;
}

}  // namespace torcrun::apps
