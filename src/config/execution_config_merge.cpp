// The combine rule of a workflow's execution_config with the worker's configuration, and Torc's
// checks that depend on the effective mode (execution_config_merge.hpp). Each workflow value goes
// through the torcrun key's own rule (apply_override), so a bad value gets the same check and
// wording as in a configuration file, named by its execution_config key.
#include "torcrun/config/execution_config_merge.hpp"

#include "config_values.hpp"

#include "torcrun/common/json_kind.hpp"
#include "torcrun/common/json_writer.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <array>
#include <vector>

namespace torcrun::core {

namespace {

using detail::cat;

struct mapping {
    std::string_view torc_key;
    std::string_view key_path;  // the torcrun key it sets; empty: handled on its own
};

constexpr std::array<mapping, 13> mappings{{
    {"mode", "mode"},
    {"termination_signal", "termination.signal"},
    {"sigterm_lead_seconds", "termination.grace_seconds"},
    {"sigkill_headroom_seconds", "termination.drain_buffer_seconds"},
    {"timeout_exit_code", "termination.timeout_exit_code"},
    {"oom_exit_code", "limits.oom_exit_code"},
    {"limit_resources", "limits.enforce_memory"},
    {"srun_termination_signal", "srun.signal"},
    {"enable_cpu_bind", "srun.cpu_bind"},
    {"stdio", ""},
    {"job_stdio_overrides", ""},
    {"staggered_start", ""},  // the worker's start: sbatch scripts
    {"srun_mpi", ""},         // the worker's start: sbatch scripts
}};

std::string origin_of(std::int64_t workflow_id)
{
    return cat("workflow ", std::to_string(workflow_id), " execution_config");
}

// Override text for a JSON value: a string as it is, anything else as JSON ("30", "true").
std::string text_of(boost::json::value const& v)
{
    if (v.is_string()) return std::string(v.get_string());
    return boost::json::serialize(v);
}

bool set_by_operator(config_sources const& sources, std::string_view path)
{
    auto const it = sources.find(path);
    return it != sources.end() && !it->second.starts_with("workflow ");
}

class combiner {
public:
    combiner(sourced_worker_config& out, std::int64_t workflow_id)
        : out_(out), origin_(origin_of(workflow_id))
    {
    }

    // Sets `path` from `value` unless the operator set it; checks the value either way.
    void set(std::string_view path, boost::json::value const& value, std::string const& where)
    {
        worker_config trial = out_.config;
        auto applied = apply_override(trial, path, text_of(value), where);
        if (!applied) return errors_.push_back(applied.error().message);
        if (set_by_operator(out_.sources, path)) return;
        out_.config = std::move(trial);
        out_.sources[std::string(path)] = origin_;
    }

    // The workflow's stdio: each member present sets its key.
    void stdio(boost::json::value const& value, std::string const& where)
    {
        if (!read_stdio(value, where)) return;
        auto const& obj = value.get_object();
        if (auto const* m = obj.if_contains("mode")) set("stdio.mode", *m, where + ".mode");
        if (auto const* d = obj.if_contains("delete_on_success"))
            set("stdio.delete_on_success", *d, where + ".delete_on_success");
    }

    void job_stdio(boost::json::value const& value, std::string const& where)
    {
        auto const* obj = value.if_object();
        if (!obj) return expected_object(where, value);
        std::map<std::string, worker_config::stdio_settings> jobs;
        for (auto const& [name, entry] : *obj) {
            auto settings = read_stdio(entry, cat(where, ".", std::string_view(name)));
            if (settings) jobs.emplace(name, *settings);
        }
        if (set_by_operator(out_.sources, "stdio.mode") ||
            set_by_operator(out_.sources, "stdio.delete_on_success"))
            return;
        out_.config.job_stdio = std::move(jobs);
    }

    void unknown(std::string_view key)
    {
        std::vector<std::string> names;
        for (auto const& m : mappings) names.emplace_back(m.torc_key);
        auto const best = detail::closest_name(names, key);
        errors_.push_back(cat(origin_, ": unknown key \"", key, "\"",
                              best ? cat(" (did you mean \"", *best, "\"?)") : ""));
    }

    void expected_object(std::string const& where, boost::json::value const& v)
    {
        errors_.push_back(cat(where, ": expected an object, found ", api::detail::describe(v)));
    }

    std::string const& origin() const { return origin_; }
    std::vector<std::string> const& errors() const { return errors_; }

private:
    // A StdioConfig: {mode, delete_on_success}, both optional (separate, false), nothing else.
    std::optional<worker_config::stdio_settings> read_stdio(boost::json::value const& value,
                                                            std::string const& where)
    {
        auto const* obj = value.if_object();
        if (!obj) {
            expected_object(where, value);
            return std::nullopt;
        }
        bool ok = true;
        worker_config trial;
        for (auto const& [key, member] : *obj) {
            std::string const name(key);
            if (name != "mode" && name != "delete_on_success") {
                errors_.push_back(cat(where, ": unknown key \"", name,
                                      "\" (a stdio entry has mode and delete_on_success)"));
                ok = false;
                continue;
            }
            auto applied = apply_override(trial, cat("stdio.", name), text_of(member),
                                          cat(where, ".", name));
            if (!applied) {
                errors_.push_back(applied.error().message);
                ok = false;
            }
        }
        if (!ok) return std::nullopt;
        return trial.stdio;
    }

    sourced_worker_config& out_;
    std::string origin_;
    std::vector<std::string> errors_;
};

}  // namespace

std::string source_of(config_sources const& sources, std::string_view key_path)
{
    auto const it = sources.find(key_path);
    return it == sources.end() ? std::string("default") : it->second;
}

namespace {

// A record field that holds an object, or the JSON text of one; absent or null is empty.
result<boost::json::object> object_or_text(boost::json::value const* value,
                                           std::string const& origin)
{
    if (!value || value->is_null()) return boost::json::object{};
    if (auto const* obj = value->if_object()) return *obj;
    if (auto const* text = value->if_string()) {
        boost::system::error_code ec;
        auto parsed = boost::json::parse(*text, ec);
        if (ec) return error{cat(origin, ": the string is not JSON: ", ec.message())};
        if (parsed.is_null()) return boost::json::object{};
        if (auto* obj = parsed.if_object()) return std::move(*obj);
        return error{cat(origin, ": the string holds ", api::detail::describe(parsed),
                         ", not an object")};
    }
    return error{cat(origin, ": expected an object, found ", api::detail::describe(*value))};
}

bool enabled(boost::json::object const& o, std::string_view key)
{
    auto const* v = o.if_contains(key);
    return v && v->is_bool() && v->get_bool();
}

}  // namespace

result<boost::json::object> execution_config_object(boost::json::value const* value,
                                                    std::int64_t workflow_id)
{
    return object_or_text(value, origin_of(workflow_id));
}

namespace {

std::string monitor_origin(std::int64_t workflow_id)
{
    return cat("workflow ", std::to_string(workflow_id), " resource_monitor_config");
}

// sample_interval_seconds when present and not null.
result<std::optional<double>> interval_of(boost::json::object const& config,
                                          std::string const& origin)
{
    auto const* interval = config.if_contains("sample_interval_seconds");
    if (!interval || interval->is_null()) return std::optional<double>{};
    auto const where = origin + ".sample_interval_seconds";
    if (!interval->is_number())
        return error{cat(where, ": expected a number, found ", api::detail::describe(*interval))};
    double const seconds = interval->to_number<double>();
    if (!(seconds >= 0.1 && seconds <= 3600))
        return error{cat(where, ": ", format_number(seconds), " is out of range (0.1 to 3600)")};
    return std::optional<double>(seconds);
}

bool enabled_or(boost::json::object const& o, std::string_view key, bool fallback)
{
    auto const* v = o.if_contains(key);
    return v && v->is_bool() ? v->get_bool() : fallback;
}

}  // namespace

result<std::optional<double>> job_sample_interval(boost::json::value const* monitor_config,
                                                  std::int64_t workflow_id)
{
    auto const origin = monitor_origin(workflow_id);
    auto config = object_or_text(monitor_config, origin);
    if (!config) return config.error();
    bool on = enabled(*config, "enabled");
    if (auto const* jobs = config->if_contains("jobs"); jobs && !jobs->is_null())
        on = jobs->is_object() && enabled(jobs->get_object(), "enabled");
    if (!on) return std::optional<double>{};
    return interval_of(*config, origin);
}

result<std::optional<node_monitor_settings>> node_monitor_of(
    boost::json::value const* monitor_config, std::int64_t workflow_id)
{
    auto const origin = monitor_origin(workflow_id);
    auto config = object_or_text(monitor_config, origin);
    if (!config) return config.error();
    auto const* node = config->if_contains("compute_node");
    if (!node || node->is_null()) return std::optional<node_monitor_settings>{};
    if (!node->is_object())
        return error{cat(origin, ".compute_node: expected an object, found ",
                         api::detail::describe(*node))};
    auto const& o = node->get_object();
    if (!enabled(o, "enabled")) return std::optional<node_monitor_settings>{};
    node_monitor_settings out;
    auto interval = interval_of(*config, origin);
    if (!interval) return interval.error();
    if (*interval) out.interval_seconds = **interval;
    out.cpu = enabled_or(o, "cpu", true);
    out.memory = enabled_or(o, "memory", true);
    auto const* granularity = o.if_contains("granularity");
    out.time_series = granularity && granularity->is_string() &&
                      granularity->get_string() == "time_series";
    return std::optional<node_monitor_settings>(out);
}

result<sourced_worker_config> apply_execution_config(sourced_worker_config base,
                                                     boost::json::object const& execution_config,
                                                     std::int64_t workflow_id)
{
    combiner c(base, workflow_id);
    auto const at = [&](std::string_view key) { return cat(c.origin(), ".", key); };
    // In the order of `mappings`, so the grace is known when the headroom is turned into the
    // drain buffer.
    for (auto const& m : mappings) {
        auto const* value = execution_config.if_contains(m.torc_key);
        if (!value || value->is_null()) continue;
        if (m.torc_key == "sigkill_headroom_seconds") {
            if (!value->is_number() || value->to_number<double>() < 0) {
                c.set(m.key_path, *value, at(m.torc_key));  // reports the bad value
                continue;
            }
            double const drain =
                value->to_number<double>() + base.config.termination.grace_seconds;
            c.set(m.key_path, boost::json::value(drain), at(m.torc_key));
        } else if (m.torc_key == "stdio") {
            c.stdio(*value, at(m.torc_key));
        } else if (m.torc_key == "job_stdio_overrides") {
            c.job_stdio(*value, at(m.torc_key));
        } else if (!m.key_path.empty()) {
            c.set(m.key_path, *value, at(m.torc_key));
        }
    }
    for (auto const& member : execution_config) {
        auto const key = member.key();  // not a structured binding: clang 14 cannot capture one
        bool const known = std::ranges::any_of(
            mappings, [&](mapping const& m) { return m.torc_key == std::string_view(key); });
        if (!known) c.unknown(key);
    }
    if (!c.errors().empty()) return error{detail::join_lines(c.errors())};
    if (auto ok = check_config(base.config); !ok)
        return error{cat(c.origin(), ": ", ok.error().message)};
    return base;
}

result<void> check_execution_config(boost::json::object const& execution_config,
                                    run_mode effective, std::int64_t workflow_id)
{
    auto const origin = origin_of(workflow_id);
    std::vector<std::string> errors;
    auto const present = [&](std::string_view key) {
        auto const* v = execution_config.if_contains(key);
        return v && !v->is_null();
    };
    if (effective == run_mode::slurm) {
        if (auto const* v = execution_config.if_contains("limit_resources");
            v && v->is_bool() && !v->get_bool())
            errors.push_back(cat(origin, ".limit_resources: false is not allowed in slurm mode "
                                         "(each step gets exactly its CPUs and memory)"));
        for (std::string_view key : {"termination_signal", "sigterm_lead_seconds", "oom_exit_code"})
            if (present(key))
                errors.push_back(cat(origin, ".", key,
                                     ": applies to direct mode only; this worker runs in slurm "
                                     "mode (Slurm stops and limits the steps)"));
    } else if (effective == run_mode::direct) {
        if (present("srun_termination_signal"))
            errors.push_back(cat(origin, ".srun_termination_signal: applies to slurm mode only; "
                                         "this worker runs in direct mode"));
        if (auto const* v = execution_config.if_contains("enable_cpu_bind");
            v && v->is_bool() && v->get_bool())
            errors.push_back(cat(origin, ".enable_cpu_bind: true applies to slurm mode only; "
                                         "this worker runs in direct mode"));
    }
    if (!errors.empty()) return error{detail::join_lines(errors)};
    return {};
}

result<sourced_worker_config> parse_sourced_worker_config(
    std::string_view text, std::string_view origin, std::span<config_override const> overrides)
{
    config_sources sources;
    auto config = detail::parse_worker_config_recording(text, origin, overrides, sources);
    if (!config) return config.error();
    config->server.retry_window_set = sources.contains("server.retry_window_seconds");
    return sourced_worker_config{std::move(*config), std::move(sources)};
}

}  // namespace torcrun::core
