// Mode choice. The one rule that matters most: a single direct worker in a multi-node
// allocation uses its own node only and says so, instead of claiming work for all nodes and
// running it on one (Torc #249, item 3).
#include "torcrun/slurm/mode_choice.hpp"

#include "torcrun/slurm/hostlist.hpp"

namespace torcrun::core {

namespace {

std::vector<std::string> node_names(allocation const& a)
{
    std::vector<std::string> names;
    for (auto const& n : a.nodes) names.push_back(n.capacity.name);
    return names;
}

std::vector<node_capacity> all_nodes(allocation const& a)
{
    std::vector<node_capacity> pool;
    for (auto const& n : a.nodes) pool.push_back(n.capacity);
    return pool;
}

mode_decision slurm_decision(allocation const& a, std::string reason)
{
    return {execution_mode::slurm,
            std::move(reason) + ": jobs start with srun on " + compress_hostlist(node_names(a)),
            all_nodes(a),
            {}};
}

mode_decision direct_decision(allocation const& a, std::string reason)
{
    auto const& local = a.nodes[*a.local_node].capacity;
    mode_decision d{execution_mode::direct,
                    std::move(reason) + ": jobs run here on " + local.name,
                    {local},
                    {}};
    std::vector<std::string> idle;
    for (auto const& n : a.nodes) {
        if (n.capacity.name != local.name) idle.push_back(n.capacity.name);
    }
    if (!idle.empty()) {
        d.warnings.push_back("only " + local.name + " is used; " + compress_hostlist(idle)
                             + (idle.size() == 1 ? " stays" : " stay")
                             + " idle: start one worker per node (torcrun slurm-script "
                               "--per-node-workers) or use --mode slurm");
    }
    return d;
}

std::string auto_reason(allocation const& a)
{
    switch (a.scope) {
        case allocation_scope::machine: return "not in a Slurm allocation";
        case allocation_scope::node_task: return "one task of a Slurm step: a 1-node pool";
        case allocation_scope::allocation: break;
    }
    if (!a.local_node) return "this process runs outside the allocation's nodes";
    if (a.nodes.size() > 1) {
        return "multi-node allocation (" + std::to_string(a.nodes.size()) + " nodes) seen whole";
    }
    return "single-node allocation";
}

}  // namespace

std::string_view to_string(execution_mode mode)
{
    return mode == execution_mode::slurm ? "slurm" : "direct";
}

std::string_view to_string(requested_mode mode)
{
    switch (mode) {
        case requested_mode::auto_: return "auto";
        case requested_mode::direct: return "direct";
        case requested_mode::slurm: return "slurm";
    }
    return "unknown";
}

result<requested_mode> parse_requested_mode(std::string_view text)
{
    if (text == "auto") return requested_mode::auto_;
    if (text == "direct") return requested_mode::direct;
    if (text == "slurm") return requested_mode::slurm;
    return error{"mode: \"" + std::string(text) + "\" is not auto, direct or slurm"};
}

result<mode_decision> choose_mode(allocation const& a, requested_mode requested)
{
    if (requested == requested_mode::slurm && !a.in_slurm) {
        return error{"mode: \"slurm\" needs a Slurm allocation, and SLURM_JOB_ID is not set"};
    }
    if (requested == requested_mode::direct && !a.local_node) {
        return error{
            "mode: \"direct\" would run jobs on this host, which is not a node of the "
            "allocation ("
            + compress_hostlist(node_names(a))
            + "): use --mode slurm, or start the worker with srun"};
    }
    if (requested == requested_mode::slurm) return slurm_decision(a, "requested");
    if (requested == requested_mode::direct) return direct_decision(a, "requested");
    bool const whole_allocation = a.scope == allocation_scope::allocation;
    if (whole_allocation && (!a.local_node || a.nodes.size() > 1)) {
        return slurm_decision(a, auto_reason(a));
    }
    return direct_decision(a, auto_reason(a));
}

}  // namespace torcrun::core
