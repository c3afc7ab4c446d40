// Reading newer Torc's `execution_config` and `stdio` entries (private to src/spec): the typed
// values of execution_config_spec.hpp, through the strict field reader.
#pragma once

#include "field_reader.hpp"
#include "torcrun/spec/execution_config_spec.hpp"

#include <optional>
#include <string_view>

namespace torcrun::core::spec::detail {

// The `stdio` member of `parent` (a job or the execution_config entry), or nullopt.
std::optional<stdio_spec> read_stdio(field_reader& parent, std::string_view key);

// The workflow's `execution_config`, or nullopt when absent.
std::optional<execution_config_spec> read_execution_config(field_reader& workflow);

}  // namespace torcrun::core::spec::detail
