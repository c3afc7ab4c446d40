// Torc's models as the worker needs them (docs/TORC-COMPATIBILITY.md §2.2, §3.3): JobModel ->
// claimed_job, ResourceRequirementsModel -> job_resources (memory strings and ISO-8601 runtimes
// parsed here), FailureHandlerModel with its rules JSON string -> failure_handler,
// WorkflowActionModel -> workflow_action, FileModel -> its path. Absent optional fields take the
// model's defaults.
#include "worker_wire_detail.hpp"

#include "torcrun/common/json_kind.hpp"

#include "torcrun/common/units.hpp"

#include <boost/json/parse.hpp>

#include <limits>

namespace torcrun::api::wire {
namespace {

core::error not_an_object(std::string const& path, json::value const& v)
{
    return core::error{"field " + detail::quoted(path) + ": expected an object, found " +
                       std::string(detail::describe(v))};
}

core::result<core::failure_rule> decode_rule(json::value const& v, std::string const& path)
{
    if (!v.is_object()) return not_an_object(path, v);
    field_reader r(v.get_object(), path);
    core::failure_rule rule;
    if (auto const* codes = r.array("exit_codes")) {
        for (std::size_t i = 0; i < codes->size(); ++i) {
            auto const& c = (*codes)[i];
            if (!c.is_int64() || c.get_int64() < std::numeric_limits<int>::min() ||
                c.get_int64() > std::numeric_limits<int>::max()) {
                r.fail(indexed("exit_codes", i),
                       ": expected an exit code, found " + std::string(detail::describe(c)));
                break;
            }
            rule.exit_codes.push_back(static_cast<int>(c.get_int64()));
        }
    }
    rule.match_all_exit_codes = r.flag("match_all_exit_codes", false);
    rule.recovery_script = r.optional_text("recovery_script");
    rule.max_retries = r.count("max_retries", 3);  // Torc's default
    if (!r.ok()) return *r.error();
    return rule;
}

}  // namespace

core::result<core::claimed_job> decode_job(json::value const& v, std::string const& path)
{
    if (!v.is_object()) return not_an_object(path, v);
    field_reader r(v.get_object(), path);
    core::claimed_job job;
    job.id = r.integer("id");
    job.name = r.text("name");
    job.command = r.text("command");
    job.invocation_script = r.optional_text("invocation_script");
    job.resource_requirements_id = r.integer("resource_requirements_id");
    job.failure_handler_id = r.optional_integer("failure_handler_id");
    job.attempt_id = r.count("attempt_id", 1, 1);
    job.output_file_ids = r.ids("output_file_ids");
    if (!r.ok()) return *r.error();
    return job;
}

core::result<core::job_resources> decode_requirements(json::value const& v)
{
    if (!v.is_object()) return core::error{root_problem(v, "an object")};
    field_reader r(v.get_object(), "");
    core::job_resources out;
    out.id = r.integer("id");
    out.name = r.text("name", "");
    out.need.num_cpus = r.count("num_cpus", 1);
    out.need.num_gpus = r.count("num_gpus", 0);
    out.need.num_nodes = r.count("num_nodes", 1);
    auto const memory = r.text("memory", "1m");
    auto const runtime = r.optional_text("runtime");
    if (r.optional_integer("tasks_per_node"))  // torcrun's extension
        out.tasks_per_node = r.count("tasks_per_node", std::nullopt, 1);
    if (!r.ok()) return *r.error();
    auto bytes = core::parse_memory(memory);
    if (!bytes) return core::error{"field \"memory\": " + bytes.error().message};
    out.need.memory_bytes = *bytes;
    if (runtime) {
        auto seconds = core::parse_duration(*runtime);
        if (!seconds) return core::error{"field \"runtime\": " + seconds.error().message};
        out.runtime_seconds = *seconds;
    }
    return out;
}

core::result<core::failure_handler> decode_failure_handler(json::value const& v)
{
    if (!v.is_object()) return core::error{root_problem(v, "an object")};
    field_reader r(v.get_object(), "");
    core::failure_handler out;
    out.id = r.integer("id");
    auto const text = r.text("rules");
    if (!r.ok()) return *r.error();
    boost::system::error_code ec;
    auto const rules = json::parse(text, ec);
    if (ec) {
        return core::error{"field \"rules\": " + detail::quoted(text) + " is not JSON (" +
                           ec.message() + ")"};
    }
    if (!rules.is_array()) {
        return core::error{"field \"rules\": expected a JSON array, found " +
                           std::string(detail::describe(rules))};
    }
    for (std::size_t i = 0; i < rules.get_array().size(); ++i) {
        auto rule = decode_rule(rules.get_array()[i], indexed("rules", i));
        if (!rule) return rule.error();
        out.rules.push_back(std::move(*rule));
    }
    return out;
}

// action_config.commands is read for run_commands only; other action types are the server's or
// another worker's business and keep no commands.
core::result<core::workflow_action> decode_action(json::value const& v, std::string const& path)
{
    if (!v.is_object()) return not_an_object(path, v);
    field_reader r(v.get_object(), path);
    core::workflow_action out;
    out.id = r.integer("id");
    out.action_type = r.text("action_type");
    if (!r.ok()) return *r.error();
    if (out.action_type != "run_commands") return out;
    auto const* config = r.object("action_config");
    if (config == nullptr) return *r.error();
    field_reader c(*config, r.path("action_config"));
    auto const* commands = c.array("commands");
    if (commands == nullptr && c.ok()) c.fail("commands", " is missing");
    for (std::size_t i = 0; commands != nullptr && i < commands->size(); ++i) {
        auto const& command = (*commands)[i];
        if (!command.is_string()) {
            c.fail(indexed("commands", i),
                   ": expected a string, found " + std::string(detail::describe(command)));
            break;
        }
        out.commands.emplace_back(command.get_string());
    }
    if (!c.ok()) return *c.error();
    return out;
}

}  // namespace torcrun::api::wire

namespace torcrun::api {

core::result<std::string> file_path_of(std::string_view body)
{
    using namespace wire;
    auto const fail = [](std::string problem) { return core::error{"get_file: " + problem}; };
    auto v = parse_reply(body);
    if (!v) return fail(v.error().message);
    if (!v->is_object()) return fail(root_problem(*v, "an object"));
    field_reader r(v->get_object(), "");
    auto path = r.text("path");
    if (!r.ok()) return fail(r.error()->message);
    return core::result<std::string>(boost::system::in_place_value, std::move(path));
}

std::optional<double> heartbeat_lease_seconds(std::string_view body)
{
    auto const v = wire::parse_reply(body);
    auto const* object = v ? v->if_object() : nullptr;
    auto const* lease = object ? object->if_contains("lease_seconds") : nullptr;
    if (!lease || !lease->is_number()) return std::nullopt;
    boost::system::error_code ec;
    double const seconds = lease->to_number<double>(ec);
    if (ec || !(seconds > 0)) return std::nullopt;
    return seconds;
}

}  // namespace torcrun::api
