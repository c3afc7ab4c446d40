// Model checks beyond single fields. Resource requirements keep their memory and runtime strings
// as sent (Torc echoes them back) plus the parsed values the claim query compares; workflow
// actions follow the action_config rules of Torc's server (docs/TORC-COMPATIBILITY.md §4.3).
#include "model_hooks.hpp"

#include "json_parse.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace torcrun::api::detail {
namespace {

std::string field_prefix(std::string_view what, std::string_view field)
{
    return std::string(what) + ": field \"" + std::string(field) + "\": ";
}

api_result<void> check_run_commands(boost::json::object const& config, std::string const& prefix)
{
    for (auto const& kv : config) {
        if (kv.key() != "commands") {
            return unprocessable(prefix + "run_commands allows only \"commands\", found " +
                                 quoted(kv.key()));
        }
    }
    auto const* commands = config.if_contains("commands");
    if (commands == nullptr) return unprocessable(prefix + "run_commands needs \"commands\"");
    if (!commands->is_array()) {
        return unprocessable(prefix + "\"commands\" must be an array of strings, found " +
                             std::string(describe(*commands)));
    }
    if (commands->get_array().empty()) {
        return unprocessable(prefix + "\"commands\" must not be empty");
    }
    auto const& list = commands->get_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string()) {
            return unprocessable(prefix + "\"commands[" + std::to_string(i) +
                                 "]\" must be a string, found " + std::string(describe(list[i])));
        }
    }
    return {};
}

api_result<void> check_schedule_nodes(boost::json::object const& config, std::string const& prefix)
{
    struct allowed_key {
        std::string_view name;
        bool (*ok)(boost::json::value const&);
        std::string_view type;
    };
    static constexpr std::array<allowed_key, 5> keys{{
        {"scheduler_id", [](auto const& v) { return v.is_int64() || v.is_uint64(); }, "an integer"},
        {"scheduler_type", [](auto const& v) { return v.is_string(); }, "a string"},
        {"num_allocations", [](auto const& v) { return v.is_int64() || v.is_uint64(); },
         "an integer"},
        {"start_one_worker_per_node", [](auto const& v) { return v.is_bool(); }, "a boolean"},
        {"max_parallel_jobs", [](auto const& v) { return v.is_int64() || v.is_uint64(); },
         "an integer"},
    }};
    for (auto const& kv : config) {
        auto const* key = std::find_if(keys.begin(), keys.end(),
                                       [&](auto const& k) { return k.name == kv.key(); });
        if (key == keys.end()) {
            return unprocessable(prefix + "schedule_nodes does not allow " + quoted(kv.key()) +
                                 " (allowed: scheduler_id, scheduler_type, num_allocations, "
                                 "start_one_worker_per_node, max_parallel_jobs)");
        }
        if (!key->ok(kv.value())) {
            return unprocessable(prefix + quoted(key->name) + " must be " + std::string(key->type) +
                                 ", found " + std::string(describe(kv.value())));
        }
    }
    return {};
}

}  // namespace

api_result<void> finish_resource_requirements(record& fields, std::string_view what)
{
    if (auto const* memory = fields.text("memory")) {
        auto bytes = core::parse_memory(*memory);
        if (!bytes) return unprocessable(field_prefix(what, "memory") + bytes.error().message);
        if (*bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            return unprocessable(field_prefix(what, "memory") + quoted(*memory) +
                                 " is more than 9223372036854775807 bytes");
        }
        fields.set("memory_bytes", static_cast<std::int64_t>(*bytes));
    }
    if (auto const* runtime = fields.text("runtime")) {
        auto seconds = core::parse_duration(*runtime);
        if (!seconds) return unprocessable(field_prefix(what, "runtime") + seconds.error().message);
        // Rounded up: a claim must never hand out a job whose limit exceeds the time left.
        fields.set("runtime_s", static_cast<std::int64_t>(std::ceil(*seconds)));
    }
    return {};
}

api_result<void> finish_workflow_action(record& fields, std::string_view what)
{
    auto const* type = fields.text("action_type");
    auto const* config_text = fields.text("action_config");
    if (type != nullptr && config_text != nullptr) {
        auto const config = boost::json::parse(*config_text);
        auto const prefix = field_prefix(what, "action_config");
        auto const& object = config.get_object();
        auto checked = *type == "run_commands" ? check_run_commands(object, prefix)
                                               : check_schedule_nodes(object, prefix);
        if (!checked) return checked.error();
    }
    // Torc: job triggers wait for one trigger per listed job (duplicates count), others for one.
    std::int64_t required = 1;
    auto const* trigger = fields.text("trigger_type");
    auto const* job_ids = fields.ids("job_ids");
    if (trigger != nullptr && job_ids != nullptr &&
        (*trigger == "on_jobs_ready" || *trigger == "on_jobs_complete")) {
        required = static_cast<std::int64_t>(job_ids->size());
    }
    fields.set("required_triggers", required);
    return {};
}

}  // namespace torcrun::api::detail
