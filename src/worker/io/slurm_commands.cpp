// See slurm_commands.hpp. Each command's output goes through a private temporary folder, read
// once it has exited; a command that does not end within a minute is killed.
#include "torcrun/worker/io/slurm_commands.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/command_line.hpp"
#include "torcrun/common/signal_names.hpp"
#include "torcrun/slurm/sbatch_script.hpp"
#include "torcrun/slurm/step_list.hpp"

#include <boost/algorithm/string/trim.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <stdlib.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace torcrun::io {

namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

constexpr auto command_timeout = std::chrono::seconds(60);

struct command_run {
    exit_report report;
    std::string out;
    std::string err;
};

// The file's text without trailing newlines, or "" when it cannot be read.
std::string text_of(fs::path const& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    auto out = text.str();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

asio::awaitable<core::result<command_run>> run_command(launcher& launch,
                                                       std::vector<std::string> argv,
                                                       core::env_map environment)
{
    std::string pattern = (fs::temp_directory_path() / "torcrun-slurm-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        co_return core::error{detail::cat(argv[0], ": cannot create a temporary folder")};
    }
    fs::path const dir = pattern;
    auto const what = argv[0];
    spawn_request request{.argv = std::move(argv),
                          .environment = std::move(environment),
                          .working_directory = {},
                          .stdout_path = (dir / "out").string(),
                          .stderr_path = (dir / "err").string(),
                          .cpus = {}};
    auto child = co_await launch.launch(std::move(request));
    if (!child) {
        std::error_code ec;
        fs::remove_all(dir, ec);
        co_return core::error{child.error().message};
    }
    asio::steady_timer deadline(co_await asio::this_coro::executor, command_timeout);
    deadline.async_wait([c = *child](boost::system::error_code ec) {
        if (!ec) (void)c->signal_group(SIGKILL);
    });
    auto const report = co_await (*child)->wait();
    deadline.cancel();
    command_run run{report, text_of(dir / "out"), text_of(dir / "err")};
    std::error_code ec;
    fs::remove_all(dir, ec);
    co_return run;
}

// `what: exit 1: <stderr, else stdout>` for a command that failed.
std::optional<core::error> failure(std::string const& what, command_run const& run)
{
    if (run.report.status.how == core::exit_status::kind::exited && run.report.status.code == 0)
        return std::nullopt;
    return core::error{detail::cat(what, ": ", run.report.status.describe(), ": ",
                                   run.err.empty() ? run.out : run.err)};
}

}  // namespace

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

asio::awaitable<core::result<std::int64_t>> submit_batch_script(launcher& launch,
                                                                std::string script,
                                                                core::env_map environment)
{
    std::vector<std::string> argv{"sbatch", script};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    if (auto e = failure("sbatch " + script, *run)) co_return *e;
    co_return core::parse_sbatch_job_id(run->out);
}

asio::awaitable<core::result<void>> cancel_slurm_job(launcher& launch, std::int64_t job_id,
                                                     core::env_map environment)
{
    auto const id = std::to_string(job_id);
    std::vector<std::string> argv{"scancel", id};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    if (auto e = failure("scancel " + id, *run)) co_return *e;
    co_return core::result<void>{};
}

asio::awaitable<core::result<std::string>> slurm_job_state(launcher& launch, std::int64_t job_id,
                                                           core::env_map environment)
{
    auto const id = std::to_string(job_id);
    std::vector<std::string> argv{"squeue", "-h", "-j", id, "-o", "%T"};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    // squeue exits 1 with "Invalid job id specified" once the job has left its memory.
    if (run->err.find("Invalid job id") != std::string::npos) co_return core::result<std::string>(boost::system::in_place_value);
    if (auto e = failure("squeue -j " + id, *run)) co_return *e;
    co_return core::result<std::string>(boost::system::in_place_value,
                                        boost::algorithm::trim_copy(run->out));
}

asio::awaitable<core::result<std::string>> show_slurm_job(launcher& launch, std::int64_t job_id,
                                                          core::env_map environment)
{
    auto const id = std::to_string(job_id);
    std::vector<std::string> argv{"scontrol", "-o", "show", "job", id};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    if (run->err.find("Invalid job id") != std::string::npos)
        co_return core::result<std::string>(boost::system::in_place_value);
    if (auto e = failure("scontrol show job " + id, *run)) co_return *e;
    co_return core::result<std::string>(boost::system::in_place_value, std::move(run->out));
}

asio::awaitable<core::result<std::string>> partition_listing(launcher& launch,
                                                             core::env_map environment)
{
    std::vector<std::string> argv{"sinfo", "-h", "-N", "-o", "%P|%N|%c|%m|%G|%l|%s"};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    if (auto e = failure("sinfo", *run)) co_return *e;
    co_return core::result<std::string>(boost::system::in_place_value, std::move(run->out));
}

asio::awaitable<core::result<std::string>> list_slurm_steps(launcher& launch, std::string job_id,
                                                            core::env_map environment)
{
    std::vector<std::string> argv{"squeue", "-h", "-s", "-j", job_id, "-o", "%i %j"};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    if (auto e = failure("squeue -s -j " + job_id, *run)) co_return *e;
    co_return core::result<std::string>(boost::system::in_place_value, std::move(run->out));
}

asio::awaitable<core::result<std::optional<std::string>>> find_slurm_step(
    launcher& launch, std::string job_id, std::string name, core::env_map environment)
{
    auto lines = co_await list_slurm_steps(launch, std::move(job_id), std::move(environment));
    if (!lines) co_return lines.error();
    co_return core::step_id_named(*lines, name);
}

asio::awaitable<core::result<std::vector<core::step_reading>>> read_step_stats(
    launcher& launch, std::vector<std::string> step_ids, core::env_map environment)
{
    std::string ids;
    for (auto const& id : step_ids) ids += (ids.empty() ? "" : ",") + id;
    std::vector<std::string> argv{"sstat", "-P", "-o", "JobID,MaxRSS,TRESUsageInTot,NodeList",
                                  "-j", ids};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    auto readings = core::parse_step_readings(run->out, "sstat");
    if (!readings) co_return readings.error();
    // Steps that ended are named on stderr and missing from the table; a table with no row and
    // a failed exit is sstat failing as a whole.
    if (readings->empty())
        if (auto e = failure("sstat -j " + ids, *run)) co_return *e;
    co_return std::move(*readings);
}

asio::awaitable<core::result<std::optional<std::vector<core::step_reading>>>>
read_step_accounting(launcher& launch, std::string job_id, core::env_map environment)
{
    std::vector<std::string> argv{"sacct", "-P", "-o", "JobID,JobName,MaxRSS,TotalCPU,NodeList",
                                  "-j", job_id};
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    if ((run->err + run->out).find("accounting storage is disabled") != std::string::npos)
        co_return std::optional<std::vector<core::step_reading>>{};
    if (auto e = failure("sacct -j " + job_id, *run)) co_return *e;
    auto readings = core::parse_step_readings(run->out, "sacct");
    if (!readings) co_return readings.error();
    co_return std::optional<std::vector<core::step_reading>>(std::move(*readings));
}

asio::awaitable<core::result<void>> cancel_slurm_step(launcher& launch, std::string step_id,
                                                      std::optional<int> signal,
                                                      core::env_map environment)
{
    std::vector<std::string> argv{"scancel"};
    if (signal) {
        auto const name = core::signal_name(*signal);
        argv.push_back("--signal=" +
                       (name.starts_with("SIG") ? name.substr(3) : std::to_string(*signal)));
    }
    argv.push_back(step_id);
    auto const what = core::render_command_line(argv);
    auto run = co_await run_command(launch, std::move(argv), std::move(environment));
    if (!run) co_return run.error();
    // A step that ended meanwhile (its tasks died of the signal before this scancel) is
    // "Invalid job id specified": what was asked for is done.
    if (run->err.find("Invalid job id specified") != std::string::npos)
        co_return core::result<void>{};
    if (auto e = failure(what, *run)) co_return *e;
    co_return core::result<void>{};
}

}  // namespace torcrun::io
