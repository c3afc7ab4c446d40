// Parsing of list query parameters; see query_params.hpp for the rules.
#include "torcrun/server/query_params.hpp"

#include <charconv>

namespace torcrun::api {
namespace {

std::string quoted(std::string_view s) { return '"' + std::string(s) + '"'; }

api_error bad_param(std::string_view what, std::string_view name, std::string const& detail)
{
    return bad_request(std::string(what) + ": query parameter \"" + std::string(name) +
                       "\": " + detail);
}

// The single value of `name`, nullopt when absent.
api_result<std::optional<std::string>> single(request const& req, std::string_view name,
                                              std::string_view what)
{
    auto const [first, last] = req.query.equal_range(std::string(name));
    if (first == last) return std::optional<std::string>{};
    if (std::next(first) != last) return bad_param(what, name, "given more than once");
    return std::optional<std::string>{first->second};
}

std::optional<std::int64_t> to_int64(std::string_view text)
{
    std::int64_t value = 0;
    auto const* end = text.data() + text.size();
    auto const r = std::from_chars(text.data(), end, value);
    if (text.empty() || r.ec != std::errc{} || r.ptr != end) return std::nullopt;
    return value;
}

bool is_sortable(field_spec const& f)
{
    return f.storage != field_storage::link && f.kind != field_kind::ids &&
           f.kind != field_kind::json_object && f.kind != field_kind::json_any &&
           f.kind != field_kind::json_document && f.kind != field_kind::string_or_object &&
           f.kind != field_kind::env_map;
}

}  // namespace

api_result<std::optional<cell>> query_value(request const& req, param_spec const& param,
                                            std::string_view what)
{
    auto text = single(req, param.name, what);
    if (!text) return text.error();
    if (!*text) {
        if (param.required) return bad_param(what, param.name, "required parameter is missing");
        return std::optional<cell>{};
    }
    auto const& value = **text;
    switch (param.kind) {
    case param_kind::integer:
        if (auto i = to_int64(value)) return std::optional<cell>{*i};
        return bad_param(what, param.name, quoted(value) + " is not an integer");
    case param_kind::boolean:
        if (value == "true") return std::optional<cell>{std::int64_t{1}};
        if (value == "false") return std::optional<cell>{std::int64_t{0}};
        return bad_param(what, param.name, quoted(value) + " is not true or false");
    case param_kind::job_status:
        if (auto code = job_status_code(value)) return std::optional<cell>{*code};
        return bad_param(what, param.name, quoted(value) + " is not a job status");
    case param_kind::string:
        return std::optional<cell>{value};
    }
    return std::optional<cell>{};
}

api_result<paging> parse_paging(request const& req, model_spec const& model, std::string_view what)
{
    paging page;
    auto offset = query_value(req, {"offset", param_kind::integer}, what);
    if (!offset) return offset.error();
    if (*offset) page.offset = std::get<std::int64_t>(**offset);
    if (page.offset < 0) return bad_param(what, "offset", "must not be negative");

    auto limit = query_value(req, {"limit", param_kind::integer}, what);
    if (!limit) return limit.error();
    if (*limit) page.limit = std::min(std::get<std::int64_t>(**limit), max_page_size);
    if (page.limit < 0) return bad_param(what, "limit", "must not be negative");

    auto reverse = query_value(req, {"reverse_sort", param_kind::boolean}, what);
    if (!reverse) return reverse.error();
    page.reverse_sort = *reverse && std::get<std::int64_t>(**reverse) != 0;

    auto sort = single(req, "sort_by", what);
    if (!sort) return sort.error();
    if (*sort && !(*sort)->empty()) {
        auto const* f = model.find(**sort);
        if (f == nullptr || !is_sortable(*f)) {
            return bad_param(what, "sort_by",
                             quoted(**sort) + " is not a sortable field of " +
                                 std::string(model.name));
        }
        page.sort_by = **sort;
    }
    return page;
}

}  // namespace torcrun::api
