// The allocation end from squeue (see end_time_lookup.hpp): the child is an ordinary launcher
// child, so its exit is awaited like a job's and the reactor keeps running meanwhile.
#include "end_time_lookup.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/date_time.hpp"

#include <boost/algorithm/string/trim.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <csignal>
#include <ctime>
#include <fstream>
#include <sstream>

namespace torcrun::io {

namespace asio = boost::asio;

core::result<double> parse_squeue_end_time(std::string_view text)
{
    std::string const trimmed = boost::algorithm::trim_copy(std::string(text));
    auto const utc = core::parse_date_time(trimmed + "Z");
    if (trimmed.empty() || trimmed.back() == 'Z' || !utc)
        return core::error{detail::cat("squeue: end time \"", trimmed, "\" is not a date-time")};
    // squeue prints local time: read the fields as UTC, then let mktime apply this machine's
    // offset (and daylight saving) for that moment.
    auto const whole = static_cast<std::time_t>(*utc);
    std::tm fields{};
    ::gmtime_r(&whole, &fields);
    fields.tm_isdst = -1;
    return static_cast<double>(std::mktime(&fields)) + (*utc - static_cast<double>(whole));
}

asio::awaitable<core::result<double>> look_up_end_time(launcher& launch, std::string slurm_job_id,
                                                       core::env_map environment,
                                                       std::string stdout_path,
                                                       std::chrono::steady_clock::duration timeout)
{
    spawn_request request{.argv = {"squeue", "-h", "-j", slurm_job_id, "-o", "%e"},
                          .environment = std::move(environment),
                          .working_directory = {},
                          .stdout_path = stdout_path,
                          .stderr_path = stdout_path + ".err",
                          .cpus = {}};
    auto child = co_await launch.launch(std::move(request));
    if (!child) co_return core::error{detail::cat("squeue: ", child.error().message)};
    asio::steady_timer deadline(co_await asio::this_coro::executor, timeout);
    deadline.async_wait([c = *child](boost::system::error_code ec) {
        if (!ec) (void)c->signal_group(SIGKILL);
    });
    auto const report = co_await (*child)->wait();
    deadline.cancel();
    std::ifstream out(stdout_path);
    std::ostringstream text;
    text << out.rdbuf();
    if (report.status.how != core::exit_status::kind::exited || report.status.code != 0) {
        std::ifstream err(stdout_path + ".err");
        std::string first;
        std::getline(err, first);
        co_return core::error{
            detail::cat("squeue: ", report.status.describe(), first.empty() ? "" : ": ", first)};
    }
    co_return parse_squeue_end_time(text.str());
}

}  // namespace torcrun::io
