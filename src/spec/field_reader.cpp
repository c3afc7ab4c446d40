// The strict field reader behind parse_spec (docs/TORC-COMPATIBILITY.md §4.1) and its messages: how
// an entry is called, and the known field a misspelt key most likely meant.
#include "field_reader.hpp"

#include "json_text.hpp"
#include "message_text.hpp"

#include "torcrun/common/edit_distance.hpp"
#include "torcrun/common/env_map.hpp"

#include <algorithm>
#include <cmath>

namespace torcrun::core::spec::detail {

namespace {

std::string integer_range(std::int64_t min, std::int64_t max)
{
    return concat({"an integer from ", std::to_string(min), " to ", std::to_string(max)});
}

}  // namespace

void parse_state::fail(std::string_view pointer, bool at_key, std::string_view context,
                       std::string_view detail)
{
    if (first) return;
    first = error{concat({document.location(pointer, at_key), ": ", context, ": ", detail})};
}

bool is_absent(boost::json::value const* value) noexcept
{
    return value == nullptr || value->is_null()
           || (value->is_double() && !std::isfinite(value->get_double()));
}

boost::json::value normalized(boost::json::value const& value)
{
    if (is_absent(&value)) return nullptr;
    if (value.is_array()) {
        boost::json::array out;
        for (auto const& element : value.get_array()) out.push_back(normalized(element));
        return out;
    }
    if (value.is_object()) {
        boost::json::object out;
        for (auto const& member : value.get_object())
            out.insert_or_assign(member.key(), normalized(member.value()));
        return out;
    }
    return value;
}

field_reader::field_reader(parse_state& state, boost::json::value const& value, std::string pointer,
                           std::string context)
    : state_(state), value_(value), pointer_(std::move(pointer)), context_(std::move(context))
{
}

bool field_reader::begin_any()
{
    if (!value_.is_object()) {
        state_.fail(pointer_, false, context_,
                    concat({"must be an object, found ", describe_value(value_)}));
        return false;
    }
    object_ = &value_.get_object();
    return true;
}

bool field_reader::begin(spec_object_kind kind)
{
    if (!begin_any()) return false;
    auto const& object = spec_object_of(kind);
    if (object.others != other_keys::refused) return state_.ok();
    for (auto const& member : *object_) {
        std::string_view const key = member.key();
        if (object.find(key)) continue;
        std::string detail = concat({"field ", quoted(key), " is unknown"});
        if (auto const near = closest_name(key, object.keys); !near.empty())
            detail.append(concat({" (did you mean ", quoted(near), "?)"}));
        fail(key, detail, true);
        return false;
    }
    return state_.ok();
}

boost::json::value const* field_reader::get(std::string_view key) const
{
    if (!object_) return nullptr;
    auto const* value = object_->if_contains(key);
    return is_absent(value) ? nullptr : value;
}

std::string field_reader::member_pointer(std::string_view key) const
{
    return json_pointer_append(pointer_, key);
}

void field_reader::fail(std::string_view key, std::string_view detail, bool at_key)
{
    std::string const pointer = key.empty() ? pointer_ : member_pointer(key);
    state_.fail(pointer, at_key, context_, detail);
}

void field_reader::type_error(std::string_view key, std::string_view expected,
                              boost::json::value const& found)
{
    fail(key,
         concat({"field ", quoted(key), " must be ", expected, ", found ", describe_value(found)}));
}

std::string field_reader::string(std::string_view key)
{
    auto const* value = get(key);
    if (!value) {
        fail("", concat({"field ", quoted(key), " is required"}));
        return {};
    }
    if (!value->is_string()) {
        type_error(key, "a string", *value);
        return {};
    }
    return std::string(value->get_string());
}

std::optional<std::string> field_reader::optional_string(std::string_view key)
{
    if (!get(key)) return std::nullopt;
    return string(key);
}

std::string field_reader::string_or(std::string_view key, std::string fallback)
{
    return get(key) ? string(key) : std::move(fallback);
}

bool field_reader::boolean(std::string_view key, bool fallback)
{
    return optional_boolean(key).value_or(fallback);
}

std::optional<bool> field_reader::optional_boolean(std::string_view key)
{
    auto const* value = get(key);
    if (!value) return std::nullopt;
    if (!value->is_bool()) {
        type_error(key, "true or false", *value);
        return std::nullopt;
    }
    return value->get_bool();
}

std::optional<std::int64_t> field_reader::to_integer(std::string_view key,
                                                     boost::json::value const& v, std::int64_t min,
                                                     std::int64_t max)
{
    if (v.is_int64() && v.get_int64() >= min && v.get_int64() <= max) return v.get_int64();
    type_error(key, integer_range(min, max), v);
    return std::nullopt;
}

std::int64_t field_reader::integer(std::string_view key, std::int64_t min, std::int64_t max)
{
    auto const* value = get(key);
    if (!value) {
        fail("", concat({"field ", quoted(key), " is required"}));
        return min;
    }
    return to_integer(key, *value, min, max).value_or(min);
}

std::int64_t field_reader::integer_or(std::string_view key, std::int64_t fallback, std::int64_t min,
                                      std::int64_t max)
{
    return optional_integer(key, min, max).value_or(fallback);
}

std::optional<std::int64_t> field_reader::optional_integer(std::string_view key, std::int64_t min,
                                                           std::int64_t max)
{
    auto const* value = get(key);
    if (!value) return std::nullopt;
    return to_integer(key, *value, min, max);
}

std::vector<std::string> field_reader::strings(std::string_view key)
{
    return optional_strings(key).value_or(std::vector<std::string>{});
}

std::optional<std::vector<std::string>> field_reader::optional_strings(std::string_view key)
{
    auto const* array = list(key);
    if (!array) return std::nullopt;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < array->size(); ++i) {
        auto const& element = (*array)[i];
        if (!element.is_string()) {
            state_.fail(json_pointer_append(member_pointer(key), i), false, context_,
                        concat({"field ", quoted(key), " must be a list of strings, found ",
                                describe_value(element), " at index ", std::to_string(i)}));
            return std::nullopt;
        }
        out.emplace_back(element.get_string());
    }
    return out;
}

std::vector<std::int32_t> field_reader::int32s(std::string_view key)
{
    auto const* array = list(key);
    if (!array) return {};
    std::vector<std::int32_t> out;
    for (std::size_t i = 0; i < array->size(); ++i) {
        auto const& e = (*array)[i];
        if (!e.is_int64() || e.get_int64() < -int32_max - 1 || e.get_int64() > int32_max) {
            state_.fail(json_pointer_append(member_pointer(key), i), false, context_,
                        concat({"field ", quoted(key),
                                " must be a list of integers from -2147483648 to 2147483647, "
                                "found ",
                                describe_value(e), " at index ", std::to_string(i)}));
            return {};
        }
        out.push_back(static_cast<std::int32_t>(e.get_int64()));
    }
    return out;
}

std::optional<raw_parameters> field_reader::parameters(std::string_view key)
{
    auto const* value = get(key);
    if (!value) return std::nullopt;
    if (!value->is_object()) {
        type_error(key,
                   "an object of parameter values such as \"1:10\", \"[1,2]\" or a list [1, 2]",
                   *value);
        return std::nullopt;
    }
    raw_parameters out;
    for (auto const& member : value->get_object()) {
        // Newer Torc's deserialize_parameter_map: a string is the value text; anything else (a
        // native list, a number, a boolean, null) becomes its serde_json text, read by the same
        // grammar: [a, b] is "[\"a\",\"b\"]", which is the list a, b.
        out.emplace_back(member.key(), member.value().is_string()
                                           ? std::string(member.value().get_string())
                                           : compact_json(normalized(member.value())));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> field_reader::env(std::string_view key)
{
    std::vector<std::pair<std::string, std::string>> out;
    auto const* variables = object(key);
    if (!variables) return out;
    for (auto const& member : *variables) {
        auto const pointer = json_pointer_append(member_pointer(key), member.key());
        if (!is_env_name(member.key())) {
            state_.fail(pointer, true, context_,
                        concat({"field ", quoted(key), ": ", quoted(member.key()),
                                " is not a valid environment variable name "
                                "([A-Za-z_][A-Za-z0-9_]*)"}));
            return {};
        }
        if (is_absent(&member.value()) || !member.value().is_string()) {
            state_.fail(pointer, false, context_,
                        concat({"field ", quoted(key), ": the value of ", quoted(member.key()),
                                " must be a string, found ", describe_value(member.value())}));
            return {};
        }
        out.emplace_back(member.key(), member.value().get_string());
    }
    return out;
}

std::optional<std::size_t> field_reader::choice(std::string_view key,
                                                std::initializer_list<std::string_view> choices)
{
    auto const text = optional_string(key);
    if (!text) return std::nullopt;
    std::string list;
    std::size_t index = 0;
    for (auto const c : choices) {
        if (*text == c) return index;
        list.append(concat({index == 0 ? "" : ", ", quoted(c)}));
        ++index;
    }
    fail(key, concat({"field ", quoted(key), " must be one of ", list, ", found ", quoted(*text)}));
    return std::nullopt;
}

boost::json::array const* field_reader::list(std::string_view key)
{
    auto const* value = get(key);
    if (!value) return nullptr;
    if (!value->is_array()) {
        type_error(key, "a list", *value);
        return nullptr;
    }
    return &value->get_array();
}

boost::json::object const* field_reader::object(std::string_view key)
{
    auto const* value = get(key);
    if (!value) return nullptr;
    if (!value->is_object()) {
        type_error(key, "an object", *value);
        return nullptr;
    }
    return &value->get_object();
}

std::string entry_context(std::string_view list, std::size_t index, boost::json::value const& entry)
{
    std::string out = concat({list, "[", std::to_string(index), "]"});
    if (auto const* object = entry.if_object()) {
        if (auto const* name = object->if_contains("name"); name && name->is_string())
            out.append(concat({" ", quoted(name->get_string())}));
    }
    return out;
}

std::string_view closest_name(std::string_view key, std::span<spec_key const> known)
{
    std::string_view best;
    std::size_t best_distance = 3;
    for (auto const& [name, support, meaning, note] : known) {
        std::size_t const d = edit_distance(key, name);
        if (d < best_distance && d * 3 <= key.size()) {
            best = name;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace torcrun::core::spec::detail
