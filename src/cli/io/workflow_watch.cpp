// See workflow_watch.hpp.
#include "workflow_watch.hpp"

#include "allocation_loop.hpp"
#include "failed_job_recovery.hpp"
#include "json_fields.hpp"
#include "sbatch_files.hpp"
#include "workflow_summary.hpp"


#include <boost/program_options.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>


namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

template <class T>
std::optional<T> flag(po::variables_map const& vm, char const* name)
{
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<T>();
}

core::result<bool> workflow_complete(torc_client& client, std::int64_t wf)
{
    auto const path = "/workflows/" + std::to_string(wf) + "/is_complete";
    auto answer = client.call("GET", path);
    if (!answer) return answer.error();
    auto const* v = field(*answer, "is_complete");
    return v && v->is_bool() && v->get_bool();
}

// Why not every job completed ("canceled; 1 running", "failed 2, canceled 3"); empty when all
// did.
core::result<std::string> unfinished(torc_client& client, std::int64_t wf)
{
    auto summary = workflow_summary(client, wf);
    if (!summary) return summary.error();
    std::string out;
    if (auto const* c = summary->if_contains("is_canceled"); c && c->is_bool() && c->get_bool())
        out = "the workflow was canceled;";
    for (auto const& [status, n] : summary->at("jobs").as_object()) {
        if (status == "completed" || status == "total" || !n.is_int64() || n.get_int64() == 0) continue;
        out += (out.empty() ? "" : " ") + std::string(status) + " " + std::to_string(n.get_int64());
    }
    return core::result<std::string>(boost::system::in_place_value, std::move(out));
}

core::result<std::int64_t> in_flight(torc_client& client, std::int64_t wf)
{
    std::int64_t n = 0;
    for (auto const* status : {"pending", "running"}) {
        auto jobs = client.list_all("/jobs?workflow_id=" + std::to_string(wf) + "&status=" + status);
        if (!jobs) return jobs.error();
        n += static_cast<std::int64_t>(jobs->size());
    }
    return n;
}

}  // namespace

po::options_description watch_options(bool for_submit)
{
    po::options_description o(for_submit ? "watch options (with --auto-schedule)" : "options");
    o.add_options()(
        "poll-interval,p", po::value<std::int64_t>()->value_name("S")->default_value(60),
        "seconds between two looks at the workflow (Torc's default 60)")(
        "auto-schedule", "submit Slurm allocations sized for the ready jobs no allocation holds")(
        "auto-schedule-threshold", po::value<std::uint32_t>()->value_name("N")->default_value(5),
        "more allocations for a shape that live ones run but have no room for once N jobs of "
        "it wait (Torc's default 5)")(
        "auto-schedule-cooldown", po::value<std::int64_t>()->value_name("S")->default_value(1800),
        "... and S seconds have passed since the last allocation (Torc's default 1800)")(
        "auto-schedule-stranded-timeout", po::value<std::int64_t>()->value_name("S")->default_value(7200),
        "... or whatever their number once S seconds have passed (0: never; Torc's 7200)")(
        "partition", po::value<std::string>()->value_name("P"),
        "allocate only in partition P (default: slurm_defaults' or the spec schedulers', else "
        "the first partition that holds each shape, the default one first)")(
        "account", po::value<std::string>()->value_name("A"),
        "the allocations' account (default: slurm_defaults', else the spec schedulers')")(
        "qos", po::value<std::string>()->value_name("Q"), "the allocations' QOS")(
        "max-queued", po::value<std::uint32_t>()->value_name("N")->default_value(2),
        "at most N of the workflow's allocations waiting in the queue")(
        "max-nodes", po::value<std::uint32_t>()->value_name("N")->default_value(0),
        "at most N nodes per allocation (0: the partition's limit)")(
        "recover", "once complete, run the jobs that ran out of memory (137) or time (152) "
        "again with more, and watch on (Torc's --recover)")(
        "max-retries", po::value<int>()->value_name("N"),
        "run each job again at most N times (default: no limit, as Torc's)")(
        "memory-multiplier", po::value<double>()->value_name("X")->default_value(1.5, "1.5"),
        "memory of a job that ran out of it, times X")(
        "runtime-multiplier", po::value<double>()->value_name("X")->default_value(1.5, "1.5"),
        "runtime of a job that ran out of time, times X")(
        "retry-unknown", "also run again, unchanged, jobs that failed for another reason");
    if (!for_submit) {
        // --output-dir names a `torcrun run`'s directory in the client commands.
        o.add_options()(
            "worker-output-dir", po::value<std::string>()->value_name("DIR"),
            "the sbatch scripts, Slurm and worker output (default: the config's output_dir; "
            "submit's --output-dir)")(
            "config", po::value<std::string>()->value_name("FILE"),
            "worker configuration file, passed on to the allocations' workers")(
            "torcrun", po::value<std::string>()->value_name("PATH"),
            "absolute path of torcrun on the nodes (default: this binary)");
    }
    return o;
}

core::result<watch_settings> watch_settings_from(po::variables_map const& vm,
                                                 io::client_settings const& client,
                                                 std::string prefix)
{
    watch_settings s;
    s.prefix = std::move(prefix);
    s.poll_seconds = vm["poll-interval"].as<std::int64_t>();
    if (s.poll_seconds < 1)
        return core::error{"--poll-interval: " + std::to_string(s.poll_seconds) + " must be at least 1"};
    s.auto_schedule = vm.count("auto-schedule") > 0;
    s.policy.threshold = vm["auto-schedule-threshold"].as<std::uint32_t>();
    if (s.policy.threshold < 1) return core::error{"--auto-schedule-threshold: 0 must be at least 1"};
    s.policy.cooldown_seconds = vm["auto-schedule-cooldown"].as<std::int64_t>();
    s.policy.stranded_timeout_seconds = vm["auto-schedule-stranded-timeout"].as<std::int64_t>();
    if (s.policy.cooldown_seconds < 0 || s.policy.stranded_timeout_seconds < 0)
        return core::error{"--auto-schedule-cooldown and --auto-schedule-stranded-timeout are "
                           "seconds: at least 0"};
    s.policy.max_queued = vm["max-queued"].as<std::uint32_t>();
    if (s.policy.max_queued < 1) return core::error{"--max-queued: 0 must be at least 1"};
    s.policy.max_nodes = vm["max-nodes"].as<std::uint32_t>();
    s.policy.partition = flag<std::string>(vm, "partition");
    s.account = flag<std::string>(vm, "account");
    s.recover = vm.count("recover") > 0;
    s.recovery.memory_multiplier = vm["memory-multiplier"].as<double>();
    s.recovery.runtime_multiplier = vm["runtime-multiplier"].as<double>();
    if (!(s.recovery.memory_multiplier >= 1) || !(s.recovery.runtime_multiplier >= 1))
        return core::error{"--memory-multiplier and --runtime-multiplier: at least 1"};
    s.recovery.max_retries = flag<int>(vm, "max-retries");
    if (s.recovery.max_retries && *s.recovery.max_retries < 0)
        return core::error{"--max-retries: " + std::to_string(*s.recovery.max_retries) + " must be at least 0"};
    s.recovery.retry_unknown = vm.count("retry-unknown") > 0;
    s.qos = flag<std::string>(vm, "qos");
    if (!s.auto_schedule) return s;
    s.allocation.url = client.server.text();
    if (client.tls_ca_file) s.allocation.tls_ca_cert = absolute_path(*client.tls_ca_file);
    auto const config_path = flag<std::string>(vm, "config");
    auto config = load_worker_config(config_path, s.allocation.url, "--url");
    if (!config) return config.error();
    s.config = std::move(*config);
    auto const dir = vm.count("worker-output-dir") ? flag<std::string>(vm, "worker-output-dir")
                     : s.prefix == "torcrun submit" ? flag<std::string>(vm, "output-dir")
                                                    : std::nullopt;
    s.allocation.output_dir = absolute_path(dir.value_or(s.config.output_dir));
    if (auto given = flag<std::string>(vm, "torcrun")) {
        s.allocation.torcrun_path = *given;
    } else {
        auto self = this_torcrun_path("--torcrun");
        if (!self) return self.error();
        s.allocation.torcrun_path = *self;
    }
    if (config_path) s.allocation.config_path = absolute_path(*config_path);
    return s;
}

int watch_workflow(torc_client& client, std::int64_t wf, watch_settings settings)
{
    auto say = [&](std::string const& line) { std::cerr << settings.prefix << ": " << line << "\n"; };
    // A workflow that does not exist (or a server that does not answer) ends the watch at once;
    // later failures are retried.
    if (auto record = client.call("GET", "/workflows/" + std::to_string(wf)); !record) {
        say(record.error().message);
        return 1;
    }
    if (settings.auto_schedule) {
        std::error_code ec;
        std::filesystem::create_directories(settings.allocation.output_dir, ec);
        if (ec) {
            say("the output directory \"" + settings.allocation.output_dir + "\": " + ec.message());
            return 1;
        }
        if (auto warning = core::unreachable_url_warning(settings.allocation.url.value_or("")))
            say("warning: " + *warning);
        say("auto-schedule: threshold " + std::to_string(settings.policy.threshold) +
            " jobs, cooldown " + std::to_string(settings.policy.cooldown_seconds) +
            " s, stranded timeout " + std::to_string(settings.policy.stranded_timeout_seconds) +
            " s, at most " + std::to_string(settings.policy.max_queued) + " queued");
    }
    allocation_loop alloc(client, wf, settings);
    int server_failures = 0;
    recovery_memory recovered;
    for (;;) {
        auto complete = workflow_complete(client, wf);
        core::result<bool> progress = true;
        if (complete && settings.auto_schedule) progress = alloc.pass(*complete);
        if (!complete || !progress) {
            auto const& e = !complete ? complete.error() : progress.error();
            if (++server_failures >= 5) {
                say(e.message);
                return 1;
            }
            say(e.message + " (trying again)");
        } else {
            server_failures = 0;
            if (*complete && !settings.recover) break;
            if (*complete) {
                // A canceled workflow is not recovered: its user stopped it.
                auto summary = workflow_summary(client, wf);
                auto const* c = summary ? summary->if_contains("is_canceled") : nullptr;
                if (c && c->is_bool() && c->get_bool()) break;
                auto again = recover_failed(client, wf, settings.recovery, settings.prefix, recovered);
                if (!again) {
                    say(again.error().message + " (trying again)");
                } else if (*again == 0) {
                    break;
                }
            }
            if (!*progress) {
                // Read again after the pass: the last jobs may have completed, and their
                // allocation ended, between the completeness check and the pass, which then
                // sees nothing ready, running or live in a workflow that is done.
                auto running = in_flight(client, wf);
                auto done_now = workflow_complete(client, wf);
                if (running && *running == 0 && done_now && !*done_now) {
                    say("no job can run: the ready ones fit no partition (named above), none "
                        "is running and no allocation is live");
                    return 1;
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::seconds(settings.poll_seconds));
    }
    // The allocations' ends, as Slurm says them: their workers have left, Slurm ends the jobs
    // within seconds.
    for (int i = 0; settings.auto_schedule && i < 30; ++i) {
        auto open = record_history(client, wf);
        if (!open || *open == 0) break;
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    auto left = unfinished(client, wf);
    if (!left) {
        say(left.error().message);
        return 1;
    }
    if (!left->empty()) {
        say("workflow " + std::to_string(wf) + " is complete; not every job completed: " + *left);
        return 1;
    }
    say("workflow " + std::to_string(wf) + " is complete: every job completed");
    return 0;
}

}  // namespace torcrun::apps
