// Request bodies -> records, field by field against a model table. Every problem names the field
// and what was found; the first problem wins, so a message is stable for a given body.
#include "torcrun/server/model_json.hpp"

#include "json_parse.hpp"
#include "torcrun/common/env_map.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/stream_parser.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace torcrun::api {
namespace detail {

api_result<boost::json::value> parse_json(std::string_view text, std::string_view what,
                                          boost::json::storage_ptr storage)
{
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        return bad_request(std::string(what) + ": request body is empty");
    }
    boost::json::parse_options options;
    options.max_depth = 128;
    // The parser's working stack starts in this buffer: a request body of a few hundred bytes
    // parses without allocating anything but its values.
    unsigned char temporary[4096];
    boost::json::stream_parser parser(std::move(storage), options, temporary);
    boost::system::error_code ec;
    auto const consumed = parser.write(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (ec) {
        return bad_request(std::string(what) + ": request body is not valid JSON: " + ec.message() +
                           " at byte " + std::to_string(consumed));
    }
    return parser.release();
}


}  // namespace detail

namespace {

using detail::describe;
using detail::quoted;

std::string_view expected(field_kind kind)
{
    switch (kind) {
    case field_kind::integer:
        return "an integer";
    case field_kind::number:
        return "a number";
    case field_kind::boolean:
        return "a boolean";
    case field_kind::json_object:
    case field_kind::env_map:
        return "an object";
    case field_kind::json_any:
        return "a JSON value";
    case field_kind::json_config:
        return "a JSON string or an object";
    case field_kind::json_document:
        return "an object or a string holding one";
    case field_kind::string_or_object:
        return "a string or an object";
    case field_kind::ids:
        return "an array of integers";
    case field_kind::string:
    case field_kind::json_text:
    case field_kind::job_status:
        return "a string";
    }
    return "a value";
}

std::optional<std::int64_t> as_int64(boost::json::value const& v)
{
    if (v.is_int64()) return v.get_int64();
    if (v.is_uint64() && v.get_uint64() <= std::numeric_limits<std::int64_t>::max()) {
        return static_cast<std::int64_t>(v.get_uint64());
    }
    return std::nullopt;
}

std::string found(boost::json::value const& v)
{
    if (v.is_uint64() && !as_int64(v)) return "an integer out of range";
    if (v.is_double() && !std::isfinite(v.get_double())) return "a number out of range";
    return std::string(describe(v));
}

api_error field_error(std::string_view what, field_spec const& f, std::string const& detail)
{
    return unprocessable(std::string(what) + ": field \"" + std::string(f.name) + "\": " + detail);
}

api_error wrong_type(std::string_view what, field_spec const& f, boost::json::value const& v)
{
    return field_error(what, f,
                       "expected " + std::string(expected(f.kind)) + ", found " + found(v));
}

api_result<cell> decode_string(field_spec const& f, boost::json::value const& v,
                               std::string_view what)
{
    if (!v.is_string()) return wrong_type(what, f, v);
    std::string text(v.get_string());
    if (f.kind == field_kind::job_status) {
        if (auto code = job_status_code(text)) return cell{*code};
        return field_error(what, f,
                           quoted(text) + " is not a job status (" +
                               std::string(job_status_list()) + ")");
    }
    if (f.kind == field_kind::json_text) {
        boost::system::error_code ec;
        boost::json::parse(text, ec);
        if (ec) return field_error(what, f, quoted(text) + " is not valid JSON");
    }
    if (!f.choices.empty() &&
        std::find(f.choices.begin(), f.choices.end(), text) == f.choices.end()) {
        std::string list;
        for (auto c : f.choices) list += (list.empty() ? "" : ", ") + std::string(c);
        return field_error(what, f, quoted(text) + " is not one of " + list);
    }
    return cell{std::move(text)};
}

api_result<cell> decode_integer(field_spec const& f, boost::json::value const& v,
                                std::string_view what)
{
    auto i = as_int64(v);
    if (!i) return wrong_type(what, f, v);
    if (f.minimum && *i < *f.minimum) {
        return field_error(what, f,
                           std::to_string(*i) + " is less than the minimum " +
                               std::to_string(*f.minimum));
    }
    return cell{*i};
}

api_result<cell> decode_ids(field_spec const& f, boost::json::value const& v, std::string_view what)
{
    if (!v.is_array()) return wrong_type(what, f, v);
    id_list ids;
    auto const& array = v.get_array();
    for (std::size_t i = 0; i < array.size(); ++i) {
        auto id = as_int64(array[i]);
        if (!id) {
            return field_error(what, f,
                               "element " + std::to_string(i) + ": expected an integer, found " +
                                   found(array[i]));
        }
        ids.push_back(*id);
    }
    return cell{std::move(ids)};
}

api_result<cell> decode_env(field_spec const& f, boost::json::value const& v,
                            std::string_view what)
{
    if (!v.is_object()) return wrong_type(what, f, v);
    for (auto const& kv : v.get_object()) {
        if (!core::is_env_name(kv.key())) {
            return field_error(what, f,
                               quoted(kv.key()) +
                                   " is not a valid environment variable name "
                                   "([A-Za-z_][A-Za-z0-9_]*)");
        }
        if (!kv.value().is_string()) {
            return field_error(what, f,
                               "value of " + quoted(kv.key()) + ": expected a string, found " +
                                   found(kv.value()));
        }
    }
    return cell{boost::json::serialize(v)};
}

// A configuration field (json_config, json_document): an object, or a string whose text is JSON
// (json_document: an object). The value's own JSON text is stored, so the answer has the form
// the client sent: a string literal for the string form, the object for the object form.
api_result<cell> decode_config(field_spec const& f, boost::json::value const& v,
                               std::string_view what)
{
    if (v.is_object()) return cell{boost::json::serialize(v)};
    if (!v.is_string()) return wrong_type(what, f, v);
    boost::system::error_code ec;
    auto const inner = boost::json::parse(v.get_string(), ec);
    if (ec) return field_error(what, f, quoted(std::string(v.get_string())) + " is not valid JSON");
    if (f.kind == field_kind::json_document && !inner.is_object()) {
        return field_error(what, f,
                           "the string must hold a JSON object, found " + found(inner));
    }
    return cell{boost::json::serialize(v)};
}

api_result<cell> decode_value(field_spec const& f, boost::json::value const& v,
                              std::string_view what)
{
    switch (f.kind) {
    case field_kind::integer:
        return decode_integer(f, v, what);
    case field_kind::number:
        if (!v.is_number() || (v.is_double() && !std::isfinite(v.get_double()))) {
            return wrong_type(what, f, v);
        }
        return cell{v.to_number<double>()};
    case field_kind::boolean:
        if (!v.is_bool()) return wrong_type(what, f, v);
        return cell{std::int64_t{v.get_bool() ? 1 : 0}};
    case field_kind::json_object:
        if (!v.is_object()) return wrong_type(what, f, v);
        return cell{boost::json::serialize(v)};
    case field_kind::json_any:
        return cell{boost::json::serialize(v)};
    case field_kind::json_config:
    case field_kind::json_document:
        return decode_config(f, v, what);
    case field_kind::string_or_object:
        if (!v.is_string() && !v.is_object()) return wrong_type(what, f, v);
        return cell{boost::json::serialize(v)};
    case field_kind::env_map:
        return decode_env(f, v, what);
    case field_kind::ids:
        return decode_ids(f, v, what);
    case field_kind::string:
    case field_kind::json_text:
    case field_kind::job_status:
        return decode_string(f, v, what);
    }
    return wrong_type(what, f, v);
}

cell default_cell(field_spec const& f)
{
    auto const text = *f.default_value;
    switch (f.kind) {
    case field_kind::integer:
        return std::int64_t{std::stoll(std::string(text))};
    case field_kind::number:
        return std::stod(std::string(text));
    case field_kind::boolean:
        return std::int64_t{text == "true" ? 1 : 0};
    default:
        return std::string(text);
    }
}

api_result<record> decode_object(model_spec const& model, boost::json::value const& body,
                                 decode_mode mode, std::string_view what)
{
    if (!body.is_object()) {
        return unprocessable(std::string(what) + ": request body: expected an object, found " +
                             std::string(describe(body)));
    }
    auto const& object = body.get_object();
    record out;
    for (auto const& f : model.fields) {
        auto const* v = object.if_contains(f.name);
        if (v == nullptr || v->is_null()) {
            if (f.required && v == nullptr)
                return field_error(what, f, "required field is missing");
            if (f.required) return wrong_type(what, f, *v);
            if (mode == decode_mode::create && f.default_value) out.set(f.name, default_cell(f));
            continue;
        }
        auto value = decode_value(f, *v, what);
        if (!value) return value.error();
        if (!f.read_only) out.set(f.name, std::move(*value));
    }
    if (model.finish != nullptr) {
        if (auto done = model.finish(out, what); !done) return done.error();
    }
    return out;
}

}  // namespace

api_result<record> decode_body(model_spec const& model, std::string_view body, decode_mode mode,
                               std::string_view what)
{
    auto json = detail::parse_json(body, what);
    if (!json) return json.error();
    return decode_object(model, *json, mode, what);
}

api_result<std::vector<record>> decode_batch(model_spec const& model, std::string_view body,
                                             std::string_view key, decode_mode mode,
                                             std::string_view what)
{
    auto json = detail::parse_json(body, what);
    if (!json) return json.error();
    auto const prefix = std::string(what) + ": ";
    if (!json->is_object()) {
        return unprocessable(prefix + "request body: expected an object, found " +
                             std::string(describe(*json)));
    }
    auto const* items = json->get_object().if_contains(key);
    auto const field = "field \"" + std::string(key) + "\": ";
    if (items == nullptr) return unprocessable(prefix + field + "required field is missing");
    if (!items->is_array()) {
        return unprocessable(prefix + field + "expected an array, found " + found(*items));
    }
    std::vector<record> out;
    out.reserve(items->get_array().size());
    for (std::size_t i = 0; i < items->get_array().size(); ++i) {
        auto const element = prefix + std::string(key) + "[" + std::to_string(i) + "]";
        auto row = decode_object(model, items->get_array()[i], mode, element);
        if (!row) return row.error();
        out.push_back(std::move(*row));
    }
    return out;
}

api_result<void> check_optional_body(std::string_view body, std::string_view what)
{
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return {};
    auto json = detail::parse_json(body, what);
    if (!json) return json.error();
    if (json->is_null() || json->is_object()) return {};
    return unprocessable(std::string(what) + ": request body: expected an object or null, found " +
                         std::string(describe(*json)));
}

}  // namespace torcrun::api
