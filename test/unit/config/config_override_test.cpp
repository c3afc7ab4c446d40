// Command-line overrides: the text of each key type (numbers, booleans, null, lists, NAME=VALUE
// maps, JSON), every message verbatim, unknown keys with their suggestion.
#include "torcrun/config/config.hpp"

#include "torcrun/common/json_writer.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(config_override)

namespace {

// Applies one override to the defaults: the key's file-form value as compact JSON, or the error.
std::string apply(bool worker, std::string const& key, std::string const& text,
                  std::string const& origin)
{
    boost::json::value json;
    if (worker) {
        core::worker_config config;
        auto const r = core::apply_override(config, key, text, origin);
        if (!r) return r.error().message;
        json = core::to_json(config);
    } else {
        core::server_config config;
        auto const r = core::apply_override(config, key, text, origin);
        if (!r) return r.error().message;
        json = core::to_json(config);
    }
    std::string_view path = key;
    boost::json::value const* at = &json;
    while (!path.empty()) {
        std::size_t const dot = std::min(path.find('.'), path.size());
        at = &at->at(path.substr(0, dot));
        path.remove_prefix(std::min(dot + 1, path.size()));
    }
    return core::write_json(*at, 0);
}

}  // namespace

struct override_case {
    bool worker;
    std::string key;
    std::string text;
    std::string result;  // compact JSON of the new value, or the exact error
};
std::ostream& operator<<(std::ostream& os, override_case const& c)
{
    return os << c.key << "=" << c.text;
}

std::vector<override_case> const cases{
    {true, "poll.interval_seconds", "10", "10"},
    {true, "poll.interval_seconds", "0.5", "0.5"},
    {true, "poll.interval_seconds", "fast", R"(--flag: "fast" is not a number)"},
    {true, "poll.interval_seconds", "", R"(--flag: "" is not a number)"},
    {true, "poll.interval_seconds", " 5", R"(--flag: " 5" is not a number)"},
    {true, "poll.interval_seconds", "-1", "--flag: -1 is out of range (0.01 to 3600)"},
    {true, "poll.interval_seconds", "inf", "--flag: Infinity is not a finite number"},
    {true, "poll.interval_seconds", "null", R"(--flag: "null" is not a number)"},
    {true, "workflow_id", "42", "42"},
    {true, "workflow_id", "null", "null"},
    {true, "workflow_id", "1.5", R"(--flag: "1.5" is not an integer)"},
    {true, "workflow_id", "0", "--flag: 0 is out of range (1 to 9007199254740991)"},
    {true, "mode", "slurm", R"("slurm")"},
    {true, "mode", "fast", R"(--flag: "fast" is not one of auto, direct, slurm)"},
    {true, "mode", "null", R"(--flag: "null" is not one of auto, direct, slurm)"},
    {true, "server.use_extensions", "auto", R"("auto")"},
    {true, "server.use_extensions", "false", R"("false")"},
    {true, "server.use_extensions", "no", R"("false")"},
    {true, "server.use_extensions", "off", R"("false")"},
    {true, "server.use_extensions", "0", R"("false")"},
    {true, "server.use_extensions", "yes", R"("true")"},
    {true, "server.use_extensions", "maybe", R"(--flag: "maybe" is not one of auto, true, false)"},
    {true, "server.url", "http://h:1/x", R"("http://h:1/x")"},
    {true, "server.url", "h:1/x", R"(--flag: "h:1/x" is not an http or https URL)"
                                   "; expected http://host:port/torc-service/v1"},
    {true, "termination.signal", "USR1", R"("SIGUSR1")"},
    {true, "termination.signal", "9", R"("SIGKILL")"},
    {true, "termination.signal", "FOO",
     R"(--flag: "FOO" is not a signal name or number (examples: SIGTERM, TERM, 15))"},
    {true, "termination.end_time", "1751302800", R"("2025-06-30T17:00:00Z")"},
    {true, "termination.end_time", "2025-06-30T19:00:00+02:00", R"("2025-06-30T17:00:00Z")"},
    {true, "termination.end_time", "tomorrow",
     "--flag: \"tomorrow\" is not an RFC 3339 date-time with a time zone (like "
     "2025-06-30T17:00:00Z or 2025-06-30T12:00:00-05:00)"},
    {true, "resources.memory", "4g", R"("4g")"},
    {true, "resources.memory", "1048576", R"("1m")"},
    {true, "resources.memory", "1.5g",
     R"(--flag: "1.5g" is not an integer followed by an optional k, m, g or t)"},
    {true, "resources.gpus", "2", R"(["0", "1"])"},
    {true, "resources.gpus", "a, b", R"(["a", "b"])"},
    {true, "resources.gpus", R"(["x"])", R"(["x"])"},
    {true, "resources.gpus", "null", "null"},
    {true, "resources.gpus", "a,a", R"(--flag[1]: "a" is listed twice)"},
    {true, "resources.gpus", "-1", "--flag: -1 is out of range (0 to 1024)"},
    {true, "srun.extra_args", "--mpi=pmix, --overlap", R"(["--mpi=pmix", "--overlap"])"},
    {true, "srun.extra_args", "", "[]"},
    {true, "srun.extra_args", "a,,b", "--flag[1]: must not be empty"},
    {true, "srun.signal", "TERM@120", R"("TERM@120")"},
    {true, "environment.set", "A=1,B=x=y", R"({"A": "1", "B": "x=y"})"},
    {true, "environment.set", R"({"C": "3"})", R"({"C": "3"})"},
    {true, "environment.set", "A", R"(--flag: "A" is not NAME=VALUE)"},
    {true, "environment.set", "1A=x", R"(--flag: "1A" is not a valid variable name)"},
    {true, "environment.set", R"({"C": 3})", "--flag.C: expected a string, found an integer"},
    {true, "environment.scrub_patterns", "X_*,Y", R"(["X_*", "Y"])"},
    {true, "gpu.visibility_variables", R"(["A", 3])",
     "--flag[1]: expected a string, found an integer"},
    {true, "gpu.visibility_variables", "[1",
     "--flag: \"[1\" is not valid JSON (1:3: expected ',' or ']' after an array element, found "
     "end of input)"},
    {true, "gpu.device_order", "null", "null"},
    {true, "pol.interval_seconds", "1",
     R"(--flag: unknown key "pol.interval_seconds" (did you mean "poll.interval_seconds"?))"},
    {true, "interval_seconds", "1",
     R"(--flag: unknown key "interval_seconds" (did you mean "poll.interval_seconds"?))"},
    {true, "poll", "1", R"(--flag: unknown key "poll" (did you mean "poll.interval_seconds"?))"},
    {true, "frobnicate", "1", R"(--flag: unknown key "frobnicate")"},
    {true, "port", "1", R"(--flag: unknown key "port")"},
    {false, "port", "0", "0"},
    {false, "port", "70000", "--flag: 70000 is out of range (0 to 65535)"},
    {false, "max_body_bytes", "64m", R"("64m")"},
    {false, "auth.htpasswd_file", "null", "null"},
    {false, "lost_worker_jobs", "failed", R"("failed")"},
    {false, "auth.enforce_access_control", "yes", "true"},
    {false, "auth.admin_users", "ops, root", R"(["ops", "root"])"},
    {false, "auth.admin_users", R"(["ops"])", R"(["ops"])"},
    {false, "database", "", "--flag: must not be empty"},
    {false, "auth.htpasswd", "x",
     R"(--flag: unknown key "auth.htpasswd" (did you mean "auth.htpasswd_file"?))"},
};

BOOST_DATA_TEST_CASE(override_text_is_read_by_the_key_type, bdata::make(cases), sample)
{
    BOOST_TEST(apply(sample.worker, sample.key, sample.text, "--flag") == sample.result);
}

BOOST_AUTO_TEST_CASE(a_failed_override_leaves_the_config_unchanged)
{
    core::worker_config config;
    BOOST_TEST(!core::apply_override(config, "resources.gpus", "a,a", "--x").has_value());
    BOOST_TEST(!core::apply_override(config, "mode", "x", "--x").has_value());
    BOOST_TEST((config == core::worker_config{}));
}

BOOST_AUTO_TEST_SUITE_END()
