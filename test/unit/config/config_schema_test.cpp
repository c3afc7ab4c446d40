// The schema tables themselves: every row reaches its own member (and no other), the tables are
// well-formed, the example file and reference table come from them and read back as the
// defaults, and the wording of types, ranges and suggestions.
#include "torcrun/config/config_schema.hpp"

#include "torcrun/config/config.hpp"
#include "torcrun/common/json_writer.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(config_schema)

namespace {

// Every leaf of a to_json tree by dotted path, as compact JSON.
void flatten(boost::json::value const& v, std::string const& prefix,
             std::map<std::string, std::string>& out)
{
    if (v.is_object() && !prefix.ends_with("environment.set")) {
        for (auto const& m : v.get_object()) {
            flatten(m.value(),
                prefix.empty() ? std::string(m.key()) : prefix + "." + std::string(m.key()), out);
        }
        return;
    }
    out[prefix] = core::write_json(v, 0);
}

std::map<std::string, std::string> leaves(boost::json::value const& v)
{
    std::map<std::string, std::string> out;
    flatten(v, "", out);
    return out;
}

// A non-default value for every key: the test below fails when a key has no sample here.
std::map<std::string, std::string> const worker_samples{
    {"server.url", "https://h/v1"},
    {"server.request_timeout_seconds", "100"},
    {"server.retry_window_seconds", "60"},
    {"server.allow_retry_beyond_lease", "true"},
    {"server.use_extensions", "false"},
    {"server.lost_lease_policy", "finish"},
    {"server.username", "me"},
    {"server.password_file", "/pw"},
    {"server.tls_ca_cert", "/ca.pem"},
    {"workflow_id", "5"},
    {"mode", "direct"},
    {"output_dir", "out"},
    {"label", "gpu"},
    {"poll.interval_seconds", "6"},
    {"poll.min_interval_seconds", "1"},
    {"poll.long_poll_seconds", "10"},
    {"poll.startup_delay_seconds", "3"},
    {"termination.signal", "INT"},
    {"termination.grace_seconds", "5"},
    {"termination.end_time", "0"},
    {"termination.drain_buffer_seconds", "120"},
    {"termination.timeout_exit_code", "124"},
    {"limits.idle_timeout_seconds", "0"},
    {"limits.runtime_factor", "2"},
    {"limits.max_parallel_jobs", "4"},
    {"limits.enforce_memory", "true"},
    {"limits.oom_exit_code", "9"},
    {"gpu.visibility_variables", "CUDA_VISIBLE_DEVICES"},
    {"gpu.device_order", "FASTEST_FIRST"},
    {"gpu.hide_from_cpu_jobs", "false"},
    {"gpu.cpu_bind", "true"},
    {"environment.scrub", "false"},
    {"environment.scrub_patterns", "PMI_*"},
    {"environment.keep_patterns", "SLURM_JOB_*"},
    {"environment.set", "A=1"},
    {"resources.cpus", "3"},
    {"resources.memory", "2g"},
    {"resources.gpus", "1"},
    {"srun.signal", "TERM@60"},
    {"srun.extra_args", "--overlap"},
    {"srun.cpu_bind", "true"},
    {"stdio.mode", "combined"},
    {"stdio.delete_on_success", "true"},
    {"attempt_directory", "always"},
    {"log_level", "debug"},
};

std::map<std::string, std::string> const server_samples{
    {"host", "0.0.0.0"},
    {"port", "9090"},
    {"database", "other.db"},
    {"tls.certificate", "/c.pem"},
    {"tls.key", "/k.pem"},
    {"tls.handshake_timeout_seconds", "5"},
    {"auth.htpasswd_file", "/etc/htpasswd"},
    {"auth.enforce_access_control", "true"},
    {"auth.admin_users", "ops,root"},
    {"max_body_bytes", "1m"},
    {"max_connections", "500"},
    {"long_poll_max_seconds", "10"},
    {"worker_lease_seconds", "60"},
    {"lost_worker_jobs", "failed"},
    {"log_level", "error"},
};

template <class Config>
void check_rows_reach_their_members(core::schema_view const& schema,
                                    std::map<std::string, std::string> const& samples)
{
    auto const defaults = leaves(core::to_json(Config{}));
    BOOST_TEST(defaults.size() == schema.keys.size());
    for (auto const& key : schema.keys) {
        std::string const path(key.path);
        BOOST_TEST_CONTEXT(path)
        {
            BOOST_TEST_REQUIRE(samples.count(path) == 1U);
            Config config;
            auto const r = core::apply_override(config, path, samples.at(path), "--test");
            BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
            auto changed = leaves(core::to_json(config));
            BOOST_TEST(changed.at(path) != defaults.at(path));
            changed[path] = defaults.at(path);
            BOOST_TEST((changed == defaults));  // no other key moved
        }
    }
    BOOST_TEST(samples.size() == schema.keys.size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_worker_row_sets_its_own_member)
{
    check_rows_reach_their_members<core::worker_config>(core::worker_schema(), worker_samples);
}

BOOST_AUTO_TEST_CASE(each_server_row_sets_its_own_member)
{
    check_rows_reach_their_members<core::server_config>(core::server_schema(), server_samples);
}

BOOST_DATA_TEST_CASE(tables_are_well_formed,
                     bdata::make(std::vector<std::string>{"worker", "server"}), name)
{
    auto const schema = name == "worker" ? core::worker_schema() : core::server_schema();
    BOOST_TEST(schema.name == name);
    BOOST_TEST(schema.defaults.size() == schema.keys.size());
    std::set<std::string_view> paths, groups_seen, groups_closed;
    std::string_view current_group;
    for (auto const& key : schema.keys) {
        BOOST_TEST_CONTEXT(key.path)
        {
            BOOST_TEST(paths.insert(key.path).second);
            BOOST_TEST(key.description.ends_with("."));
            if (key.rule.kind == core::value_kind::integer) {
                BOOST_TEST(std::abs(key.rule.min) <= 9007199254740991.0);
                BOOST_TEST(std::abs(key.rule.max) <= 9007199254740991.0);
            }
            if (key.rule.kind == core::value_kind::choice) BOOST_TEST(!key.rule.choices.empty());
            std::size_t const dot = key.path.find('.');
            std::string_view const group
                = dot == std::string_view::npos ? "" : key.path.substr(0, dot);
            if (group != current_group) {
                // the example file nests a group's keys together
                BOOST_TEST((group.empty() || !groups_closed.count(group)));
                groups_closed.insert(current_group);
                current_group = group;
            }
            if (!group.empty()) groups_seen.insert(group);
        }
    }
    std::set<std::string_view> described;
    for (auto const& g : schema.groups) described.insert(g.path);
    BOOST_TEST((described == groups_seen));
}

BOOST_DATA_TEST_CASE(schema_defaults_are_the_struct_defaults,
                     bdata::make(std::vector<std::string>{"worker", "server"}), name)
{
    bool const worker = name == "worker";
    auto const schema = worker ? core::worker_schema() : core::server_schema();
    boost::json::value json;
    if (worker) json = core::to_json(core::worker_config{});
    else json = core::to_json(core::server_config{});
    auto const defaults = leaves(json);
    for (std::size_t i = 0; i < schema.keys.size(); ++i) {
        BOOST_TEST(defaults.at(std::string(schema.keys[i].path))
                   == core::write_json(schema.defaults[i], 0));
    }
}

BOOST_AUTO_TEST_CASE(example_files_read_back_as_the_defaults)
{
    auto const worker = core::parse_worker_config(core::render_example(core::worker_schema()), "w");
    BOOST_TEST_REQUIRE(worker.has_value(), worker.error().message);
    BOOST_TEST((*worker == core::worker_config{}));
    auto const server = core::parse_server_config(core::render_example(core::server_schema()), "s");
    BOOST_TEST_REQUIRE(server.has_value(), server.error().message);
    BOOST_TEST((*server == core::server_config{}));
}

BOOST_AUTO_TEST_CASE(example_file_comments_every_key)
{
    std::string const example = core::render_example(core::server_schema());
    BOOST_TEST(example.starts_with("// torcrun server configuration: every key at its default "
                                   "value.\n"));
    BOOST_TEST(
        example.find("    // Who may use the REST API.\n    \"auth\": {\n        // htpasswd "
                     "file for HTTP basic authentication; null = no authentication. "
                     "(string or null)\n        \"htpasswd_file\": null,\n")
        != std::string::npos);
    BOOST_TEST(example.find("    // TCP port; 0 = any free port. (integer; 0 to 65535)\n"
                            "    \"port\": 8080,\n")
               != std::string::npos);
    for (std::string_view line : {std::string_view(example)}) {
        for (std::size_t start = 0, end; start < line.size(); start = end + 1) {
            end = line.find('\n', start);
            BOOST_TEST(end - start <= 100U);
        }
    }
}

BOOST_AUTO_TEST_CASE(reference_table_has_a_row_per_key)
{
    std::string const table = core::render_reference(core::server_schema());
    BOOST_TEST(
        table.starts_with("| key | type | default | range | meaning |\n"
                          "| --- | --- | --- | --- | --- |\n"
                          "| `host` | string | `\"127.0.0.1\"` |  | Address to listen on; "
                          "127.0.0.1 keeps the server to this machine. |\n"
                          "| `port` | integer | `8080` | 0 to 65535 | TCP port; 0 = any free "
                          "port. |\n"));
    auto const rows = std::count(table.begin(), table.end(), '\n');
    BOOST_TEST(static_cast<std::size_t>(rows) == core::server_schema().keys.size() + 2);
    BOOST_TEST(core::render_reference(core::worker_schema()).find(
                   "| `srun.signal` | string or null | `null` | [R:\\|B:]SIGNAL[@SECONDS] |")
               != std::string::npos);
}

struct wording_case {
    core::value_rule rule;
    std::string type;
    std::string range;
};
std::ostream& operator<<(std::ostream& os, wording_case const& c) { return os << c.type; }

constexpr std::string_view two_choices[] = {"one", "two"};
constexpr double inf = INFINITY;

std::vector<wording_case> const wordings{
    {{core::value_kind::number, false, 0.01, 3600, {}}, "number", "0.01 to 3600"},
    {{core::value_kind::integer, true, 1, inf, {}}, "integer or null", "at least 1"},
    {{core::value_kind::number, false, -inf, 60, {}}, "number", "at most 60"},
    {{core::value_kind::number, false, -inf, inf, {}}, "number", ""},
    {{core::value_kind::memory, false, 1024, 1 << 30, {}}, "memory string or integer", "1k to 1g"},
    {{core::value_kind::choice, false, -inf, inf, two_choices}, "string", "one, two"},
    {{core::value_kind::boolean, false, -inf, inf, {}}, "boolean", ""},
    {{core::value_kind::url, false, -inf, inf, {}}, "URL", "http or https"},
    {{core::value_kind::env_patterns, false, -inf, inf, {}}, "array of variable name patterns",
     "NAME or PREFIX*"},
    {{core::value_kind::gpu_ids, true, 0, 1024, {}}, "array of strings or integer or null",
     "0 to 1024"},
    {{core::value_kind::variable_map, false, -inf, inf, {}}, "object of strings", ""},
    {{core::value_kind::signal, false, -inf, inf, {}}, "signal name or number", ""},
    {{core::value_kind::date_time, true, -inf, inf, {}}, "date-time string or number or null", ""},
};

BOOST_DATA_TEST_CASE(types_and_ranges_are_worded, bdata::make(wordings), sample)
{
    BOOST_TEST(core::type_name(sample.rule) == sample.type);
    BOOST_TEST(core::range_text(sample.rule) == sample.range);
}

BOOST_AUTO_TEST_SUITE_END()
