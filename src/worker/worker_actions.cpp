// One-line descriptions of worker actions, for the shell's logs and the state machine's tests.
#include "torcrun/worker/worker_actions.hpp"

#include "torcrun/common/signal_names.hpp"
#include "torcrun/common/units.hpp"
#include "torcrun/worker/worker_events.hpp"
#include "worker_text.hpp"

namespace torcrun::core {
namespace {

std::string ids(std::vector<std::int64_t> const& values)
{
    std::vector<std::string> items;
    for (auto const v : values) items.push_back(std::to_string(v));
    return join(items, ",");
}

std::string results(std::vector<job_result> const& values, report_kind kind)
{
    std::vector<std::string> items;
    for (auto const& r : values) items.push_back(describe_report({kind, r}));
    return join(items, ", ");
}

std::string describe_claim(worker::claim_jobs const& c)
{
    auto text =
        "claim_jobs limit=" + std::to_string(c.limit) + " cpus=" + std::to_string(c.per_node.cpus) +
        " memory=" + format_memory(c.per_node.memory_bytes) +
        " gpus=" + std::to_string(c.per_node.gpus) + " nodes=" + std::to_string(c.num_nodes);
    if (c.time_limit_seconds) text += " time_limit=" + format_seconds(*c.time_limit_seconds);
    if (c.wait_seconds > 0) text += " wait=" + format_seconds(c.wait_seconds);
    return text;
}

}  // namespace

std::string_view to_string(http_failure kind)
{
    static constexpr std::string_view names[] = {"connect", "dns",      "timeout",
                                                 "reset",   "http_5xx", "http_4xx"};
    return names[static_cast<int>(kind)];
}

std::string_view worker::to_string(earlier_node outcome)
{
    static constexpr std::string_view names[] = {"released", "inactive", "foreign", "unknown"};
    return names[static_cast<int>(outcome)];
}

std::optional<request_id> request_of(worker_action const& action)
{
    return std::visit(
        [](auto const& a) -> std::optional<request_id> {
            if constexpr (requires { a.request; })
                return a.request;
            else
                return std::nullopt;
        },
        action);
}

namespace {

using std::to_string;

struct request_text {
    std::string operator()(worker::register_node const& a) const
    {
        return "register_node cpus=" + to_string(a.cpus) +
               " memory=" + format_memory(a.memory_bytes) + " gpus=" + to_string(a.gpus) +
               " nodes=" + to_string(a.nodes);
    }
    std::string operator()(worker::read_workflow const&) const { return "read_workflow"; }
    std::string operator()(worker::read_pending_actions const& a) const
    {
        return "read_pending_actions " + std::string(core::to_string(a.trigger));
    }
    std::string operator()(worker::claim_action const& a) const
    {
        return "claim_action " + to_string(a.action_id);
    }
    std::string operator()(worker::claim_jobs const& a) const { return describe_claim(a); }
    std::string operator()(worker::read_requirements const& a) const
    {
        return "read_requirements " + to_string(a.requirements_id);
    }
    std::string operator()(worker::start_job const& a) const
    {
        return "start_job " + to_string(a.job_id);
    }
    std::string operator()(worker::hand_back const& a) const
    {
        return "hand_back " + to_string(a.job_id);
    }
    std::string operator()(worker::read_failure_handler const& a) const
    {
        return "read_failure_handler " + to_string(a.handler_id);
    }
    std::string operator()(worker::retry_job const& a) const
    {
        return "retry_job " + to_string(a.job_id) + " max_retries=" + to_string(a.max_retries);
    }
    std::string operator()(worker::record_result const& a) const
    {
        return "record_result " + results({a.result}, report_kind::complete);
    }
    std::string operator()(worker::complete_job const& a) const
    {
        return "complete_job " + results({a.result}, report_kind::complete);
    }
    std::string operator()(worker::complete_jobs const& a) const
    {
        return "complete_jobs " + results(a.results, report_kind::complete);
    }
    std::string operator()(worker::complete_and_claim const& a) const
    {
        return "complete_and_claim " + results(a.results, report_kind::complete) + "; " +
               describe_claim(a.claim);
    }
    std::string operator()(worker::check_workflow const&) const { return "check_workflow"; }
    std::string operator()(worker::deactivate_node const& a) const
    {
        return "deactivate_node after=" + format_seconds(a.duration_seconds);
    }
    std::string operator()(worker::heartbeat const&) const { return "heartbeat"; }
    std::string operator()(worker::read_held_jobs const&) const { return "read_held_jobs"; }
    std::string operator()(worker::release_node const& a) const
    {
        return "release_node " + to_string(a.compute_node_id);
    }
};

struct local_text {
    std::string operator()(worker::run_commands const& a) const
    {
        return "run_commands " + to_string(a.action_id) + ": " + join(a.commands, "; ");
    }
    std::string operator()(worker::schedule_allocations const& a) const
    {
        auto const& c = a.config;
        return "schedule_allocations " + to_string(a.action_id) + ": scheduler " +
               to_string(c.scheduler_id) + " x" + to_string(c.num_allocations) +
               (c.start_one_worker_per_node ? " per_node" : "") +
               (c.max_parallel_jobs ? " max_parallel_jobs=" + to_string(*c.max_parallel_jobs)
                                    : "");
    }
    std::string operator()(worker::spawn const& a) const
    {
        return "spawn " + to_string(a.job.id) + '#' + to_string(a.job.attempt_id) + " on " +
               describe_placement(a.placement);
    }
    std::string operator()(worker::signal_job const& a) const
    {
        return "signal_job " + to_string(a.job_id) + ' ' + signal_name(a.signal);
    }
    std::string operator()(worker::check_outputs const& a) const
    {
        return "check_outputs " + to_string(a.job_id) + " files=" + ids(a.file_ids);
    }
    std::string operator()(worker::run_recovery const& a) const
    {
        return "run_recovery " + to_string(a.job_id) + '#' + to_string(a.attempt_id) +
               " rc=" + to_string(a.return_code) + ": " + a.script;
    }
    std::string operator()(worker::delete_output const& a) const
    {
        return "delete_output " + to_string(a.job_id) + '#' + to_string(a.attempt_id);
    }
    std::string operator()(worker::journal_append const& a) const
    {
        std::vector<std::string> items;
        for (auto const& r : a.reports) items.push_back(describe_report(r));
        return "journal_append " + join(items, ", ");
    }
    std::string operator()(worker::journal_remove const& a) const
    {
        std::vector<std::string> items;
        for (auto const& k : a.keys)
            items.push_back((k.kind == report_kind::record ? "record " : "") +
                            to_string(k.job_id) + '#' + to_string(k.attempt_id));
        return "journal_remove " + join(items, ", ");
    }
    std::string operator()(worker::journal_node const& a) const
    {
        return std::string(a.registered ? "journal_node " : "journal_node drop ") +
               to_string(a.compute_node_id);
    }
    std::string operator()(worker::arm_timer const& a) const
    {
        auto const seconds = std::chrono::duration<double>(a.at.time_since_epoch()).count();
        return "arm_timer " + format_seconds(seconds);
    }
    std::string operator()(worker::log const& a) const
    {
        return std::string(core::to_string(a.level)) + ": " + a.message;
    }
    std::string operator()(worker::exit_worker const& a) const
    {
        return "exit " + to_string(a.code);
    }
};

struct action_text : request_text, local_text {
    using request_text::operator();
    using local_text::operator();
};

}  // namespace

std::string describe(worker_action const& action) { return std::visit(action_text{}, action); }

}  // namespace torcrun::core
