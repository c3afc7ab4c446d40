// See allocation_work.hpp. Every server exchange here is one attempt: a schedule_nodes action is
// claimed before anything is submitted, so a failure is logged with its cause and never retried
// (retrying could submit the same allocation twice); a record update that fails is logged and
// the worker goes on.
#include "allocation_work.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/slurm/allocation_request.hpp"
#include "torcrun/slurm/sbatch_script.hpp"
#include "torcrun/worker/io/slurm_commands.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <filesystem>
#include <string_view>
#include <vector>

namespace torcrun::io {

namespace json = boost::json;
namespace asio = boost::asio;

namespace {

using core::worker::action_finished;

constexpr std::string_view page = "&offset=0&limit=10000";

// The body of a 2xx answer, or the exchange's error text.
asio::awaitable<core::result<std::string>> fetch(http_client& client, std::string method,
                                                 std::string target, std::string body = {})
{
    auto reply = co_await client.request(method, target, std::move(body));
    if (!reply) co_return core::error{reply.error().message};
    co_return core::result<std::string>(boost::system::in_place_value, std::move(reply->body));
}

// The `items` of a list answer.
core::result<json::array> items_of(std::string const& body, std::string const& what)
{
    boost::system::error_code ec;
    auto v = json::parse(body, ec);
    if (ec || !v.is_object() || !v.get_object().contains("items") ||
        !v.get_object().at("items").is_array())
        return core::error{detail::cat(what, ": the answer has no items array")};
    return std::move(v.get_object().at("items").get_array());
}

std::optional<std::int64_t> int_field(json::object const& o, std::string_view name)
{
    auto const* v = o.if_contains(name);
    if (!v) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    if (v->is_string()) {
        try {
            return std::stoll(std::string(v->get_string()));
        } catch (...) {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

std::string text_field(json::object const& o, std::string_view name)
{
    auto const* v = o.if_contains(name);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// The scheduled compute node records of the workflow, `status` filtering when not empty.
asio::awaitable<core::result<json::array>> records(http_client& client, std::int64_t wf,
                                                   std::string status)
{
    auto target = detail::cat("/scheduled_compute_nodes?workflow_id=", std::to_string(wf));
    if (!status.empty()) target += "&status=" + status;
    auto body = co_await fetch(client, "GET", target + std::string(page));
    if (!body) co_return body.error();
    co_return items_of(*body, "list_scheduled_compute_nodes");
}

asio::awaitable<core::result<void>> set_status(http_client& client, json::object record,
                                               std::string status)
{
    auto const id = int_field(record, "id").value_or(0);
    record["status"] = status;
    auto body = co_await fetch(client, "PUT", "/scheduled_compute_nodes/" + std::to_string(id),
                               json::serialize(record));
    if (!body) co_return body.error();
    co_return core::result<void>{};
}

// One allocation: script, sbatch, record. The Slurm job id, or what failed.
asio::awaitable<core::result<std::int64_t>> submit_one(http_client& client, launcher& launch,
                                                       allocation_context const& ctx,
                                                       core::sbatch_request request,
                                                       std::int64_t scheduler_config_id)
{
    auto text = core::render_sbatch_script(request, ctx.config);
    if (!text) co_return text.error();
    auto const path = ctx.config.output_dir + "/" + *request.job_name + ".sh";
    if (auto ok = write_script(path, *text, "script"); !ok) co_return ok.error();
    auto job = co_await submit_batch_script(launch, path, ctx.environment);
    if (!job) co_return job.error();
    json::object record{{"workflow_id", ctx.workflow_id},
                        {"scheduler_id", *job},
                        {"scheduler_config_id", scheduler_config_id},
                        {"scheduler_type", "slurm"},
                        {"status", "pending"}};
    auto posted = co_await fetch(client, "POST", "/scheduled_compute_nodes", json::serialize(record));
    if (!posted) {
        auto cancelled = co_await cancel_slurm_job(launch, *job, ctx.environment);
        co_return core::error{detail::cat(
            "Slurm job ", std::to_string(*job), " (", path, "): its record was refused (",
            posted.error().message, "); ",
            cancelled ? std::string("scancel'ed") : "scancel failed: " + cancelled.error().message)};
    }
    ctx.say(log_level::info, detail::cat("allocation: Slurm job ", std::to_string(*job), " (",
                                         path, "), recorded pending"));
    co_return *job;
}

}  // namespace

asio::awaitable<action_finished> schedule_allocations(http_client& client, launcher& launch,
                                                      allocation_context ctx,
                                                      core::worker::schedule_allocations action)
{
    auto const id = action.action_id;
    auto const& c = action.config;
    auto const failed = [id](std::string detail) { return action_finished{id, false, detail}; };
    auto scheduler_body =
        co_await fetch(client, "GET", "/slurm_schedulers/" + std::to_string(c.scheduler_id));
    if (!scheduler_body) co_return failed(scheduler_body.error().message);
    auto scheduler = core::decode_slurm_scheduler(*scheduler_body, c.scheduler_id);
    if (!scheduler) co_return failed(scheduler.error().message);
    auto workflow_body =
        co_await fetch(client, "GET", "/workflows/" + std::to_string(ctx.workflow_id));
    if (!workflow_body) co_return failed(workflow_body.error().message);
    auto defaults = core::slurm_defaults_of(*workflow_body);
    if (!defaults) co_return failed(defaults.error().message);
    auto starting = core::worker_launch_of(*workflow_body, ctx.workflow_id);
    if (!starting) co_return failed(starting.error().message);
    std::optional<std::string> ca;
    if (auto const& file = ctx.config.server.tls_ca_cert)
        ca = std::filesystem::absolute(*file).lexically_normal().string();
    core::allocation_target const target{ctx.workflow_id, ctx.config.output_dir, ctx.torcrun_path,
                                         ctx.config_path, ctx.config.server.url, *starting, ca};
    core::schedule_options const options{c.start_one_worker_per_node, c.max_parallel_jobs,
                                         c.num_allocations};
    auto base = core::allocation_request(*scheduler, *defaults, options, target);
    if (!base) co_return failed(detail::cat("slurm_scheduler ", scheduler->name, ": ",
                                            base.error().message));
    std::int64_t submitted = 0;
    for (std::int64_t n = 1; n <= c.num_allocations; ++n) {
        auto request = *base;
        request.job_name = detail::cat("torcrun_wf", std::to_string(ctx.workflow_id), "_",
                                       scheduler->name.empty() ? "scheduler" : scheduler->name,
                                       "_action", std::to_string(id), "_", std::to_string(n));
        auto job = co_await submit_one(client, launch, ctx, std::move(request), c.scheduler_id);
        if (!job) {
            co_return failed(detail::cat("allocation ", std::to_string(n), " of ",
                                         std::to_string(c.num_allocations), " (",
                                         std::to_string(submitted), " submitted): ",
                                         job.error().message));
        }
        ++submitted;
    }
    co_return action_finished{id, true, ""};
}

asio::awaitable<void> mark_allocation_active(http_client& client, allocation_context ctx,
                                             std::int64_t slurm_job_id)
{
    auto pending = co_await records(client, ctx.workflow_id, "pending");
    if (!pending) {
        ctx.say(log_level::warning, detail::cat("allocation record: ", pending.error().message));
        co_return;
    }
    for (auto const& v : *pending) {
        if (!v.is_object() || int_field(v.get_object(), "scheduler_id") != slurm_job_id) continue;
        auto ok = co_await set_status(client, v.get_object(), "active");
        if (!ok) {
            ctx.say(log_level::warning, detail::cat("allocation record: ", ok.error().message));
        } else {
            ctx.say(log_level::info, detail::cat("allocation: Slurm job ",
                                                 std::to_string(slurm_job_id), " is active"));
        }
    }
}

namespace {

// Whether another active compute node of the workflow belongs to the same Slurm job.
asio::awaitable<core::result<bool>> others_active(http_client& client, std::int64_t wf,
                                                  std::int64_t slurm_job_id)
{
    auto body = co_await fetch(client, "GET",
                               detail::cat("/compute_nodes?workflow_id=", std::to_string(wf),
                                           "&is_active=true", std::string(page)));
    if (!body) co_return body.error();
    auto nodes = items_of(*body, "list_compute_nodes");
    if (!nodes) co_return nodes.error();
    for (auto const& v : *nodes) {
        if (!v.is_object()) continue;
        auto const* scheduler = v.get_object().if_contains("scheduler");
        json::value parsed;
        if (scheduler && scheduler->is_string()) {
            boost::system::error_code ec;
            parsed = json::parse(scheduler->get_string(), ec);
            scheduler = ec ? nullptr : &parsed;
        }
        if (scheduler && scheduler->is_object() &&
            int_field(scheduler->get_object(), "slurm_job_id") == slurm_job_id)
            co_return true;
    }
    co_return false;
}

// Whether some job of the workflow is ready, pending or running.
asio::awaitable<core::result<bool>> work_left(http_client& client, std::int64_t wf)
{
    for (std::string status : {"ready", "pending", "running"}) {
        auto body = co_await fetch(client, "GET",
                                   detail::cat("/jobs?workflow_id=", std::to_string(wf),
                                               "&status=", status, "&offset=0&limit=1"));
        if (!body) co_return body.error();
        auto items = items_of(*body, "list_jobs");
        if (!items) co_return items.error();
        if (!items->empty()) co_return true;
    }
    co_return false;
}

}  // namespace

asio::awaitable<void> finish_allocations(http_client& client, launcher& launch,
                                         allocation_context ctx, std::int64_t slurm_job_id)
{
    auto const wf = ctx.workflow_id;
    auto warn = [&ctx](std::string const& what, core::error const& e) {
        ctx.say(log_level::warning, detail::cat(what, ": ", e.message));
    };
    if (slurm_job_id > 0) {
        auto others = co_await others_active(client, wf, slurm_job_id);
        if (!others) {
            warn("allocation record", others.error());
        } else if (!*others) {
            auto mine = co_await records(client, wf, "");
            if (!mine) warn("allocation record", mine.error());
            for (auto const& v : mine ? *mine : json::array{}) {
                if (!v.is_object() || int_field(v.get_object(), "scheduler_id") != slurm_job_id)
                    continue;
                auto const status = text_field(v.get_object(), "status");
                if (status == "complete" || status == "canceled") continue;
                auto ok = co_await set_status(client, v.get_object(), "complete");
                if (!ok) warn("allocation record", ok.error());
                else
                    ctx.say(log_level::info, detail::cat("allocation: Slurm job ",
                                                         std::to_string(slurm_job_id),
                                                         " is complete"));
            }
        }
    }
    auto left = co_await work_left(client, wf);
    if (!left) co_return warn("queued allocations", left.error());
    if (*left) co_return;
    auto pending = co_await records(client, wf, "pending");
    if (!pending) co_return warn("queued allocations", pending.error());
    for (auto const& v : *pending) {
        if (!v.is_object() || text_field(v.get_object(), "scheduler_type") != "slurm") continue;
        auto const job = int_field(v.get_object(), "scheduler_id").value_or(0);
        if (job <= 0 || job == slurm_job_id) continue;
        auto state = co_await slurm_job_state(launch, job, ctx.environment);
        if (!state) {
            warn("queued allocations", state.error());
            continue;
        }
        if (*state != "PENDING") continue;
        auto cancelled = co_await cancel_slurm_job(launch, job, ctx.environment);
        if (!cancelled) {
            warn("queued allocations", cancelled.error());
            continue;
        }
        auto ok = co_await set_status(client, v.get_object(), "canceled");
        if (!ok) warn("allocation record", ok.error());
        ctx.say(log_level::info, detail::cat("allocation: Slurm job ", std::to_string(job),
                                             " was still queued with nothing left to run; "
                                             "scancel'ed, record canceled"));
    }
}

}  // namespace torcrun::io
