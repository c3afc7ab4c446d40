// Job labels (torcrun extension, docs/TORC-COMPATIBILITY.md §5 "Job labels") and the access
// groups a workflow names at creation (0.23's WorkflowModel.access_groups): the two values a
// request carries for them, read and checked without the store.
#pragma once

#include "torcrun/server/api_error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::api {

constexpr std::size_t max_label_bytes = 128;

// The claim's `label` query parameter: absent = the claimant serves unlabelled jobs only; present
// = jobs with exactly that label only. Empty or longer than max_label_bytes: 400.
api_result<std::optional<std::string>> claim_label(std::optional<std::string> const& query,
                                                   std::string_view what);

// The names in a workflow body's `access_groups` (absent or null: none): each a non-empty
// string, given once; anything else 422 naming the field.
api_result<std::vector<std::string>> access_group_names(boost::json::value const& body,
                                                        std::string_view what);

}  // namespace torcrun::api
