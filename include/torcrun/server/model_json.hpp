// JSON <-> record for the model tables. Decoding validates a request body against a table and
// returns the record in storage form; encoding writes a record back in the wire form, leaving
// out NULL fields as Torc's serde models do (skip_serializing_if = "Option::is_none").
//
// Messages are `<what>: field "<name>": <problem>` (422) and `<what>: request body is not valid
// JSON: <parser message> at byte <n>` (400); `what` is the endpoint's resource name.
#pragma once

#include "torcrun/server/api_error.hpp"
#include "torcrun/server/model_schema.hpp"
#include "torcrun/server/record.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::api {

// create: defaults are applied to absent fields. update (PUT): absent optional fields are left
// out of the record, so the store keeps their stored values. Both require the required fields
// (the contract's PUT bodies are full models) and drop read-only ones.
enum class decode_mode { create, update };

api_result<record> decode_body(model_spec const& model, std::string_view body, decode_mode mode,
                               std::string_view what);

// `{"<key>": [object, ...]}` (POST /bulk_jobs); a message names the element, `jobs[3]`.
api_result<std::vector<record>> decode_batch(model_spec const& model, std::string_view body,
                                             std::string_view key, decode_mode mode,
                                             std::string_view what);

// The body of endpoints that take an ignored optional object: empty, `null` or any JSON object
// is accepted (Torc's clients send `null`); anything else is 400 or 422.
api_result<void> check_optional_body(std::string_view body, std::string_view what);

struct list_envelope {
    std::int64_t offset = 0;
    std::int64_t max_limit = 0;
    std::int64_t total_count = 0;
};

std::string encode(model_spec const& model, record const& row);
// {items, offset, max_limit, count, total_count, has_more}
std::string encode_list(model_spec const& model, std::span<record const> rows,
                        list_envelope const& page);
// {"<key>": [...]}, e.g. create_jobs_response
std::string encode_wrapped(model_spec const& model, std::span<record const> rows,
                           std::string_view key);
std::string encode_array(model_spec const& model, std::span<record const> rows);

// A JSON string literal with the escapes JSON requires; a byte that is not part of well-formed
// UTF-8 (a request target may hold any) becomes U+FFFD, so the answer stays valid JSON.
std::string json_quote(std::string_view text);
// [1,2,3]
std::string json_ids(std::span<std::int64_t const> ids);

}  // namespace torcrun::api
