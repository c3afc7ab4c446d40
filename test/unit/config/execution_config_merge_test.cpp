// The combine rule of a workflow's execution_config with the worker's configuration: each Torc
// key's torcrun key, default < workflow < file < --set / flags with the source of every value,
// the headroom turned into the drain buffer, stdio and per-job overrides, the string form of API
// 0.17, every error verbatim, and Torc's mode-dependent checks.
#include "torcrun/config/execution_config_merge.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(execution_config)

namespace {

core::sourced_worker_config parsed(std::string const& file,
                                   std::vector<core::config_override> const& overrides = {})
{
    auto r = core::parse_sourced_worker_config(file, "w.json", overrides);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    return *r;
}

json::object object(std::string const& text) { return json::parse(text).as_object(); }

core::sourced_worker_config combined(core::sourced_worker_config base, std::string const& ec)
{
    auto r = core::apply_execution_config(std::move(base), object(ec), 7);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    return *r;
}

std::string combine_error(std::string const& ec, std::string const& file = "{}")
{
    auto r = core::apply_execution_config(parsed(file), object(ec), 7);
    return r ? "no error" : r.error().message;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sources_of_the_file_and_the_command_line)
{
    auto const c = parsed(R"({"termination": {"grace_seconds": 10}})",
                          {{"poll.interval_seconds", "2", "--set poll.interval_seconds"},
                           {"termination.signal", "SIGINT", "--termination-signal"}});
    BOOST_TEST(core::source_of(c.sources, "termination.grace_seconds") == "file w.json");
    BOOST_TEST(core::source_of(c.sources, "poll.interval_seconds") == "--set");
    BOOST_TEST(core::source_of(c.sources, "termination.signal") == "flag --termination-signal");
    BOOST_TEST(core::source_of(c.sources, "mode") == "default");
}

BOOST_AUTO_TEST_CASE(every_key_lands_on_its_torcrun_key_over_the_defaults)
{
    auto const c = combined(parsed("{}"), R"({
        "mode": "direct", "termination_signal": "SIGINT", "sigterm_lead_seconds": 5,
        "sigkill_headroom_seconds": 20, "timeout_exit_code": 99, "oom_exit_code": 98,
        "limit_resources": true, "srun_termination_signal": "TERM@120",
        "enable_cpu_bind": true, "stdio": {"mode": "combined", "delete_on_success": true},
        "staggered_start": false, "srun_mpi": "pmix"})");
    auto const& w = c.config;
    BOOST_TEST((w.mode == core::run_mode::direct));
    BOOST_TEST(w.termination.signal == SIGINT);
    BOOST_TEST(w.termination.grace_seconds == 5);
    BOOST_TEST(w.termination.drain_buffer_seconds == 25);  // headroom 20 + the grace 5
    BOOST_TEST(w.termination.timeout_exit_code == 99);
    BOOST_TEST(w.limits.oom_exit_code == 98);
    BOOST_TEST(w.limits.enforce_memory);
    BOOST_TEST(*w.srun.signal == "TERM@120");
    BOOST_TEST(w.srun.cpu_bind);
    BOOST_TEST((w.stdio.mode == core::stdio_mode::combined));
    BOOST_TEST(w.stdio.delete_on_success);
    for (auto const* key : {"mode", "termination.signal", "termination.grace_seconds",
                            "termination.drain_buffer_seconds", "termination.timeout_exit_code",
                            "limits.oom_exit_code", "limits.enforce_memory", "srun.signal",
                            "srun.cpu_bind", "stdio.mode", "stdio.delete_on_success"})
        BOOST_TEST(core::source_of(c.sources, key) == "workflow 7 execution_config", key);
    BOOST_TEST(core::source_of(c.sources, "poll.interval_seconds") == "default");
}

BOOST_AUTO_TEST_CASE(the_file_and_the_command_line_win_over_the_workflow)
{
    auto const base = parsed(R"({"termination": {"grace_seconds": 10}, "mode": "slurm"})",
                             {{"limits.oom_exit_code", "1", "--set limits.oom_exit_code"},
                              {"termination.signal", "SIGUSR1", "--termination-signal"}});
    auto const c = combined(base, R"({"mode": "direct", "sigterm_lead_seconds": 3,
        "sigkill_headroom_seconds": 40, "oom_exit_code": 2, "termination_signal": "SIGINT"})");
    BOOST_TEST((c.config.mode == core::run_mode::slurm));
    BOOST_TEST(c.config.termination.grace_seconds == 10);
    BOOST_TEST(c.config.termination.drain_buffer_seconds == 50);  // 40 + the file's grace
    BOOST_TEST(c.config.limits.oom_exit_code == 1);
    BOOST_TEST(c.config.termination.signal == SIGUSR1);
    BOOST_TEST(core::source_of(c.sources, "mode") == "file w.json");
    BOOST_TEST(core::source_of(c.sources, "termination.grace_seconds") == "file w.json");
    BOOST_TEST(core::source_of(c.sources, "termination.drain_buffer_seconds") ==
               "workflow 7 execution_config");
    BOOST_TEST(core::source_of(c.sources, "limits.oom_exit_code") == "--set");
    BOOST_TEST(core::source_of(c.sources, "termination.signal") == "flag --termination-signal");
}

BOOST_AUTO_TEST_CASE(an_empty_execution_config_changes_nothing)
{
    auto const base = parsed(R"({"poll": {"interval_seconds": 3}})");
    auto const c = combined(base, "{}");
    BOOST_TEST((c.config == base.config));
    BOOST_TEST((c.sources == base.sources));
}

BOOST_AUTO_TEST_CASE(job_stdio_overrides_replace_stdio_whole)
{
    auto const c = combined(parsed("{}"), R"({"stdio": {"mode": "none"},
        "job_stdio_overrides": {"a": {"delete_on_success": true}, "b": {"mode": "no_stderr"}}})");
    auto const& a = core::stdio_of(c.config, "a");
    BOOST_TEST((a.mode == core::stdio_mode::separate));  // no merge with stdio: Torc's default
    BOOST_TEST(a.delete_on_success);
    BOOST_TEST((core::stdio_of(c.config, "b").mode == core::stdio_mode::no_stderr));
    BOOST_TEST((core::stdio_of(c.config, "other").mode == core::stdio_mode::none));
}

BOOST_AUTO_TEST_CASE(an_operator_stdio_key_drops_the_per_job_overrides)
{
    auto const base = parsed("{}", {{"stdio.mode", "combined", "--set stdio.mode"}});
    auto const c = combined(base, R"({"job_stdio_overrides": {"a": {"mode": "none"}}})");
    BOOST_TEST(c.config.job_stdio.empty());
    BOOST_TEST((core::stdio_of(c.config, "a").mode == core::stdio_mode::combined));
}

BOOST_AUTO_TEST_CASE(errors_name_the_key_and_are_all_reported)
{
    BOOST_TEST(combine_error(R"({"modee": "direct"})") ==
               "workflow 7 execution_config: unknown key \"modee\" (did you mean \"mode\"?)");
    BOOST_TEST(combine_error(R"({"sigterm_lead_seconds": -1, "mode": "fast"})") ==
               "workflow 7 execution_config.mode: \"fast\" is not one of auto, direct, slurm\n"
               "workflow 7 execution_config.sigterm_lead_seconds: -1 is out of range (0 to "
               "3600)");
    BOOST_TEST(combine_error(R"({"timeout_exit_code": 300})") ==
               "workflow 7 execution_config.timeout_exit_code: 300 is out of range (0 to 255)");
    BOOST_TEST(combine_error(R"({"stdio": {"mode": "both", "keep": 1}})") ==
               "workflow 7 execution_config.stdio.mode: \"both\" is not one of separate, "
               "combined, no_stdout, no_stderr, none\n"
               "workflow 7 execution_config.stdio: unknown key \"keep\" (a stdio entry has mode "
               "and delete_on_success)");
    BOOST_TEST(combine_error(R"({"job_stdio_overrides": {"j": "none"}})") ==
               "workflow 7 execution_config.job_stdio_overrides.j: expected an object, found a "
               "string");
    BOOST_TEST(combine_error(R"({"termination_signal": "SIGNOPE"})").starts_with(
        "workflow 7 execution_config.termination_signal: "));
    // A bad workflow value is reported even where the operator's value wins.
    BOOST_TEST(combine_error(R"({"sigterm_lead_seconds": "x"})",
                             R"({"termination": {"grace_seconds": 1}})")
                   .starts_with("workflow 7 execution_config.sigterm_lead_seconds: "));
}

BOOST_AUTO_TEST_CASE(the_string_form_of_api_0_17)
{
    json::value const text = json::string(R"({"mode": "slurm"})");
    auto const obj = core::execution_config_object(&text, 3);
    BOOST_TEST_REQUIRE(obj.has_value());
    BOOST_TEST(obj->at("mode").as_string() == "slurm");
    BOOST_TEST(core::execution_config_object(nullptr, 3)->empty());
    json::value const null;
    BOOST_TEST(core::execution_config_object(&null, 3)->empty());
    json::value const number = 5;
    BOOST_TEST(core::execution_config_object(&number, 3).error().message ==
               "workflow 3 execution_config: expected an object, found an integer");
    json::value const list = json::string("[1]");
    BOOST_TEST(core::execution_config_object(&list, 3).error().message ==
               "workflow 3 execution_config: the string holds an array, not an object");
    json::value const broken = json::string("{");
    BOOST_TEST(core::execution_config_object(&broken, 3).error().message.starts_with(
        "workflow 3 execution_config: the string is not JSON: "));
}

BOOST_AUTO_TEST_CASE(checks_that_depend_on_the_mode)
{
    auto const check = [](std::string const& ec, core::run_mode mode) {
        auto r = core::check_execution_config(object(ec), mode, 4);
        return r ? std::string("ok") : r.error().message;
    };
    BOOST_TEST(check(R"({"limit_resources": false, "oom_exit_code": 1})", core::run_mode::slurm) ==
               "workflow 4 execution_config.limit_resources: false is not allowed in slurm mode "
               "(each step gets exactly its CPUs and memory)\n"
               "workflow 4 execution_config.oom_exit_code: applies to direct mode only; this "
               "worker runs in slurm mode (Slurm stops and limits the steps)");
    BOOST_TEST(check(R"({"srun_termination_signal": "TERM@60", "enable_cpu_bind": true})",
                     core::run_mode::direct) ==
               "workflow 4 execution_config.srun_termination_signal: applies to slurm mode "
               "only; this worker runs in direct mode\n"
               "workflow 4 execution_config.enable_cpu_bind: true applies to slurm mode only; "
               "this worker runs in direct mode");
    BOOST_TEST(check(R"({"enable_cpu_bind": false, "limit_resources": false})",
                     core::run_mode::direct) == "ok");
    BOOST_TEST(check(R"({"srun_termination_signal": "TERM@60", "limit_resources": true})",
                     core::run_mode::slurm) == "ok");
}

BOOST_AUTO_TEST_CASE(the_job_sampling_interval_of_resource_monitor_config)
{
    auto const interval = [](std::string const& text) {
        auto const v = json::parse(text);
        auto r = core::job_sample_interval(&v, 3);
        if (!r) return r.error().message;
        return *r ? std::to_string(**r) : std::string("none");
    };
    BOOST_TEST(interval(R"({"sample_interval_seconds": 2, "jobs": {"enabled": true}})") ==
               std::to_string(2.0));
    BOOST_TEST(interval(R"({"sample_interval_seconds": 2, "enabled": true})") ==
               std::to_string(2.0));  // legacy: applies when jobs is absent
    BOOST_TEST(interval(R"({"sample_interval_seconds": 2, "enabled": true,
                            "jobs": {"enabled": false}})") == "none");
    BOOST_TEST(interval(R"({"sample_interval_seconds": 2})") == "none");
    BOOST_TEST(interval(R"({"jobs": {"enabled": true}})") == "none");
    BOOST_TEST(interval(R"("{\"sample_interval_seconds\": 5, \"enabled\": true}")") ==
               std::to_string(5.0));
    BOOST_TEST(interval(R"({"sample_interval_seconds": 0, "enabled": true})") ==
               "workflow 3 resource_monitor_config.sample_interval_seconds: 0 is out of range "
               "(0.1 to 3600)");
    BOOST_TEST(interval(R"({"sample_interval_seconds": "5", "enabled": true})") ==
               "workflow 3 resource_monitor_config.sample_interval_seconds: expected a number, "
               "found a string");
    BOOST_TEST(interval("[1]") ==
               "workflow 3 resource_monitor_config: expected an object, found an array");
    BOOST_TEST(!core::job_sample_interval(nullptr, 3)->has_value());
}

BOOST_AUTO_TEST_CASE(node_monitoring_of_resource_monitor_config)
{
    auto const node = [](std::string const& text) -> std::string {
        auto const v = json::parse(text);
        auto r = core::node_monitor_of(&v, 3);
        if (!r) return r.error().message;
        if (!*r) return "off";
        auto const& n = **r;
        return std::to_string(n.interval_seconds) + (n.cpu ? " cpu" : "") +
               (n.memory ? " memory" : "") + (n.time_series ? " series" : "");
    };
    BOOST_TEST(node(R"({"sample_interval_seconds": 2, "enabled": true})") == "off");
    BOOST_TEST(node(R"({"compute_node": {"enabled": false}})") == "off");
    BOOST_TEST(node(R"({"compute_node": null})") == "off");
    BOOST_TEST(node(R"({"compute_node": {"enabled": true}})") ==
               std::to_string(10.0) + " cpu memory");  // Torc's default interval
    BOOST_TEST(node(R"({"sample_interval_seconds": 1, "compute_node": {"enabled": true,
                        "granularity": "time_series", "cpu": false}})") ==
               std::to_string(1.0) + " memory series");
    BOOST_TEST(node(R"("{\"compute_node\": {\"enabled\": true, \"memory\": false}}")") ==
               std::to_string(10.0) + " cpu");
    BOOST_TEST(node(R"({"compute_node": "on"})") ==
               "workflow 3 resource_monitor_config.compute_node: expected an object, found a "
               "string");
    BOOST_TEST(node(R"({"sample_interval_seconds": 0, "compute_node": {"enabled": true}})") ==
               "workflow 3 resource_monitor_config.sample_interval_seconds: 0 is out of range "
               "(0.1 to 3600)");
    BOOST_TEST(!core::node_monitor_of(nullptr, 3)->has_value());
}

BOOST_AUTO_TEST_SUITE_END()
