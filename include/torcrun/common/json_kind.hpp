// How messages name a JSON value's kind ("found a string"), shared by the server's request
// decoding and the worker's reading of server replies.
#pragma once

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace torcrun::api::detail {

// "null", "a boolean", "an integer", "a number", "a string", "an array", "an object".
std::string_view describe(boost::json::value const& v);

std::string quoted(std::string_view text);

}  // namespace torcrun::api::detail
