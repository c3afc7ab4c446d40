// Spec schedulers and actions into sbatch requests, then the scripts' text. Scheduler values win
// over the workflow's slurm_defaults, as in Torc's `schedule_nodes`; a default key the script
// sets itself (see sbatch_script.cpp) is refused rather than silently doubled.
#include "torcrun/cli/allocation_plan.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>
#include <string_view>

namespace torcrun::core {
namespace {

std::string located(std::string const& where, std::string const& message)
{
    return where.empty() ? message : where + ": " + message;
}

// A slurm_defaults value as sbatch text: strings as they are, numbers and booleans as JSON.
std::string option_text(boost::json::value const& v)
{
    if (auto const* s = v.if_string()) return std::string(*s);
    return boost::json::serialize(v);
}

result<void> apply_defaults(std::string const& defaults_json, sbatch_request& r)
{
    boost::system::error_code ec;
    auto const parsed = boost::json::parse(defaults_json, ec);
    if (ec || !parsed.is_object()) return error{"slurm_defaults: not a JSON object"};
    // Set by the script itself (or per scheduler): a default would fight with it.
    static constexpr std::array<std::string_view, 10> owned{
        "nodes", "time", "job-name", "output", "error", "signal", "ntasks-per-node",
        "partition", "walltime", "name"};
    for (auto const& member : parsed.get_object()) {
        std::string name(member.key());
        std::replace(name.begin(), name.end(), '_', '-');
        if (std::find(owned.begin(), owned.end(), name) != owned.end()) {
            return error{"slurm_defaults: \"" + std::string(member.key()) +
                         "\" is set by the script itself"};
        }
        auto const text = option_text(member.value());
        std::optional<std::string>* field = name == "account" ? &r.account
                                            : name == "qos"   ? &r.qos
                                            : name == "tmp"   ? &r.tmp
                                            : name == "mem"   ? &r.mem
                                            : name == "gres"  ? &r.gres
                                                              : nullptr;
        if (field) {
            if (!*field) *field = text;
        } else if (name == "extra") {
            if (!r.extra) r.extra = text;
        } else {
            r.more_options.emplace_back(name, text);
        }
    }
    return {};
}

}  // namespace

result<std::vector<planned_allocation>> plan_allocations(spec::creation_plan const& plan,
                                                         allocation_settings const& settings,
                                                         worker_config const& config)
{
    std::vector<planned_allocation> out;
    for (std::size_t i = 0; i < plan.actions.size(); ++i) {
        auto const& a = plan.actions[i];
        if (a.trigger_type != "on_workflow_start" || a.action_type != "schedule_nodes") continue;
        auto const name = a.scheduler.value_or("");
        auto const what = "actions[" + std::to_string(i) + "] (schedule_nodes, slurm_schedulers \"" +
                          name + "\")";
        if (a.scheduler_type != "slurm") {
            return error{located(a.where, what + ": scheduler_type \"" +
                                              a.scheduler_type.value_or("") +
                                              "\": torcrun submit schedules only slurm "
                                              "allocations (use --no-schedule)")};
        }
        auto const s = std::find_if(plan.slurm_schedulers.begin(), plan.slurm_schedulers.end(),
                                    [&](auto const& x) { return x.name == name; });
        if (s == plan.slurm_schedulers.end()) {
            return error{located(a.where, what + ": no slurm_schedulers entry of that name")};
        }
        if (a.num_allocations < 1) {
            return error{located(a.where, what + ": num_allocations " +
                                              std::to_string(a.num_allocations) +
                                              " must be at least 1")};
        }
        sbatch_request r;
        r.workflow_id = settings.workflow_id;
        if (!s->account.empty()) r.account = s->account;
        r.partition = s->partition;
        r.qos = s->qos;
        r.nodes = std::to_string(s->nodes);
        r.time = s->walltime;
        r.mem = s->mem;
        r.gres = s->gres;
        r.tmp = s->tmp;
        r.extra = s->extra;
        r.output_dir = settings.output_dir;
        r.per_node_workers = a.start_one_worker_per_node;
        r.torcrun_path = settings.torcrun_path;
        r.config_path = settings.config_path;
        r.url = settings.url;
        if (plan.workflow.slurm_defaults) {
            if (auto ok = apply_defaults(*plan.workflow.slurm_defaults, r); !ok) {
                return error{located(a.where, what + ": " + ok.error().message)};
            }
        }
        for (std::int64_t n = 1; n <= a.num_allocations; ++n) {
            auto request = r;
            request.job_name = "torcrun_wf" + std::to_string(settings.workflow_id) + "_" + name +
                               "_a" + std::to_string(i) + "_" + std::to_string(n);
            auto text = render_sbatch_script(request, config);
            if (!text) {
                return error{located(s->where.empty() ? a.where : s->where,
                                     what + ": " + text.error().message)};
            }
            auto path = settings.output_dir + "/" + *request.job_name + ".sh";
            out.push_back({what, name, static_cast<std::size_t>(n), std::move(request),
                           std::move(*text), std::move(path)});
        }
    }
    return out;
}

std::optional<std::string> unreachable_url_warning(std::string const& url)
{
    auto const scheme = url.find("://");
    auto host = std::string_view(url).substr(scheme == std::string::npos ? 0 : scheme + 3);
    if (auto const at = host.find('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
    host = host.substr(0, host.find('/'));
    if (host.starts_with('[')) {
        host = host.substr(0, host.find(']') + 1);
    } else {
        host = host.substr(0, host.find(':'));
    }
    bool const loopback = host == "localhost" || host.starts_with("127.") || host == "[::1]";
    if (!loopback) return std::nullopt;
    return "the server URL " + url +
           " is a loopback address: workers on other compute nodes cannot reach it (pass --url "
           "with a host name the nodes resolve)";
}

}  // namespace torcrun::core
