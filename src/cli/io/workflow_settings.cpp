// Reading a workflow's execution_config and env for the worker (workflow_settings.hpp). The
// record is read once, before the mode and the pool are chosen, because execution_config.mode
// decides them; the worker's state machine then reads the workflow again for its run id.
#include "workflow_settings.hpp"

#include "torc_client.hpp"

#include "torcrun/common/json_kind.hpp"
#include "torcrun/worker/io/worker_shell.hpp"

#include <boost/json/parse.hpp>

#include <chrono>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

core::result<core::env_map> env_of(json::object const& record, std::int64_t workflow_id)
{
    core::env_map env;
    auto const* value = record.if_contains("env");
    if (!value || value->is_null()) return env;
    auto const where = "workflow " + std::to_string(workflow_id) + " env";
    if (!value->is_object())
        return core::error{where + ": expected an object, found " +
                           std::string(api::detail::describe(*value))};
    for (auto const& [name, v] : value->get_object()) {
        if (!v.is_string())
            return core::error{where + ": the value of \"" + std::string(name) + "\" is " +
                               std::string(api::detail::describe(v)) + ", not a string"};
        env.emplace(name, v.get_string());
    }
    return env;
}

}  // namespace

core::result<workflow_settings> workflow_settings_of(json::value const& record,
                                                     core::sourced_worker_config base)
{
    auto const id = *base.config.workflow_id;
    auto const* object = record.if_object();
    if (!object)
        return core::error{"GET /workflows/" + std::to_string(id) + ": expected an object, found " +
                           std::string(api::detail::describe(record))};
    auto execution = core::execution_config_object(object->if_contains("execution_config"), id);
    if (!execution) return execution.error();
    auto env = env_of(*object, id);
    if (!env) return env.error();
    auto interval = core::job_sample_interval(object->if_contains("resource_monitor_config"), id);
    if (!interval) return interval.error();
    auto node = core::node_monitor_of(object->if_contains("resource_monitor_config"), id);
    if (!node) return node.error();
    auto config = core::apply_execution_config(std::move(base), *execution, id);
    if (!config) return config.error();
    return workflow_settings{std::move(*config), std::move(*execution), std::move(*env),
                             *interval, *node};
}

core::result<json::value> read_workflow_record(torc_client& client, std::int64_t workflow_id)
{
    return client.call("GET", "/workflows/" + std::to_string(workflow_id));
}

core::result<json::value> read_workflow_record(core::worker_config const& config)
{
    auto settings = io::client_for(config);
    if (!settings) return settings.error();
    io::blocking_http_client http(std::move(*settings));
    auto const path = "/workflows/" + std::to_string(config.workflow_id.value_or(0));
    auto const give_up = std::chrono::steady_clock::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(config.server.retry_window_seconds));
    for (int attempt = 1;; ++attempt) {
        auto reply = http.request("GET", path);
        if (reply) {
            boost::system::error_code ec;
            auto record = json::parse(reply->body, ec);
            if (ec) return core::error{"GET " + path + ": the answer is not JSON: " + ec.message()};
            return record;
        }
        auto const& e = reply.error();
        if (!e.transient() || std::chrono::steady_clock::now() >= give_up)
            return core::error{failure_message("GET", path, e, config.server.url)};
        pause_before_retry(attempt, give_up);
    }
}

}  // namespace torcrun::apps
