// What a client shows of a refused request: Torc's server and torcrun's put the message in
// different places, and a proxy in between may answer with plain text.
#pragma once

#include <string>
#include <string_view>

namespace torcrun::api {

// The `message` of a Torc error body (`{"message": M}` or `{"error": {"message": M}}`), or the
// body itself when it has neither (trimmed, at most 300 characters).
std::string server_message(std::string_view body);

}  // namespace torcrun::api
