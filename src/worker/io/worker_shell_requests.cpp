// The worker shell's server side: each request action as its REST exchanges (worker_wire.hpp),
// sent on a coroutine of its own and answered exactly once; output-file checks; the result.json
// of every reported attempt; heartbeats; and the allocation end from squeue.
#include "worker_shell_state.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/worker/launch_plan.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace torcrun::io::detail {

namespace asio = boost::asio;

namespace {

constexpr auto long_poll_margin = std::chrono::seconds(15);
constexpr auto heartbeat_interval = std::chrono::seconds(15);

// Three beats per lease the server names in its reply, so that one late beat does not cost a
// live worker its lease; at most heartbeat_interval apart. `previous` stands when the reply
// names no lease (or the beat failed).
std::chrono::duration<double> beat_interval(http_result<http_reply> const& reply,
                                            std::chrono::duration<double> previous)
{
    auto const lease = reply ? api::heartbeat_lease_seconds(reply->body) : std::nullopt;
    if (!lease) return previous;
    return std::chrono::duration<double>(
        std::clamp(*lease / 3, 0.5, std::chrono::duration<double>(heartbeat_interval).count()));
}

core::http_failure failure_of(http_error_kind kind)
{
    switch (kind) {
    case http_error_kind::connect_refused: return core::http_failure::connect;
    case http_error_kind::dns: return core::http_failure::dns;
    case http_error_kind::timeout: return core::http_failure::timeout;
    case http_error_kind::closed: return core::http_failure::reset;
    case http_error_kind::http_4xx: return core::http_failure::http_4xx;
    case http_error_kind::http_5xx:
    case http_error_kind::protocol: return core::http_failure::http_5xx;
    }
    return core::http_failure::http_5xx;
}

std::optional<std::chrono::milliseconds> timeout_for(api::wire_request const& r)
{
    if (r.wait_seconds <= 0) return std::nullopt;  // the client's request_timeout
    return std::chrono::milliseconds(static_cast<std::int64_t>(r.wait_seconds * 1000)) +
           long_poll_margin;
}

asio::awaitable<void> exchange(std::shared_ptr<worker_shell> self, core::worker_action action)
{
    std::vector<api::wire_reply> replies;
    while (auto const request = api::next_request(action, self->wire_, replies)) {
        auto reply = co_await self->client_.request(request->method, request->target,
                                                    request->body, timeout_for(*request));
        if (reply) {
            replies.push_back({reply->status, std::move(reply->body)});
            continue;
        }
        auto const& e = reply.error();
        if (e.kind == http_error_kind::http_4xx || e.kind == http_error_kind::http_5xx) {
            replies.push_back({e.status, e.body});  // decode_replies names it
            break;
        }
        self->post(core::worker::request_failed{*core::request_of(action), failure_of(e.kind), 0,
                                                e.message});
        co_return;
    }
    self->post(api::decode_replies(action, replies));
}

}  // namespace

void worker_shell::send(core::worker_action action)
{
    asio::co_spawn(ioc_, exchange(shared_from_this(), std::move(action)), asio::detached);
}

void worker_shell::write_results(core::worker_action const& action)
{
    std::vector<core::job_result const*> results;
    if (auto const* c = std::get_if<core::worker::complete_job>(&action))
        results.push_back(&c->result);
    if (auto const* r = std::get_if<core::worker::record_result>(&action))
        results.push_back(&r->result);
    if (auto const* b = std::get_if<core::worker::complete_jobs>(&action))
        for (auto const& r : b->results) results.push_back(&r);
    for (auto const* r : results) {
        core::torc_job_identity id;
        id.workflow_id = r->workflow_id;
        id.job_id = r->job_id;
        id.run_id = r->run_id;
        id.attempt_id = r->attempt_id;
        auto const paths = core::attempt_log_paths(setup_.config.output_dir, id);
        std::error_code ec;
        std::filesystem::create_directories(paths.dir, ec);  // a job that never spawned
        auto const& path = paths.result_file;
        std::ofstream out(path, std::ios::trunc);
        out << boost::json::serialize(result_json(*r)) << "\n";
        if (!out) say(log_level::warning, detail::cat("result.json: cannot write \"", path, "\""));
    }
}

void worker_shell::check_outputs(core::worker::check_outputs action)
{
    auto run = [](std::shared_ptr<worker_shell> self,
                  core::worker::check_outputs a) -> asio::awaitable<void> {
        core::worker::outputs_checked checked{.job_id = a.job_id, .missing = {}};
        for (auto const id : a.file_ids) {
            auto const request = api::read_file_request(id);
            auto reply = co_await self->client_.request(request.method, request.target);
            auto const path = reply ? api::file_path_of(reply->body)
                                    : core::result<std::string>(core::error{reply.error().message});
            struct ::stat st{};
            if (!path)
                checked.missing.push_back(
                    detail::cat("file ", std::to_string(id), " (", path.error().message, ")"));
            else if (::stat(path->c_str(), &st) != 0)
                checked.missing.push_back(*path);
        }
        self->post(std::move(checked));
    };
    asio::co_spawn(ioc_, run(shared_from_this(), std::move(action)), asio::detached);
}

void worker_shell::start_heartbeats()
{
    if (heartbeats_started_ || !setup_.config.server.use_extensions) return;
    heartbeats_started_ = true;
    // The first beat goes out at once: until then the server holds no lease for this node,
    // and a worker killed then would leave its jobs `running` for good.
    auto beat = [](std::shared_ptr<worker_shell> self) -> asio::awaitable<void> {
        std::chrono::duration<double> interval = heartbeat_interval;
        while (!self->exit_code_) {
            auto const request = api::heartbeat_request(self->wire_);
            auto reply = co_await self->client_.request(request.method, request.target,
                                                        request.body);
            if (!reply) self->say(log_level::debug, "heartbeat failed",
                                  {{"error", reply.error().message}});
            interval = beat_interval(reply, interval);
            boost::system::error_code ec;
            self->heartbeat_.expires_after(
                std::chrono::ceil<std::chrono::steady_clock::duration>(interval));
            co_await self->heartbeat_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (ec) co_return;
        }
    };
    asio::co_spawn(ioc_, beat(shared_from_this()), asio::detached);
}

void worker_shell::look_up_end_time()
{
    if (setup_.slurm_job_id.empty()) return;
    auto run = [](std::shared_ptr<worker_shell> self) -> asio::awaitable<void> {
        auto const out = detail::cat(self->journal_.path(), ".squeue");
        auto end = co_await io::look_up_end_time(self->launcher_, self->setup_.slurm_job_id,
                                                 self->setup_.worker_env, out,
                                                 std::chrono::seconds(30));
        if (!end) {
            self->say(log_level::warning,
                      detail::cat("allocation end unknown: ", end.error().message));
            co_return;
        }
        auto const now = std::chrono::duration<double>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
        self->post(core::worker::end_time_learned{*end, now});
    };
    asio::co_spawn(ioc_, run(shared_from_this()), asio::detached);
}

}  // namespace torcrun::io::detail
