// Newer Torc's execution_config and stdio (docs/TORC-COMPATIBILITY.md §4.13): reading each key
// with its type and range, and Torc's create-time checks (its create_workflow), whose problems
// are all collected into one report rather than stopping at the first.
#include "execution_config_reader.hpp"

#include "message_text.hpp"
#include "torcrun/common/signal_names.hpp"

#include <algorithm>

namespace torcrun::core::spec {

namespace {

constexpr std::string_view mode_names[] = {"direct", "slurm", "auto"};
constexpr std::string_view stdio_names[] = {"separate", "combined", "no_stdout", "no_stderr",
                                            "none"};

bool is_mpi_token(std::string_view text)
{
    if (text.empty()) return false;
    return std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
               || c == '+' || c == '_' || c == '.' || c == '-';
    });
}

}  // namespace

std::string_view to_string(execution_mode mode) { return mode_names[static_cast<int>(mode)]; }
std::string_view to_string(stdio_mode mode) { return stdio_names[static_cast<int>(mode)]; }

boost::json::object stdio_json(stdio_spec const& stdio)
{
    return {{"mode", to_string(stdio.mode.value_or(stdio_mode::separate))},
            {"delete_on_success", stdio.delete_on_success.value_or(false)}};
}

std::string const* execution_config_spec::location_of(std::string_view key) const
{
    for (auto const& [name, location] : key_where)
        if (name == key) return &location;
    return nullptr;
}

execution_mode creation_mode(std::optional<execution_config_spec> const& config,
                             execution_context const& context)
{
    auto const mode =
        config ? config->mode.value_or(execution_mode::direct) : execution_mode::direct;
    if (mode != execution_mode::automatic) return mode;
    return context.has_slurm_schedulers ? execution_mode::slurm : execution_mode::direct;
}

result<void> check_execution_config(std::optional<execution_config_spec> const& config,
                                    execution_context const& context)
{
    std::vector<std::string> problems;
    auto const mode = creation_mode(config, context);
    std::string const mode_text =
        config && config->mode == execution_mode::automatic
            ? concat({"auto mode (slurm here: the spec has slurm_schedulers)"})
            : concat({to_string(mode), " mode"});
    auto const at = [&](std::string_view key) -> std::string {
        auto const* where = config->location_of(key);
        return where ? *where : config->where;
    };
    auto const refuse = [&](std::string_view key, std::string_view why) {
        problems.push_back(concat({at(key), ": execution_config: ", why}));
    };
    if (config && mode == execution_mode::slurm) {
        if (config->limit_resources == false)
            refuse("limit_resources",
                   concat({"\"limit_resources: false\" is not allowed in ", mode_text,
                           " (Slurm always limits a step to its resources)"}));
        for (std::string_view key : {"termination_signal", "sigterm_lead_seconds", "oom_exit_code"})
            if (config->location_of(key))
                refuse(key, concat({quoted(key), " applies to direct mode only; it is not allowed "
                                    "in ",
                                    mode_text}));
    }
    if (config && mode == execution_mode::direct) {
        if (config->srun_termination_signal)
            refuse("srun_termination_signal",
                   concat({"\"srun_termination_signal\" applies to slurm mode only; it is not "
                           "allowed in ",
                           mode_text}));
        if (config->enable_cpu_bind == true)
            refuse("enable_cpu_bind", concat({"\"enable_cpu_bind: true\" applies to slurm mode "
                                              "only; it is not allowed in ",
                                              mode_text}));
    }
    if (config && config->srun_mpi) {
        if (!is_mpi_token(*config->srun_mpi))
            refuse("srun_mpi", concat({"\"srun_mpi\" must be one word of letters, digits and "
                                       "+_.- (an srun --mpi type such as pmix), found ",
                                       quoted(*config->srun_mpi)}));
        if (context.per_node_actions.empty())
            refuse("srun_mpi", "\"srun_mpi\" applies to workers started one per node; it needs a "
                               "schedule_nodes action with \"start_one_worker_per_node: true\"");
    }
    if (mode != execution_mode::direct) {
        for (auto const& action_where : context.per_node_actions)
            problems.push_back(concat({action_where,
                                       ": actions: \"start_one_worker_per_node: true\" needs "
                                       "direct mode; execution_config sets ",
                                       mode_text}));
    }
    if (problems.empty()) return {};
    std::string report;
    for (auto const& p : problems) report.append(concat({report.empty() ? "" : "\n", p}));
    return error{report};
}

namespace detail {

std::optional<stdio_spec> read_stdio(field_reader& parent, std::string_view key)
{
    auto const* value = parent.get(key);
    if (!value) return std::nullopt;
    field_reader r(parent.state(), *value, parent.member_pointer(key),
                   concat({parent.context(), " ", key}));
    if (!r.begin(spec_object_kind::stdio)) return std::nullopt;
    stdio_spec out;
    if (auto const m = r.choice("mode", {"separate", "combined", "no_stdout", "no_stderr", "none"}))
        out.mode = static_cast<stdio_mode>(*m);
    out.delete_on_success = r.optional_boolean("delete_on_success");
    return out;
}

std::optional<execution_config_spec> read_execution_config(field_reader& workflow)
{
    auto const* value = workflow.get("execution_config");
    if (!value) return std::nullopt;
    field_reader r(workflow.state(), *value, workflow.member_pointer("execution_config"),
                   "execution_config");
    if (!r.begin(spec_object_kind::execution_config))
        return std::nullopt;
    execution_config_spec c;
    if (auto const m = r.choice("mode", {"direct", "slurm", "auto"}))
        c.mode = static_cast<execution_mode>(*m);
    c.limit_resources = r.optional_boolean("limit_resources");
    c.termination_signal = r.optional_string("termination_signal");
    if (c.termination_signal) {
        if (auto const parsed = parse_signal(*c.termination_signal); !parsed)
            r.fail("termination_signal",
                   concat({"field \"termination_signal\": ", parsed.error().message}));
    }
    c.sigterm_lead_seconds = r.optional_integer("sigterm_lead_seconds", 0, int32_max);
    c.sigkill_headroom_seconds = r.optional_integer("sigkill_headroom_seconds", 0, int32_max);
    c.oom_exit_code = r.optional_integer("oom_exit_code", -int32_max - 1, int32_max);
    c.timeout_exit_code = r.optional_integer("timeout_exit_code", -int32_max - 1, int32_max);
    c.srun_termination_signal = r.optional_string("srun_termination_signal");
    if (c.srun_termination_signal && !is_srun_signal(*c.srun_termination_signal))
        r.fail("srun_termination_signal",
               concat({"field \"srun_termination_signal\" must be an srun --signal value "
                       "([R:|B:]SIGNAL[@SECONDS], like TERM@120), found ",
                       quoted(*c.srun_termination_signal)}));
    c.enable_cpu_bind = r.optional_boolean("enable_cpu_bind");
    c.srun_mpi = r.optional_string("srun_mpi");
    c.staggered_start = r.optional_boolean("staggered_start");
    c.stdio = read_stdio(r, "stdio");
    if (auto const* overrides = r.object("job_stdio_overrides")) {
        field_reader list(r.state(), *r.get("job_stdio_overrides"),
                          r.member_pointer("job_stdio_overrides"),
                          "execution_config job_stdio_overrides");
        list.begin_any();
        for (auto const& member : *overrides) {
            if (!r.state().ok()) break;
            if (auto s = read_stdio(list, member.key()))
                c.job_stdio_overrides.emplace_back(member.key(), *s);
        }
    }
    c.where = r.where();
    for (auto const& member : value->get_object()) {
        if (is_absent(&member.value())) continue;
        c.written.insert_or_assign(member.key(), normalized(member.value()));
        c.key_where.emplace_back(member.key(), r.state().document.location(
                                                   r.member_pointer(member.key()), true));
    }
    return c;
}

}  // namespace detail

}  // namespace torcrun::core::spec
