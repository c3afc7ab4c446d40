// Strict JSON parsing of request bodies (as serde_json: no comments, no trailing commas; depth up
// to 128), with the error offset in the message. Internal to src/server: defined in
// model_decode.cpp, also used by model_tables.cpp.
#pragma once

#include "torcrun/common/json_kind.hpp"
#include "torcrun/server/api_error.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace torcrun::api::detail {

// 400 `<what>: request body is not valid JSON: <reason> at byte <n>`, or `... is empty`.
// The values live in `storage` (default: the heap; an arena for a value read once and dropped).
api_result<boost::json::value> parse_json(std::string_view text, std::string_view what,
                                          boost::json::storage_ptr storage = {});

}  // namespace torcrun::api::detail
