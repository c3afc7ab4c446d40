// Worker and server configuration: accepted file values, every rejection message verbatim with
// file:line:col, command-line overrides and their messages, flags over file, the rules between
// keys, and the round trip through to_json.
#include "torcrun/config/config.hpp"

#include "torcrun/common/json_writer.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(config)

namespace {

enum class which { worker, server };

// The file-form value at a dotted key path of the effective configuration, as JSON text.
std::string value_at(boost::json::value const& root, std::string_view path)
{
    boost::json::value const* at = &root;
    while (!path.empty()) {
        std::size_t const dot = std::min(path.find('.'), path.size());
        at = &at->at(path.substr(0, dot));
        path.remove_prefix(std::min(dot + 1, path.size()));
    }
    return core::write_json(*at, 0);
}

// The effective configuration as JSON, or the error message.
core::result<boost::json::value> parsed(which w, std::string_view text,
                                        std::vector<core::config_override> const& overrides = {})
{
    if (w == which::worker) {
        auto const r = core::parse_worker_config(text, "worker.json", overrides);
        if (!r) return r.error();
        return core::to_json(*r);
    }
    auto const r = core::parse_server_config(text, "server.json", overrides);
    if (!r) return r.error();
    return core::to_json(*r);
}

}  // namespace

BOOST_AUTO_TEST_CASE(absent_keys_take_the_struct_defaults)
{
    auto const worker = core::parse_worker_config("{}", "worker.json");
    BOOST_TEST_REQUIRE(worker.has_value(), worker.error().message);
    BOOST_TEST((*worker == core::worker_config{}));
    auto const server = core::parse_server_config("// nothing\n{ }", "server.json");
    BOOST_TEST_REQUIRE(server.has_value(), server.error().message);
    BOOST_TEST((*server == core::server_config{}));
}

BOOST_AUTO_TEST_CASE(values_reach_the_struct_members)
{
    auto const r = core::parse_worker_config(R"({
        server: {url: 'https://torc.example.org/v1', username: "me", password_file: "/pw"},
        workflow_id: 12, mode: "slurm", poll: {interval_seconds: 2, min_interval_seconds: 0.25},
        termination: {signal: "USR1", end_time: "2025-06-30T17:00:00Z"},
        limits: {runtime_factor: 1.5},
        resources: {cpus: 8, memory: "2g", gpus: 2},
        environment: {set: {OMP_NUM_THREADS: "4"}},
        log_level: "debug",
    })", "worker.json");
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(r->server.url == "https://torc.example.org/v1");
    BOOST_TEST((r->server.username == std::optional<std::string>("me")));
    BOOST_TEST((r->workflow_id == std::optional<std::int64_t>(12)));
    BOOST_TEST((r->mode == core::run_mode::slurm));
    BOOST_TEST(r->poll.interval_seconds == 2.0);
    BOOST_TEST(r->poll.min_interval_seconds == 0.25);
    BOOST_TEST(r->termination.signal == SIGUSR1);
    BOOST_TEST((r->termination.end_time == std::optional<double>(1751302800)));
    BOOST_TEST((r->limits.runtime_factor == std::optional<double>(1.5)));
    BOOST_TEST((r->resources.cpus == std::optional<std::uint32_t>(8)));
    BOOST_TEST((r->resources.memory_bytes == std::optional<std::uint64_t>(2ULL << 30)));
    BOOST_TEST((r->resources.gpus == std::optional<std::vector<std::string>>({{"0", "1"}})));
    BOOST_TEST(r->environment.set.at("OMP_NUM_THREADS") == "4");
    BOOST_TEST((r->log_level == core::log_severity::debug));

    auto const s = core::parse_server_config(
        R"({"port": 0, "max_body_bytes": "64m", "lost_worker_jobs": "failed"})", "server.json");
    BOOST_TEST_REQUIRE(s.has_value(), s.error().message);
    BOOST_TEST(s->port == 0);
    BOOST_TEST(s->max_body_bytes == 64ULL << 20);
    BOOST_TEST((s->lost_worker_jobs == core::lost_job_policy::failed));
}

struct accepted_case {
    which config;
    std::string text;
    std::string path;
    std::string value;  // the file form to_json gives back, compact JSON
};
std::ostream& operator<<(std::ostream& os, accepted_case const& c) { return os << c.text; }

std::vector<accepted_case> const accepted{
    {which::worker, R"({"mode": "direct"})", "mode", R"("direct")"},
    {which::worker, "{mode: 'slurm', /* c */ poll: {interval_seconds: 2,},}", "mode", R"("slurm")"},
    {which::worker, R"({"poll": {"interval_seconds": 0.01, "min_interval_seconds": 0.01}})",
     "poll.interval_seconds", "0.01"},
    {which::worker, R"({"poll": {"interval_seconds": 3600}})", "poll.interval_seconds", "3600"},
    {which::worker, R"({"poll": {"long_poll_seconds": 0}})", "poll.long_poll_seconds", "0"},
    {which::worker, R"({"workflow_id": 3})", "workflow_id", "3"},
    {which::worker, R"({"workflow_id": 3.0})", "workflow_id", "3"},
    {which::worker, R"({"workflow_id": null})", "workflow_id", "null"},
    {which::worker, R"({"resources": {"memory": "2g"}})", "resources.memory", R"("2g")"},
    {which::worker, R"({"resources": {"memory": 1073741824}})", "resources.memory", R"("1g")"},
    {which::worker, R"({"resources": {"gpus": 2}})", "resources.gpus", R"(["0", "1"])"},
    {which::worker, R"({"resources": {"gpus": 0}})", "resources.gpus", "[]"},
    {which::worker, R"({"resources": {"gpus": ["GPU-ab12", "MIG-1"]}})", "resources.gpus",
     R"(["GPU-ab12", "MIG-1"])"},
    {which::worker, R"({"resources": {"cpus": 1000000}})", "resources.cpus", "1000000"},
    {which::worker, R"({"termination": {"signal": "TERM"}})", "termination.signal",
     R"("SIGTERM")"},
    {which::worker, R"({"termination": {"signal": 10}})", "termination.signal", R"("SIGUSR1")"},
    {which::worker, R"({"termination": {"signal": "usr2"}})", "termination.signal",
     R"("SIGUSR2")"},
    {which::worker, R"({"termination": {"signal": 40}})", "termination.signal", "40"},
    {which::worker, R"({"termination": {"end_time": "2025-06-30T12:00:00-05:00"}})",
     "termination.end_time", R"("2025-06-30T17:00:00Z")"},
    {which::worker, R"({"termination": {"end_time": 1751302800}})", "termination.end_time",
     R"("2025-06-30T17:00:00Z")"},
    {which::worker, R"({"limits": {"runtime_factor": 1}})", "limits.runtime_factor", "1"},
    {which::worker, R"({"limits": {"idle_timeout_seconds": 0}})", "limits.idle_timeout_seconds",
     "0"},
    {which::worker, R"({"server": {"url": "https://torc.example.org:8443/torc-service/v1"}})",
     "server.url", R"("https://torc.example.org:8443/torc-service/v1")"},
    {which::worker, R"({"server": {"url": "HTTP://[::1]:8080/"}})", "server.url",
     R"("HTTP://[::1]:8080/")"},
    {which::worker, R"({"environment": {"set": {"OMP_NUM_THREADS": "4", "EMPTY": ""}}})",
     "environment.set", R"({"EMPTY": "", "OMP_NUM_THREADS": "4"})"},
    {which::worker, R"({"environment": {"scrub_patterns": ["FOO_*", "BAR", "_X*"]}})",
     "environment.scrub_patterns", R"(["FOO_*", "BAR", "_X*"])"},
    {which::worker, R"({"environment": {"keep_patterns": []}})", "environment.keep_patterns",
     "[]"},
    {which::worker, R"({"gpu": {"device_order": null}})", "gpu.device_order", "null"},
    {which::worker, R"({"gpu": {"visibility_variables": ["CUDA_VISIBLE_DEVICES"]}})",
     "gpu.visibility_variables", R"(["CUDA_VISIBLE_DEVICES"])"},
    {which::worker, R"({"srun": {"signal": "B:USR1@60"}})", "srun.signal", R"("B:USR1@60")"},
    {which::worker, R"({"srun": {"signal": "TERM"}})", "srun.signal", R"("TERM")"},
    {which::worker, R"({"srun": {"signal": "RB:10@65535"}})", "srun.signal",
     R"("RB:10@65535")"},
    {which::worker, R"({"srun": {"extra_args": ["--mpi=pmix"]}})", "srun.extra_args",
     R"(["--mpi=pmix"])"},
    {which::worker, R"({"log_level": "error"})", "log_level", R"("error")"},
    {which::server, R"({"port": 0})", "port", "0"},
    {which::server, R"({"port": 65535})", "port", "65535"},
    {which::server, R"({"max_body_bytes": 1024})", "max_body_bytes", R"("1k")"},
    {which::server, R"({"max_body_bytes": "1g"})", "max_body_bytes", R"("1g")"},
    {which::server, R"({"lost_worker_jobs": "failed"})", "lost_worker_jobs", R"("failed")"},
    {which::server, R"({"max_connections": 1})", "max_connections", "1"},
    {which::server, R"({"max_connections": 1000000})", "max_connections", "1000000"},
    {which::server, R"({"max_connections": null})", "max_connections", "null"},
    {which::server, R"({"auth": {"htpasswd_file": "/etc/torcrun.htpasswd"}})",
     "auth.htpasswd_file", R"("/etc/torcrun.htpasswd")"},
    {which::server, R"({"host": "::"})", "host", R"("::")"},
    {which::server,
     R"({"auth": {"htpasswd_file": "/h", "enforce_access_control": true, "admin_users": ["ops"]}})",
     "auth.admin_users", R"(["ops"])"},
};

BOOST_DATA_TEST_CASE(file_values_are_accepted, bdata::make(accepted), sample)
{
    auto const r = parsed(sample.config, sample.text);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(value_at(*r, sample.path) == sample.value);
}

// server.use_extensions was a boolean: a file written then still reads, as the choice of that
// name; its default is auto.
BOOST_AUTO_TEST_CASE(use_extensions_takes_the_old_booleans_and_auto)
{
    using core::extension_use;
    BOOST_TEST((core::parse_worker_config("{}", "w")->server.use_extensions ==
                extension_use::automatic));
    auto const off = core::parse_worker_config(R"({"server": {"use_extensions": false}})", "w");
    BOOST_TEST_REQUIRE(off.has_value());
    BOOST_TEST((off->server.use_extensions == extension_use::off));
    auto const on = core::parse_worker_config(R"({"server": {"use_extensions": true}})", "w");
    BOOST_TEST_REQUIRE(on.has_value());
    BOOST_TEST((on->server.use_extensions == extension_use::on));
    auto const automatic =
        core::parse_worker_config(R"({"server": {"use_extensions": "auto"}})", "w");
    BOOST_TEST_REQUIRE(automatic.has_value());
    BOOST_TEST((automatic->server.use_extensions == extension_use::automatic));
}

BOOST_AUTO_TEST_CASE(overrides_win_over_the_file_in_order)
{
    std::vector<core::config_override> const overrides{
        {"poll.interval_seconds", "8", "--set poll.interval_seconds"},
        {"poll.interval_seconds", "9", "--poll-interval"},
        {"mode", "slurm", "--mode"},
    };
    auto const r = parsed(which::worker, R"({"poll": {"interval_seconds": 7}, "mode": "direct"})",
                          overrides);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(value_at(*r, "poll.interval_seconds") == "9");
    BOOST_TEST(value_at(*r, "mode") == R"("slurm")");
}

struct blame_case {
    std::string text;
    std::vector<core::config_override> overrides;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, blame_case const& c) { return os << c.message; }

std::vector<blame_case> const blamed{
    // the rule between keys is checked after the overrides, so a flag can mend the file
    {R"({"poll": {"interval_seconds": 1, "min_interval_seconds": 2}})",
     {{"poll.interval_seconds", "3", "--poll-interval"}},
     ""},
    // the flag that broke the rule is named, even when it set the other key
    {R"({"poll": {"min_interval_seconds": 2}})",
     {{"poll.interval_seconds", "1", "--poll-interval"}},
     "--poll-interval: poll.min_interval_seconds: 2 is greater than poll.interval_seconds (1)"},
    {"{}",
     {{"poll.long_poll_seconds", "50", "--long-poll"},
      {"server.request_timeout_seconds", "40", "--set server.request_timeout_seconds"}},
     "--set server.request_timeout_seconds: server.request_timeout_seconds: 40 must be greater "
     "than poll.long_poll_seconds (50)"},
    // file errors and flag errors are all reported, file first
    {R"({"mode": "x"})",
     {{"termination.grace_seconds", "soon", "--grace"}},
     "worker.json:1:10: mode: \"x\" is not one of auto, direct, slurm\n"
     "--grace: \"soon\" is not a number"},
    // with no key in the file to point at, the file is named
    {"{}",
     {{"server.password_file", "/pw", "--set server.password_file"}},
     "--set server.password_file: server.password_file: is set but server.username is not"},
    {R"({"server": {"request_timeout_seconds": 20}})",
     {},
     "worker.json:1:40: server.request_timeout_seconds: 20 must be greater than "
     "poll.long_poll_seconds (30)"},
};

BOOST_DATA_TEST_CASE(rules_between_keys_blame_the_right_source, bdata::make(blamed), sample)
{
    auto const r = parsed(which::worker, sample.text, sample.overrides);
    BOOST_TEST((r ? std::string() : r.error().message) == sample.message);
}

BOOST_AUTO_TEST_CASE(check_config_applies_the_rules_between_keys)
{
    core::worker_config config;
    BOOST_TEST(core::check_config(config).has_value());
    config.poll.interval_seconds = 0.1;
    config.server.password_file = "/pw";
    auto const r = core::check_config(config);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message
               == "poll.min_interval_seconds: 0.5 is greater than poll.interval_seconds (0.1)\n"
                  "server.password_file: is set but server.username is not");
    BOOST_TEST(core::check_config(core::server_config{}).has_value());
}

BOOST_AUTO_TEST_CASE(access_control_needs_an_htpasswd_file)
{
    auto const r = parsed(which::server, R"({"auth": {"enforce_access_control": true}})", {});
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST(r.error().message ==
               "server.json:1:37: auth.enforce_access_control: is true but auth.htpasswd_file is "
               "null: access control needs authenticated users");
}

BOOST_AUTO_TEST_CASE(to_json_reads_back_as_the_same_config)
{
    core::worker_config worker;
    worker.server.username = "me";
    worker.workflow_id = 7;
    worker.mode = core::run_mode::direct;
    worker.termination.signal = SIGRTMIN + 2;
    worker.termination.end_time = 1751302800.5;
    worker.limits.runtime_factor = 2.5;
    worker.gpu.device_order.reset();
    worker.environment.set = {{"A", "1"}, {"B", ""}};
    worker.resources = {4, 3ULL << 30, std::vector<std::string>{"GPU-a", "GPU-b"}};
    worker.srun = {"B:USR1@90", {"--mpi=pmix", "--overlap"}};
    worker.log_level = core::log_severity::warning;
    for (auto const& config : {core::worker_config{}, worker}) {
        auto const text = core::write_json(core::to_json(config));
        auto const back = core::parse_worker_config(text, "to_json");
        BOOST_TEST_REQUIRE(back.has_value(), back.error().message);
        BOOST_TEST((*back == config), text);
    }
    core::server_config server;
    server.port = 0;
    server.max_body_bytes = 1536ULL << 10;
    server.auth.htpasswd_file = "/etc/htpasswd";
    server.lost_worker_jobs = core::lost_job_policy::failed;
    auto const back = core::parse_server_config(core::write_json(core::to_json(server)), "j");
    BOOST_TEST_REQUIRE(back.has_value(), back.error().message);
    BOOST_TEST((*back == server));
}

BOOST_AUTO_TEST_CASE(enum_names_match_the_choices)
{
    BOOST_TEST(core::to_string(core::run_mode::automatic) == "auto");
    BOOST_TEST(core::to_string(core::run_mode::slurm) == "slurm");
    BOOST_TEST(core::to_string(core::log_severity::warning) == "warning");
    BOOST_TEST(core::to_string(core::lost_job_policy::failed) == "failed");
}

// The retry window against the lease the server names in its heartbeat answer: at most the lease,
// or anything with server.allow_retry_beyond_lease.
BOOST_AUTO_TEST_CASE(retry_window_beyond_the_lease)
{
    core::worker_config c;
    BOOST_TEST(c.server.retry_window_seconds == 120);
    BOOST_TEST(!c.server.allow_retry_beyond_lease);
    BOOST_TEST(core::check_retry_window(c, 120).has_value());  // the defaults agree
    BOOST_TEST(core::check_retry_window(c, 300).has_value());
    auto const refused = core::check_retry_window(c, 10);
    BOOST_TEST_REQUIRE(refused.has_error());
    BOOST_TEST(refused.error().message ==
               "server.retry_window_seconds: 120 s is longer than the server's lease (10 s): the "
               "worker would go on retrying after its jobs went to other workers; lower it, or "
               "set server.allow_retry_beyond_lease=true");
    auto parsed = core::parse_worker_config(R"({"server": {"allow_retry_beyond_lease": true}})",
                                            "worker.json");
    BOOST_TEST_REQUIRE(parsed.has_value());
    BOOST_TEST(core::check_retry_window(*parsed, 10).has_value());
    c.server.retry_window_seconds = 10;
    BOOST_TEST(core::check_retry_window(c, 10).has_value());
    BOOST_TEST(core::check_retry_window(c, 9.5).has_error());
}

BOOST_AUTO_TEST_SUITE_END()
