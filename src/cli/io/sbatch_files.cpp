// See sbatch_files.hpp.
#include "sbatch_files.hpp"

#include "config_options.hpp"
#include "machine_facts.hpp"
#include "torcrun/slurm/sbatch_script.hpp"
#include "torcrun/worker/io/launcher.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

namespace torcrun::apps {

namespace fs = std::filesystem;

namespace {

// The file's text without trailing newlines, or "" when it cannot be read.
std::string text_of(fs::path const& path)
{
    auto text = read_text_file(path.string());
    std::string out = text ? *text : "";
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

}  // namespace

core::result<core::worker_config> load_worker_config(std::optional<std::string> const& path,
                                                     std::optional<std::string> const& url,
                                                     std::string const& url_origin)
{
    std::vector<core::config_override> overrides;
    if (url) overrides.push_back({"server.url", *url, url_origin});
    if (!path) return core::parse_worker_config("{}", "command line", overrides);
    auto const text = read_text_file(*path);
    if (!text) return text.error();
    return core::parse_worker_config(*text, *path, overrides);
}

core::result<std::string> this_torcrun_path(std::string const& option)
{
    std::error_code ec;
    auto path = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return core::error{option + ": /proc/self/exe: " + ec.message() + "; pass it"};
    return core::result<std::string>(boost::system::in_place_value, path.string());
}

std::string absolute_path(std::string const& path)
{
    return fs::absolute(path).lexically_normal();
}

core::result<void> write_script(std::string const& path, std::string const& text,
                                std::string const& option)
{
    std::error_code ec;
    if (auto const dir = fs::path(path).parent_path(); !dir.empty()) {
        fs::create_directories(dir, ec);
        if (ec) return core::error{option + ": \"" + path + "\": " + ec.message()};
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return core::error{option + ": \"" + path + "\": cannot write"};
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add,
                    ec);
    return {};
}

namespace {

struct tool_run {
    io::exit_report report;
    std::string out;
    std::string err;
};

// Runs argv with this process's environment; its output goes through a private temporary
// folder, read once it has exited.
core::result<tool_run> run_tool(std::vector<std::string> argv)
{
    std::string pattern = (fs::temp_directory_path() / "torcrun-sbatch-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        return core::error{argv[0] + ": cannot create a temporary folder"};
    }
    fs::path const dir = pattern;
    auto const what = argv[0];
    io::spawn_request const request{std::move(argv), read_process_environment(), "",
                                    (dir / "out").string(), (dir / "err").string()};
    boost::asio::io_context ioc{1};
    io::launcher launcher(ioc.get_executor());
    auto child = launcher.spawn(request);
    if (!child) {
        fs::remove_all(dir);
        return child.error();
    }
    std::optional<io::exit_report> report;
    auto const keep = [&report](std::exception_ptr e, io::exit_report r) {
        if (!e) report = r;
    };
    boost::asio::co_spawn(ioc, (*child)->wait(), keep);
    ioc.run();
    tool_run run{{}, text_of(dir / "out"), text_of(dir / "err")};
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!report) return core::error{what + ": lost track of the process"};
    run.report = *report;
    return run;
}

}  // namespace

core::result<std::int64_t> run_sbatch(std::string const& script)
{
    auto run = run_tool({"sbatch", script});
    if (!run) return run.error();
    if (run->report.status.return_code() != 0) {
        return core::error{"sbatch " + script + ": " + run->report.status.describe() + ": " +
                           (run->err.empty() ? run->out : run->err)};
    }
    return core::parse_sbatch_job_id(run->out);
}

core::result<void> run_scancel(std::int64_t job_id)
{
    auto const id = std::to_string(job_id);
    auto run = run_tool({"scancel", id});
    if (!run) return run.error();
    if (run->report.status.return_code() != 0) {
        return core::error{"scancel " + id + ": " + run->report.status.describe() + ": " +
                           (run->err.empty() ? run->out : run->err)};
    }
    return {};
}

}  // namespace torcrun::apps
