// See sbatch_files.hpp.
#include "sbatch_files.hpp"

#include "config_options.hpp"
#include "machine_facts.hpp"
#include "torcrun/slurm/sbatch_script.hpp"
#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/io/slurm_commands.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

namespace torcrun::apps {

namespace fs = std::filesystem;


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
    return io::write_script(path, text, option);
}

namespace {

// Runs one of slurm_commands.hpp's commands on an io_context of its own.
template <class T, class Command>
core::result<T> run_here(Command command)
{
    boost::asio::io_context ioc{1};
    io::launcher launcher(ioc.get_executor());
    std::optional<core::result<T>> out;
    boost::asio::co_spawn(ioc, command(launcher),
                          [&out](std::exception_ptr e, core::result<T> r) {
                              if (!e) out.emplace(std::move(r));
                          });
    ioc.run();
    if (!out) return core::error{"lost track of a Slurm command"};
    return std::move(*out);
}

}  // namespace

core::result<std::int64_t> run_sbatch(std::string const& script)
{
    return run_here<std::int64_t>([&](io::launcher& l) {
        return io::submit_batch_script(l, script, read_process_environment());
    });
}

core::result<void> run_scancel(std::int64_t job_id)
{
    return run_here<void>([&](io::launcher& l) {
        return io::cancel_slurm_job(l, job_id, read_process_environment());
    });
}

core::result<std::string> run_squeue_state(std::int64_t job_id)
{
    return run_here<std::string>([&](io::launcher& l) {
        return io::slurm_job_state(l, job_id, read_process_environment());
    });
}

core::result<std::string> run_scontrol_show_job(std::int64_t job_id)
{
    return run_here<std::string>([&](io::launcher& l) {
        return io::show_slurm_job(l, job_id, read_process_environment());
    });
}

core::result<std::string> run_sinfo_partitions()
{
    return run_here<std::string>([&](io::launcher& l) {
        return io::partition_listing(l, read_process_environment());
    });
}

}  // namespace torcrun::apps
