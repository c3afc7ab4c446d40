// A spec file into a workflow on a server, shared by `torcrun submit` and `torcrun run`: the
// spec read and planned (errors carry file:line:col), then Torc's `workflows create` calls
// (api::submission) sent one by one, and the half-made workflow deleted again when one fails.
#pragma once

#include "torc_client.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/spec/creation_plan.hpp"
#include "torcrun/spec/submission.hpp"

#include <cstdint>
#include <string>

namespace torcrun::apps {

// $USER, else $USERNAME, else "unknown": the spec's user, as Torc's client takes it.
std::string current_user();

struct spec_options {
    bool resource_monitoring = true;  // Torc's default resource monitor
    bool skip_checks = false;         // Torc's --skip-checks
};

// The spec's text read, parsed and planned; the first problem otherwise.
core::result<core::spec::creation_plan> plan_spec_file(std::string const& path,
                                                        spec_options const& options);

// Creates (and with `initialize`, initializes) the workflow and returns its id. On a failure the
// message is one line per problem: the failed call, then `deleted workflow N` or why the delete
// failed too.
// `scheduler_ids`, when given, receives the ids of the plan's Slurm schedulers by name. `server`
// shapes the bodies and picks streamed creation (api::submission): `torcrun submit` and
// `torcrun run` read it from the server first; the default is v0.10's shapes.
core::result<std::int64_t> submit_plan(torc_client& client, core::spec::creation_plan plan,
                                       bool initialize, api::name_ids* scheduler_ids = nullptr,
                                       api::server_dialect const& server = {});

}  // namespace torcrun::apps
