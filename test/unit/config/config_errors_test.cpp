// Configuration file errors: every type, range, choice, format and unknown-key message verbatim,
// located at file:line:col of the value (or of the key, for unknown keys), all of them reported.
#include "torcrun/config/config.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace core = torcrun::core;
namespace bdata = boost::unit_test::data;

BOOST_AUTO_TEST_SUITE(config_errors)

namespace {

enum class which { worker, server };

std::string error_of(which w, std::string_view text)
{
    if (w == which::worker) {
        auto const r = core::parse_worker_config(text, "worker.json");
        return r ? "" : r.error().message;
    }
    auto const r = core::parse_server_config(text, "server.json");
    return r ? "" : r.error().message;
}

}  // namespace

struct rejected_case {
    which config;
    std::string text;
    std::string message;
};
std::ostream& operator<<(std::ostream& os, rejected_case const& c) { return os << c.text; }

std::vector<rejected_case> const rejected{
    {which::worker, R"([])",
     "worker.json:1:1: expected an object at the top level, found an array"},
    {which::worker, R"("x")",
     "worker.json:1:1: expected an object at the top level, found a string"},
    {which::worker, R"({"moed": "auto"})",
     "worker.json:1:2: moed: unknown key (did you mean \"mode\"?)"},
    {which::worker, R"({"frobnicate": 1})",
     "worker.json:1:2: frobnicate: unknown key"},
    {which::worker, R"({"poll": {"intervl_seconds": 1}})",
     "worker.json:1:11: poll.intervl_seconds: unknown key (did you mean \"interval_seconds\"?)"},
    {which::worker, R"({"interval_seconds": 1})",
     "worker.json:1:2: interval_seconds: unknown key (did you mean \"poll.interval_seconds\"?)"},
    {which::worker, R"({"poll.interval_seconds": 1})",
     "worker.json:1:2: poll.interval_seconds: unknown key (write nested objects instead of dots)"},
    {which::worker, R"({"poll": 5})",
     "worker.json:1:10: poll: expected an object, found an integer"},
    {which::worker, R"({"poll": null})",
     "worker.json:1:10: poll: expected an object, found null"},
    {which::worker, R"({"poll": {"interval_seconds": -1}})",
     "worker.json:1:31: poll.interval_seconds: -1 is out of range (0.01 to 3600)"},
    {which::worker, R"({"poll": {"interval_seconds": 3601}})",
     "worker.json:1:31: poll.interval_seconds: 3601 is out of range (0.01 to 3600)"},
    {which::worker, R"({"poll": {"interval_seconds": "5"}})",
     "worker.json:1:31: poll.interval_seconds: expected a number, found a string"},
    {which::worker, R"({"poll": {"interval_seconds": null}})",
     "worker.json:1:31: poll.interval_seconds: expected a number, found null"},
    {which::worker, R"({"poll": {"long_poll_seconds": 61}})",
     "worker.json:1:32: poll.long_poll_seconds: 61 is out of range (0 to 60)"},
    {which::worker, R"({"poll": {"interval_seconds": NaN}})",
     "worker.json:1:31: poll.interval_seconds: NaN is not a finite number"},
    {which::worker, R"({"poll": {"interval_seconds": -Infinity}})",
     "worker.json:1:31: poll.interval_seconds: -Infinity is not a finite number"},
    {which::worker, R"({"workflow_id": "7"})",
     "worker.json:1:17: workflow_id: expected an integer or null, found a string"},
    {which::worker, R"({"workflow_id": 0})",
     "worker.json:1:17: workflow_id: 0 is out of range (1 to 9007199254740991)"},
    {which::worker, R"({"workflow_id": 1.5})",
     "worker.json:1:17: workflow_id: 1.5 is not an integer"},
    {which::worker, R"({"workflow_id": 18446744073709551615})",
     "worker.json:1:17: workflow_id: 18446744073709551615 is out of range (1 to 9007199254740991)"},
    {which::worker, R"({"workflow_id": Infinity})",
     "worker.json:1:17: workflow_id: Infinity is not an integer"},
    {which::worker, R"({"mode": "fast"})",
     "worker.json:1:10: mode: \"fast\" is not one of auto, direct, slurm"},
    {which::worker, R"({"mode": "AUTO"})",
     "worker.json:1:10: mode: \"AUTO\" is not one of auto, direct, slurm"},
    {which::worker, R"({"mode": null})",
     "worker.json:1:10: mode: expected a string, found null"},
    {which::worker, R"({"mode": 1})",
     "worker.json:1:10: mode: expected a string, found an integer"},
    {which::worker, R"({"output_dir": ""})",
     "worker.json:1:16: output_dir: must not be empty"},
    {which::worker, R"({"output_dir": ["a"]})",
     "worker.json:1:16: output_dir: expected a string, found an array"},
    {which::worker, R"({"server": {"use_extensions": "yes"}})",
     "worker.json:1:31: server.use_extensions: \"yes\" is not one of auto, true, false"},
    {which::worker, R"({"server": {"use_extensions": 1}})",
     "worker.json:1:31: server.use_extensions: expected a string, found an integer"},
    {which::worker, R"({"server": {"url": "ftp://h/x"}})",
     "worker.json:1:20: server.url: \"ftp://h/x\" is not an http or https URL"
     "; expected http://host:port/torc-service/v1"},
    {which::worker, R"({"server": {"url": "http//h/x"}})",
     "worker.json:1:20: server.url: \"http//h/x\" is not a valid URL"
     "; expected http://host:port/torc-service/v1"},
    {which::worker, R"({"server": {"url": "http://h/a b"}})",
     "worker.json:1:20: server.url: \"http://h/a b\" is not a valid URL"
     "; expected http://host:port/torc-service/v1"},
    {which::worker, R"({"server": {"url": "http:///x"}})",
     "worker.json:1:20: server.url: \"http:///x\" has no host"
     "; expected http://host:port/torc-service/v1"},
    {which::worker, R"({"server": {"url": 8080}})",
     "worker.json:1:20: server.url: expected a URL, found an integer"},
    {which::worker, R"({"server": {"username": 5}})",
     "worker.json:1:25: server.username: expected a string or null, found an integer"},
    {which::worker, R"({"server": {"request_timeout_seconds": 0.5}})",
     "worker.json:1:40: server.request_timeout_seconds: 0.5 is out of range (1 to 3600)"},
    {which::worker, R"({"resources": {"memory": "1.5g"}})",
     "worker.json:1:26: resources.memory: \"1.5g\" is not an integer followed by an optional k, "
     "m, g or t"},
    {which::worker, R"({"resources": {"memory": -1}})",
     "worker.json:1:26: resources.memory: -1 is out of range (at least 1m)"},
    {which::worker, R"({"resources": {"memory": 1.5}})",
     "worker.json:1:26: resources.memory: 1.5 is not an integer"},
    {which::worker, R"({"resources": {"memory": "1k"}})",
     "worker.json:1:26: resources.memory: \"1k\" is out of range (at least 1m)"},
    {which::worker, R"({"resources": {"memory": true}})",
     "worker.json:1:26: resources.memory: expected a memory string or integer or null, found a "
     "boolean"},
    {which::worker, R"({"resources": {"cpus": 0}})",
     "worker.json:1:24: resources.cpus: 0 is out of range (1 to 1000000)"},
    {which::worker, R"({"resources": {"gpus": ["0", "0"]}})",
     "worker.json:1:30: resources.gpus[1]: \"0\" is listed twice"},
    {which::worker, R"({"resources": {"gpus": ["0,1"]}})",
     "worker.json:1:25: resources.gpus[0]: \"0,1\" is not a GPU id (commas and white space are "
     "not allowed)"},
    {which::worker, R"({"resources": {"gpus": [""]}})",
     "worker.json:1:25: resources.gpus[0]: must not be empty"},
    {which::worker, R"({"resources": {"gpus": [0]}})",
     "worker.json:1:25: resources.gpus[0]: expected a string, found an integer"},
    {which::worker, R"({"resources": {"gpus": 1025}})",
     "worker.json:1:24: resources.gpus: 1025 is out of range (0 to 1024)"},
    {which::worker, R"({"resources": {"gpus": "0,1"}})",
     "worker.json:1:24: resources.gpus: expected an array of strings or integer or null, found a "
     "string"},
    {which::worker, R"({"termination": {"signal": "SIGFOO"}})",
     "worker.json:1:28: termination.signal: \"SIGFOO\" is not a signal name or number (examples: "
     "SIGTERM, TERM, 15)"},
    {which::worker, R"({"termination": {"signal": 99}})",
     "worker.json:1:28: termination.signal: \"99\" is not a signal name or number (examples: "
     "SIGTERM, TERM, 15)"},
    {which::worker, R"({"termination": {"signal": 1.5}})",
     "worker.json:1:28: termination.signal: expected a signal name or number, found a number"},
    {which::worker, R"({"termination": {"grace_seconds": -5}})",
     "worker.json:1:35: termination.grace_seconds: -5 is out of range (0 to 3600)"},
    {which::worker, R"({"termination": {"end_time": "2025-01-01T00:00:00"}})",
     "worker.json:1:30: termination.end_time: \"2025-01-01T00:00:00\" is not an RFC 3339 "
     "date-time with a time zone (like 2025-06-30T17:00:00Z or 2025-06-30T12:00:00-05:00)"},
    {which::worker, R"({"termination": {"end_time": -1}})",
     "worker.json:1:30: termination.end_time: -1 is out of range (0 to 253402300799)"},
    {which::worker, R"({"termination": {"end_time": true}})",
     "worker.json:1:30: termination.end_time: expected a date-time string or number or null, "
     "found a boolean"},
    {which::worker, R"({"limits": {"runtime_factor": 0.5}})",
     "worker.json:1:31: limits.runtime_factor: 0.5 is out of range (1 to 1000)"},
    {which::worker, R"({"limits": {"enforce_memory": 1}})",
     "worker.json:1:31: limits.enforce_memory: expected a boolean, found an integer"},
    {which::worker, R"({"gpu": {"visibility_variables": ["A", "1X"]}})",
     "worker.json:1:40: gpu.visibility_variables[1]: \"1X\" is not a valid variable name"},
    {which::worker, R"({"gpu": {"visibility_variables": "CUDA_VISIBLE_DEVICES"}})",
     "worker.json:1:34: gpu.visibility_variables: expected an array of variable names, found a "
     "string"},
    {which::worker, R"({"gpu": {"device_order": ""}})",
     "worker.json:1:26: gpu.device_order: must not be empty"},
    {which::worker, R"({"environment": {"scrub_patterns": ["A*B"]}})",
     "worker.json:1:37: environment.scrub_patterns[0]: \"A*B\" is not a variable name or a "
     "prefix ending in '*'"},
    {which::worker, R"({"environment": {"keep_patterns": ["OK", "*"]}})",
     "worker.json:1:42: environment.keep_patterns[1]: \"*\" is not a variable name or a prefix "
     "ending in '*'"},
    {which::worker, R"({"environment": {"scrub": "no"}})",
     "worker.json:1:27: environment.scrub: expected a boolean, found a string"},
    {which::worker, R"({"environment": {"set": {"1A": "x"}}})",
     "worker.json:1:26: environment.set: \"1A\" is not a valid variable name"},
    {which::worker, R"({"environment": {"set": {"A": 1}}})",
     "worker.json:1:31: environment.set.A: expected a string, found an integer"},
    {which::worker, R"({"environment": {"set": []}})",
     "worker.json:1:25: environment.set: expected an object of strings, found an array"},
    {which::worker, R"({"srun": {"signal": "TERM@x"}})",
     "worker.json:1:21: srun.signal: \"TERM@x\" is not an srun signal ([R:|B:]SIGNAL[@SECONDS], "
     "like TERM@120)"},
    {which::worker, R"({"srun": {"signal": "TERM@70000"}})",
     "worker.json:1:21: srun.signal: \"TERM@70000\" is not an srun signal "
     "([R:|B:]SIGNAL[@SECONDS], like TERM@120)"},
    {which::worker, R"({"srun": {"signal": "X:TERM"}})",
     "worker.json:1:21: srun.signal: \"X:TERM\" is not an srun signal ([R:|B:]SIGNAL[@SECONDS], "
     "like TERM@120)"},
    {which::worker, R"({"srun": {"signal": "@120"}})",
     "worker.json:1:21: srun.signal: \"@120\" is not an srun signal ([R:|B:]SIGNAL[@SECONDS], "
     "like TERM@120)"},
    {which::worker, R"({"srun": {"extra_args": ["--x", 3]}})",
     "worker.json:1:33: srun.extra_args[1]: expected a string, found an integer"},
    {which::worker, R"({"log_level": "verbose"})",
     "worker.json:1:15: log_level: \"verbose\" is not one of error, warning, info, debug"},
    {which::worker, R"({"poll": {"interval_seconds": 1, "min_interval_seconds": 2}})",
     "worker.json:1:58: poll.min_interval_seconds: 2 is greater than poll.interval_seconds (1)"},
    {which::worker, R"({"server": {"request_timeout_seconds": 30}})",
     "worker.json:1:40: server.request_timeout_seconds: 30 must be greater than "
     "poll.long_poll_seconds (30)"},
    {which::worker, R"({"server": {"password_file": "p"}})",
     "worker.json:1:30: server.password_file: is set but server.username is not"},
    {which::worker, R"({"poll": {"interval_seconds": 0.1}})",
     "worker.json: poll.min_interval_seconds: 0.5 is greater than poll.interval_seconds (0.1)"},
    {which::worker, R"({"mode": "auto" "x": 1})",
     "worker.json:1:17: expected ',' or '}' after an object member, found a string"},
    {which::server, R"({"tls": {"certificate": "/c.pem"}})",
     "server.json:1:25: tls.certificate: is set but tls.key is not"},
    {which::server, R"({"tls": {"key": "/k.pem"}})",
     "server.json:1:17: tls.key: is set but tls.certificate is not"},
    {which::server, R"({"tls": {"handshake_timeout_seconds": 0}})",
     "server.json:1:39: tls.handshake_timeout_seconds: 0 is out of range (0.1 to 600)"},
    {which::server, R"({"port": 65536})",
     "server.json:1:10: port: 65536 is out of range (0 to 65535)"},
    {which::server, R"({"port": -1})",
     "server.json:1:10: port: -1 is out of range (0 to 65535)"},
    {which::server, R"({"port": "8080"})",
     "server.json:1:10: port: expected an integer, found a string"},
    {which::server, R"({"max_body_bytes": "2g"})",
     "server.json:1:20: max_body_bytes: \"2g\" is out of range (1k to 1g)"},
    {which::server, R"({"max_body_bytes": 100})",
     "server.json:1:20: max_body_bytes: 100 is out of range (1k to 1g)"},
    {which::server, R"({"max_connections": 0})",
     "server.json:1:21: max_connections: 0 is out of range (1 to 1000000)"},
    {which::server, R"({"max_connections": "many"})",
     "server.json:1:21: max_connections: expected an integer or null, found a string"},
    {which::server, R"({"lost_worker_jobs": "retry"})",
     "server.json:1:22: lost_worker_jobs: \"retry\" is not one of ready, failed"},
    {which::server, R"({"long_poll_max_seconds": 61})",
     "server.json:1:27: long_poll_max_seconds: 61 is out of range (0 to 60)"},
    {which::server, R"({"worker_lease_seconds": 1})",
     "server.json:1:26: worker_lease_seconds: 1 is out of range (5 to 86400)"},
    {which::server, R"({"host": ""})",
     "server.json:1:10: host: must not be empty"},
    {which::server, R"({"auth": {"htpasswd": "x"}})",
     "server.json:1:11: auth.htpasswd: unknown key (did you mean \"htpasswd_file\"?)"},
    {which::server, R"({"auth": "x"})",
     "server.json:1:10: auth: expected an object, found a string"},
    {which::server, R"({"databse": "x.db"})",
     "server.json:1:2: databse: unknown key (did you mean \"database\"?)"},
};

BOOST_DATA_TEST_CASE(file_errors_name_file_position_and_key, bdata::make(rejected), sample)
{
    BOOST_TEST(error_of(sample.config, sample.text) == sample.message);
}

BOOST_AUTO_TEST_CASE(all_errors_are_reported_in_file_order)
{
    auto const message = error_of(which::worker, R"({
  "moed": "auto",
  "poll": {"interval_seconds": 0, "long_poll_seconds": "x"},
  "mode": "fast"
})");
    BOOST_TEST(message
               == "worker.json:2:3: moed: unknown key (did you mean \"mode\"?)\n"
                  "worker.json:3:32: poll.interval_seconds: 0 is out of range (0.01 to 3600)\n"
                  "worker.json:3:56: poll.long_poll_seconds: expected a number, found a string\n"
                  "worker.json:4:11: mode: \"fast\" is not one of auto, direct, slurm");
}

BOOST_AUTO_TEST_SUITE_END()
