// Pieces shared by the route groups. Internal to src/server/io.
#pragma once

#include "torcrun/server/model_json.hpp"
#include "torcrun/server/query_params.hpp"
#include "torcrun/server/io/server_api.hpp"

#include <span>

namespace torcrun::io::detail {

// A list filter: the query parameter and the SQL term it binds to (one `?`).
struct filter_spec {
    api::param_spec param;
    std::string_view sql;
};

// 200 with the encoded row, or the error.
api::response reply(api_result<api::record> const& row, api::model_spec const& model);
api::response reply_list(api_result<page_rows> const& page, api::model_spec const& model,
                         api::paging const& paging);

// The required `workflow_id` query parameter of the per-workflow collections.
api_result<std::int64_t> workflow_param(api::request const& req, std::string_view what);

// Paging plus the filters present in the query; `workflow_id` becomes the first term when given.
api_result<list_query> build_query(api::request const& req, api::model_spec const& model,
                                   std::span<filter_spec const> filters,
                                   std::optional<std::int64_t> workflow_id, std::string_view what);

}  // namespace torcrun::io::detail
