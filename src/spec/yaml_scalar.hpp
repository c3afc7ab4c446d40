// How serde_yaml 0.9 types a YAML scalar when Torc reads a spec into a serde_json value (private to
// src/spec; docs/TORC-COMPATIBILITY.md §4.1). Plain scalars are resolved by serde_yaml's own rules,
// not yaml-cpp's: only `~`, `null` and the empty scalar are null, only `true` and `false` are
// booleans, `0123` is a string, and `.inf`/`.nan` become null because a serde_json value cannot
// hold them.
#pragma once

#include "torcrun/common/error.hpp"

#include <boost/json/value.hpp>

#include <string_view>

namespace torcrun::core::spec::detail {

// `tag` as yaml-cpp reports it: "?" for a plain scalar, "!" for a quoted or block scalar,
// or the full tag ("tag:yaml.org,2002:int" for `!!int`). An error message has no position;
// the caller adds it.
result<boost::json::value> yaml_scalar_value(std::string_view tag, std::string_view text);

}  // namespace torcrun::core::spec::detail
