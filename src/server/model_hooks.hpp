// Model-level checks that span fields or derive stored values; wired into the tables of
// model_tables.cpp. Internal to src/server.
#pragma once

#include "torcrun/server/model_schema.hpp"

namespace torcrun::api::detail {

// memory -> memory_bytes and runtime -> runtime_s (whole seconds, rounded up) for claims.
api_result<void> finish_resource_requirements(record& fields, std::string_view what);

// action_config rules of Torc's server per action_type; required_triggers from the trigger.
api_result<void> finish_workflow_action(record& fields, std::string_view what);

}  // namespace torcrun::api::detail
