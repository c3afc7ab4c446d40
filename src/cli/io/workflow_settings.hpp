// What a worker takes from its workflow's record before it starts (GET /workflows/{id}): the
// execution_config, combined with the worker's configuration by core::apply_execution_config
// (default < workflow < file < command line), and the workflow's `env`. `torcrun worker`,
// `torcrun run` and `torcrun config worker --workflow` read it the same way.
#pragma once

#include "torcrun/common/env_map.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/config/execution_config_merge.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>

namespace torcrun::apps {

class torc_client;

struct workflow_settings {
    core::sourced_worker_config config;  // the effective configuration and each key's source
    boost::json::object execution_config;  // as an object (a string form already parsed)
    core::env_map env;                     // the workflow's `env`
    std::optional<double> sample_interval_seconds;  // resource_monitor_config, jobs on
    std::optional<core::node_monitor_settings> node_monitor;  // compute_node enabled
};

// The record of workflow `workflow_id` (GET /workflows/{id}). Through `client` once; through a
// client made from the configuration's server settings, retrying a server that cannot be
// reached (pauses of 1, 2, 4 ... 30 s) for server.retry_window_seconds. Errors: `GET /workflows/9: HTTP 404:
// ...` or the transport's message.
core::result<boost::json::value> read_workflow_record(torc_client& client,
                                                      std::int64_t workflow_id);
core::result<boost::json::value> read_workflow_record(core::worker_config const& config);

// The record's execution_config combined with `base` (its workflow_id set), its env and the
// job sampling interval of its resource_monitor_config (core::job_sample_interval). Errors
// name the key: `workflow 9 execution_config.mode: ...`, `workflow 9 env: the value of "X" is
// an integer, not a string`.
core::result<workflow_settings> workflow_settings_of(boost::json::value const& record,
                                                     core::sourced_worker_config base);

}  // namespace torcrun::apps
