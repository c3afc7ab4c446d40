// Query parameters of the list endpoints: paging (`offset`, `limit`, `sort_by`,
// `reverse_sort`) and typed filters. Values are parsed as Torc's generated server parses them
// (integers in decimal, booleans `true`/`false`); a bad value, or a scalar given twice, is 400.
// Unknown parameters are ignored, as Torc does.
#pragma once

#include "torcrun/server/api_error.hpp"
#include "torcrun/server/http_types.hpp"
#include "torcrun/server/model_schema.hpp"
#include "torcrun/server/record.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::api {

enum class param_kind : std::uint8_t { integer, boolean, string, job_status };

struct param_spec {
    std::string_view name;
    param_kind kind = param_kind::integer;
    bool required = false;
};

// A filter's value in storage form (booleans 0/1, statuses as codes); nullopt when absent.
api_result<std::optional<cell>> query_value(request const& req, param_spec const& param,
                                            std::string_view what);

// Torc's MAX_RECORD_TRANSFER_COUNT: the largest page, sent as `max_limit`.
inline constexpr std::int64_t max_page_size = 10000;

struct paging {
    std::int64_t offset = 0;
    std::int64_t limit = max_page_size;
    std::optional<std::string> sort_by;  // a sortable column of the model
    bool reverse_sort = false;

    bool operator==(paging const&) const = default;
};

// A limit above max_page_size is lowered to it (the contract's own default, 100000, is above
// it); negative offsets and limits are 400. sort_by must name a scalar column of `model`.
api_result<paging> parse_paging(request const& req, model_spec const& model, std::string_view what);

}  // namespace torcrun::api
