// A schedule_nodes action's slurm_scheduler and the workflow's slurm_defaults into one sbatch
// request (allocation_request.hpp), and the server's two records those come from.
#include "torcrun/slurm/allocation_request.hpp"

#include "torcrun/common/json_kind.hpp"
#include "torcrun/config/execution_config_merge.hpp"
#include "torcrun/slurm/startup_delay.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <array>

namespace torcrun::core {
namespace {

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

std::string wrong_kind(std::string const& where, std::string_view field, std::string_view expected,
                       boost::json::value const& found)
{
    return where + ": " + std::string(field) + ": expected " + std::string(expected) +
           ", found " + std::string(api::detail::describe(found));
}

// A boolean member, left as it is when absent or null.
result<void> read_boolean(boost::json::object const& o, std::string const& where,
                          std::string_view field, bool& out)
{
    auto const* v = o.if_contains(field);
    if (!v || v->is_null()) return {};
    if (!v->is_bool()) return error{wrong_kind(where, field, "a boolean", *v)};
    out = v->get_bool();
    return {};
}

result<boost::json::object> workflow_object(std::string_view workflow_json)
{
    boost::system::error_code ec;
    auto parsed = boost::json::parse(workflow_json, ec);
    if (ec) return error{"workflow: the answer is not JSON: " + ec.message()};
    if (!parsed.is_object()) return error{wrong_kind("workflow", "the answer", "an object", parsed)};
    return std::move(parsed.get_object());
}

}  // namespace

std::string allocation_chain_name(std::int64_t workflow_id, std::int64_t scheduler_id)
{
    return "torc-wf" + std::to_string(workflow_id) + "-sched" + std::to_string(scheduler_id);
}

result<sbatch_request> allocation_request(scheduler_options const& s,
                                          std::optional<std::string> const& slurm_defaults,
                                          schedule_options const& action,
                                          allocation_target const& target)
{
    sbatch_request r;
    r.workflow_id = target.workflow_id;
    if (!s.account.empty()) r.account = s.account;
    r.partition = s.partition;
    r.qos = s.qos;
    r.nodes = std::to_string(s.nodes);
    r.time = s.walltime;
    r.mem = s.mem;
    r.gres = s.gres;
    r.tmp = s.tmp;
    r.extra = s.extra;
    r.output_dir = target.output_dir;
    auto const direct = target.launch.mode == "direct";
    r.per_node_workers = action.per_node_workers || (direct && s.nodes > 1);
    r.direct_single_worker = direct && !r.per_node_workers;
    r.max_parallel_jobs = action.max_parallel_jobs;
    r.torcrun_path = target.torcrun_path;
    r.config_path = target.config_path;
    r.url = target.url;
    r.tls_ca_cert = target.tls_ca_cert;
    if (s.serialize_allocations) r.singleton_chain = allocation_chain_name(target.workflow_id, s.id);
    r.srun_mpi = target.launch.srun_mpi;
    if (target.launch.staggered_start) {
        auto const per_allocation = r.per_node_workers ? s.nodes : 1;
        r.startup_delay_seconds = startup_delay_seconds(action.num_allocations * per_allocation);
    }
    if (slurm_defaults) {
        if (auto ok = apply_defaults(*slurm_defaults, r); !ok) return ok.error();
    }
    return r;
}

result<scheduler_options> decode_slurm_scheduler(std::string_view json, std::int64_t id)
{
    auto const where = "slurm_scheduler " + std::to_string(id);
    boost::system::error_code ec;
    auto const parsed = boost::json::parse(json, ec);
    if (ec) return error{where + ": the answer is not JSON: " + ec.message()};
    if (!parsed.is_object()) return error{wrong_kind(where, "the answer", "an object", parsed)};
    auto const& o = parsed.get_object();
    scheduler_options out;
    auto text = [&](std::string_view field, bool required) -> result<std::optional<std::string>> {
        auto const* v = o.if_contains(field);
        if (!v || v->is_null()) {
            if (required) return error{where + ": " + std::string(field) + " is missing"};
            return std::optional<std::string>();
        }
        if (!v->is_string()) return error{wrong_kind(where, field, "a string", *v)};
        return std::optional<std::string>(std::string(v->get_string()));
    };
    for (auto [field, target, required] :
         std::initializer_list<std::tuple<std::string_view, std::optional<std::string>*, bool>>{
             {"partition", &out.partition, false},
             {"qos", &out.qos, false},
             {"mem", &out.mem, false},
             {"gres", &out.gres, false},
             {"tmp", &out.tmp, false},
             {"extra", &out.extra, false}}) {
        auto value = text(field, required);
        if (!value) return value.error();
        *target = std::move(*value);
    }
    auto name = text("name", false);
    if (!name) return name.error();
    out.name = name->value_or("");
    auto account = text("account", false);
    if (!account) return account.error();
    out.account = account->value_or("");
    auto walltime = text("walltime", true);
    if (!walltime) return walltime.error();
    out.walltime = **walltime;
    auto const* nodes = o.if_contains("nodes");
    if (!nodes || nodes->is_null()) return error{where + ": nodes is missing"};
    if (!nodes->is_int64()) return error{wrong_kind(where, "nodes", "an integer", *nodes)};
    out.nodes = nodes->get_int64();
    out.id = id;
    if (auto ok = read_boolean(o, where, "serialize_allocations", out.serialize_allocations); !ok)
        return ok.error();
    return out;
}

result<std::optional<std::string>> slurm_defaults_of(std::string_view workflow_json)
{
    auto const o = workflow_object(workflow_json);
    if (!o) return o.error();
    auto const* v = o->if_contains("slurm_defaults");
    if (!v || v->is_null()) return std::optional<std::string>();
    if (v->is_object()) return std::optional<std::string>(boost::json::serialize(*v));
    if (!v->is_string()) {
        return error{wrong_kind("workflow", "slurm_defaults", "a JSON object or its text", *v)};
    }
    if (v->get_string().empty()) return std::optional<std::string>();
    return std::optional<std::string>(std::string(v->get_string()));
}

result<worker_launch> worker_launch_from(boost::json::object const& execution_config,
                                         std::int64_t workflow_id)
{
    auto const where = "workflow " + std::to_string(workflow_id) + " execution_config";
    worker_launch out;
    if (auto const* mode = execution_config.if_contains("mode"); mode && !mode->is_null()) {
        if (!mode->is_string()) return error{wrong_kind(where, "mode", "a string", *mode)};
        out.mode = std::string(mode->get_string());
    }
    if (auto const* mpi = execution_config.if_contains("srun_mpi"); mpi && !mpi->is_null()) {
        if (!mpi->is_string()) return error{wrong_kind(where, "srun_mpi", "a string", *mpi)};
        out.srun_mpi = std::string(mpi->get_string());
    }
    if (auto ok = read_boolean(execution_config, where, "staggered_start", out.staggered_start);
        !ok)
        return ok.error();
    return out;
}

result<worker_launch> worker_launch_of(std::string_view workflow_json, std::int64_t workflow_id)
{
    auto const o = workflow_object(workflow_json);
    if (!o) return o.error();
    auto config = execution_config_object(o->if_contains("execution_config"), workflow_id);
    if (!config) return config.error();
    return worker_launch_from(*config, workflow_id);
}

}  // namespace torcrun::core
