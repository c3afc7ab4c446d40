// Strict JSON parsing of request bodies (as serde_json: no comments, no trailing commas; depth up
// to 128), with the error offset in the message. Internal to src/api.
#pragma once

#include "torcrun/api/api_error.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace torcrun::api::detail {

// 400 `<what>: request body is not valid JSON: <reason> at byte <n>`, or `... is empty`.
api_result<boost::json::value> parse_json(std::string_view text, std::string_view what);

// "null", "a boolean", "an integer", "a number", "a string", "an array", "an object".
std::string_view describe(boost::json::value const& v);

std::string quoted(std::string_view text);

}  // namespace torcrun::api::detail
