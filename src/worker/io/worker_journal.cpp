// The results journal: JSON-lines encoding of job reports, the lock file, fsync'ed appends and
// atomic rewrites (see worker_journal.hpp for why each).
#include "worker_journal.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

namespace torcrun::io {

namespace json = boost::json;

namespace {

constexpr std::array statuses = {core::result_status::completed, core::result_status::failed,
                                 core::result_status::canceled, core::result_status::terminated,
                                 core::result_status::pending_failed};

std::string system_error(std::string_view what, std::string const& path)
{
    return detail::cat(what, " \"", path, "\": ", std::strerror(errno));
}

json::value const& field(json::object const& o, std::string_view name)
{
    auto const* v = o.if_contains(name);
    if (!v) throw std::invalid_argument(detail::cat("no field \"", name, "\""));
    return *v;
}

core::job_result result_from(json::object const& o)
{
    core::job_result r;
    r.job_id = field(o, "job_id").to_number<std::int64_t>();
    r.workflow_id = field(o, "workflow_id").to_number<std::int64_t>();
    r.run_id = field(o, "run_id").to_number<std::int64_t>();
    r.attempt_id = field(o, "attempt_id").to_number<std::uint32_t>();
    r.compute_node_id = field(o, "compute_node_id").to_number<std::int64_t>();
    r.return_code = field(o, "return_code").to_number<int>();
    r.exec_time_minutes = field(o, "exec_time_minutes").to_number<double>();
    r.completion_time = field(o, "completion_time").to_number<double>();
    auto const status = field(o, "status").as_string();
    auto const it = std::find_if(statuses.begin(), statuses.end(),
                                 [&](auto s) { return core::to_string(s) == status; });
    if (it == statuses.end())
        throw std::invalid_argument(detail::cat("status \"", status, "\" is unknown"));
    r.status = *it;
    if (o.contains("peak_memory_bytes")) {
        r.usage = core::job_usage{field(o, "peak_memory_bytes").to_number<std::uint64_t>(),
                                  field(o, "avg_memory_bytes").to_number<std::uint64_t>(),
                                  field(o, "peak_cpu_percent").to_number<double>(),
                                  field(o, "avg_cpu_percent").to_number<double>()};
    }
    // Journals written before the GPU ids were kept have none.
    if (auto const* gpus = o.if_contains("gpu_ids"))
        for (auto const& id : gpus->as_array()) r.gpu_ids.emplace_back(id.as_string());
    if (auto const* nodes = o.if_contains("nodes"); nodes && nodes->is_string())
        r.nodes = nodes->get_string();
    return r;
}

bool matches(core::job_report const& report, core::worker::report_key const& key)
{
    return report.kind == key.kind && report.result.job_id == key.job_id &&
           report.result.attempt_id == key.attempt_id;
}

std::string node_line(std::int64_t compute_node_id)
{
    return json::serialize(json::object{{"kind", "node"}, {"compute_node_id", compute_node_id}});
}

// A node line's id; nullopt for any other line (a report, or one that does not parse).
std::optional<std::int64_t> parse_node_line(std::string_view line)
{
    boost::system::error_code ec;
    auto const v = json::parse(line, ec);
    if (ec || !v.is_object()) return std::nullopt;
    auto const& o = v.get_object();
    auto const* kind = o.if_contains("kind");
    auto const* id = o.if_contains("compute_node_id");
    if (!kind || !kind->is_string() || kind->get_string() != "node" || !id || !id->is_int64())
        return std::nullopt;
    return id->get_int64();
}

core::result<void> write_all(int fd, std::string const& text, std::string const& path)
{
    std::size_t done = 0;
    while (done < text.size()) {
        auto const n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return core::error{system_error("journal: write", path)};
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) return core::error{system_error("journal: fsync", path)};
    return {};
}

}  // namespace

json::storage_ptr record_arena()
{
    return json::make_shared_resource<json::monotonic_resource>(2048);
}

json::object result_json(core::job_result const& r, json::storage_ptr storage)
{
    // Room for every key at once (with `kind`, added by the callers): no rehash as they come.
    json::object o({{"job_id", r.job_id},
                    {"workflow_id", r.workflow_id},
                    {"run_id", r.run_id},
                    {"attempt_id", r.attempt_id},
                    {"compute_node_id", r.compute_node_id},
                    {"return_code", r.return_code},
                    {"status", core::to_string(r.status)},
                    {"exec_time_minutes", r.exec_time_minutes},
                    {"completion_time", r.completion_time}},
                   20, std::move(storage));
    if (r.usage) {
        o["peak_memory_bytes"] = r.usage->peak_memory_bytes;
        o["avg_memory_bytes"] = r.usage->avg_memory_bytes;
        o["peak_cpu_percent"] = r.usage->peak_cpu_percent;
        o["avg_cpu_percent"] = r.usage->avg_cpu_percent;
    }
    json::array gpus(o.storage());
    for (auto const& id : r.gpu_ids) gpus.emplace_back(id);
    o["gpu_ids"] = std::move(gpus);
    if (!r.nodes.empty()) o["nodes"] = r.nodes;
    return o;
}

std::string journal_line(core::job_report const& report)
{
    auto o = result_json(report.result, record_arena());
    o["kind"] = report.kind == core::report_kind::complete ? "complete" : "record";
    return json::serialize(o);
}

core::result<core::job_report> parse_journal_line(std::string_view line)
{
    boost::system::error_code ec;
    auto const v = json::parse(line, ec);
    if (ec) return core::error{detail::cat("journal line: ", ec.message())};
    try {
        auto const& o = v.as_object();
        auto const kind = field(o, "kind").as_string();
        if (kind != "complete" && kind != "record")
            return core::error{detail::cat("journal line: kind \"", kind, "\" is unknown")};
        return core::job_report{
            kind == "complete" ? core::report_kind::complete : core::report_kind::record,
            result_from(o)};
    } catch (std::exception const& e) {
        return core::error{detail::cat("journal line: ", e.what())};
    }
}

core::result<results_journal> results_journal::open(std::string const& output_dir,
                                                    std::int64_t workflow_id,
                                                    std::string const& node_name)
{
    auto const dir = std::filesystem::path(output_dir) / "journal";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        return core::error{detail::cat("journal: create \"", dir.string(), "\": ", ec.message())};
    results_journal j;
    auto const stem = detail::cat("wf", std::to_string(workflow_id), "_", node_name);
    for (auto const& name : {stem, detail::cat(stem, "_pid", std::to_string(::getpid()))}) {
        auto const lock_path = (dir / (name + ".lock")).string();
        int const fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) return core::error{system_error("journal: open", lock_path)};
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
            j.lock_fd_ = fd;
            j.path_ = (dir / (name + ".jsonl")).string();
            break;
        }
        ::close(fd);  // another live worker holds it
    }
    if (j.lock_fd_ < 0) return core::error{detail::cat("journal: \"", dir.string(), "\": locked")};
    if (auto r = j.read_back(); !r) return r.error();
    return j;
}

results_journal::results_journal(results_journal&& other) noexcept
    : path_(std::move(other.path_)),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      reports_(std::move(other.reports_)),
      nodes_(std::move(other.nodes_)),
      skipped_(std::move(other.skipped_))
{
}

results_journal& results_journal::operator=(results_journal&& other) noexcept
{
    if (this != &other) {
        if (lock_fd_ >= 0) ::close(lock_fd_);
        path_ = std::move(other.path_);
        lock_fd_ = std::exchange(other.lock_fd_, -1);
        reports_ = std::move(other.reports_);
        nodes_ = std::move(other.nodes_);
        skipped_ = std::move(other.skipped_);
    }
    return *this;
}

results_journal::~results_journal()
{
    if (lock_fd_ >= 0) ::close(lock_fd_);
}

core::result<void> results_journal::read_back()
{
    std::ifstream in(path_);
    if (!in) return {};  // no journal yet
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        if (auto const node = parse_node_line(line)) {
            if (std::find(nodes_.begin(), nodes_.end(), *node) == nodes_.end())
                nodes_.push_back(*node);
            continue;
        }
        auto report = parse_journal_line(line);
        if (report)
            reports_.push_back(std::move(*report));
        else
            skipped_.push_back(
                detail::cat(path_, ":", std::to_string(number), ": ", report.error().message));
    }
    return {};
}

core::result<void> results_journal::append_text(std::string const& text)
{
    int const fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return core::error{system_error("journal: open", path_)};
    auto const written = write_all(fd, text, path_);
    ::close(fd);
    return written;
}

core::result<void> results_journal::append(std::span<core::job_report const> reports)
{
    std::string text;
    for (auto const& r : reports) text += journal_line(r) + "\n";
    if (auto const written = append_text(text); !written) return written;
    reports_.insert(reports_.end(), reports.begin(), reports.end());
    return {};
}

core::result<void> results_journal::add_node(std::int64_t compute_node_id)
{
    if (std::find(nodes_.begin(), nodes_.end(), compute_node_id) != nodes_.end()) return {};
    if (auto const written = append_text(node_line(compute_node_id) + "\n"); !written)
        return written;
    nodes_.push_back(compute_node_id);
    return {};
}

core::result<void> results_journal::remove(std::span<core::worker::report_key const> keys)
{
    std::vector<core::job_report> kept;
    for (auto const& r : reports_) {
        if (std::none_of(keys.begin(), keys.end(), [&](auto const& k) { return matches(r, k); }))
            kept.push_back(r);
    }
    return rewrite(kept, nodes_);
}

core::result<void> results_journal::remove_node(std::int64_t compute_node_id)
{
    auto kept = nodes_;
    std::erase(kept, compute_node_id);
    if (kept.size() == nodes_.size()) return {};
    return rewrite(reports_, kept);
}

core::result<void> results_journal::rewrite(std::vector<core::job_report> const& reports,
                                            std::vector<std::int64_t> const& nodes)
{
    std::string text;
    for (auto const node : nodes) text += node_line(node) + "\n";
    for (auto const& r : reports) text += journal_line(r) + "\n";
    auto const tmp = path_ + ".tmp";
    int const fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return core::error{system_error("journal: open", tmp)};
    auto const written = write_all(fd, text, tmp);
    ::close(fd);
    if (!written) return written;
    if (::rename(tmp.c_str(), path_.c_str()) != 0)
        return core::error{system_error("journal: rename to", path_)};
    // The rename itself is durable only once the directory is synced.
    auto const dir = std::filesystem::path(path_).parent_path().string();
    if (int const dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    // Copies first: the arguments may be the members themselves.
    auto kept_reports = reports;
    auto kept_nodes = nodes;
    reports_ = std::move(kept_reports);
    nodes_ = std::move(kept_nodes);
    return {};
}

}  // namespace torcrun::io
