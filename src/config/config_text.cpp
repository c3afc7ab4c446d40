// The configuration's text forms: command-line override text -> file value, normalized value
// -> file value, type and range wording for messages and documentation, and the small
// conversions between paths, pointers and nested objects.
#include "config_fields.hpp"
#include "config_values.hpp"

#include "torcrun/common/date_time.hpp"
#include "torcrun/common/json_writer.hpp"
#include "torcrun/common/signal_names.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/serialize.hpp>

#include <array>
#include <charconv>
#include <cmath>

namespace torcrun::core {

std::string type_name(value_rule const& rule)
{
    static constexpr std::array<std::string_view, 15> names = {
        "boolean",
        "integer",
        "number",
        "string",
        "string",
        "memory string or integer",
        "signal name or number",
        "URL",
        "date-time string or number",
        "array of strings",
        "array of variable names",
        "array of variable name patterns",
        "object of strings",
        "array of strings or integer",
        "string",
    };
    std::string name(names.at(static_cast<std::size_t>(rule.kind)));
    return rule.nullable ? name + " or null" : name;
}

std::string range_text(value_rule const& rule)
{
    switch (rule.kind) {
        case value_kind::choice: {
            std::string out;
            for (auto const choice : rule.choices)
                out += (out.empty() ? "" : ", ") + std::string(choice);
            return out;
        }
        case value_kind::url: return "http or https";
        case value_kind::env_patterns: return "NAME or PREFIX*";
        case value_kind::srun_signal: return "[R:|B:]SIGNAL[@SECONDS]";
        case value_kind::integer:
        case value_kind::number:
        case value_kind::memory:
        case value_kind::gpu_ids: break;
        default: return "";
    }
    auto const bound = [&](double b) {
        return rule.kind == value_kind::memory ? format_memory(static_cast<std::uint64_t>(b))
                                               : format_number(b);
    };
    bool const low = std::isfinite(rule.min), high = std::isfinite(rule.max);
    if (low && high) return bound(rule.min) + " to " + bound(rule.max);
    if (low) return "at least " + bound(rule.min);
    if (high) return "at most " + bound(rule.max);
    return "";
}

namespace detail {

std::string describe_json(boost::json::value const& value)
{
    switch (value.kind()) {
        case boost::json::kind::null: return "null";
        case boost::json::kind::bool_: return "a boolean";
        case boost::json::kind::int64:
        case boost::json::kind::uint64: return "an integer";
        case boost::json::kind::double_: return "a number";
        case boost::json::kind::string: return "a string";
        case boost::json::kind::array: return "an array";
        case boost::json::kind::object: return "an object";
    }
    return "a value";
}

namespace {

std::string quote(std::string_view s) { return boost::json::serialize(boost::json::string(s)); }

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

template <class T>
std::optional<T> whole_number(std::string_view text)
{
    T value{};
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// "[...]" or "{...}" as JSON; anything else split at commas ("a, b" or "K=V,K2=V2").
checked_value structured_from_text(value_rule const& rule, std::string_view text)
{
    if (text.starts_with('[') || text.starts_with('{')) {
        auto doc = read_json(text, "");
        if (!doc) {
            return problem(quote(text) + " is not valid JSON ("
                                 + doc.error().message.substr(1) + ")");
        }
        return doc->root();
    }
    boost::json::array items;
    boost::json::object pairs;
    while (!trim(text).empty()) {
        std::size_t const cut = std::min(text.find(','), text.size());
        std::string_view const item = trim(text.substr(0, cut));
        text.remove_prefix(std::min(cut + 1, text.size()));
        if (rule.kind != value_kind::variable_map) {
            items.emplace_back(item);
        } else if (std::size_t const eq = item.find('='); eq != std::string_view::npos) {
            pairs[item.substr(0, eq)] = item.substr(eq + 1);
        } else {
            return problem(quote(item) + " is not NAME=VALUE");
        }
    }
    if (rule.kind == value_kind::variable_map) return pairs;
    return items;
}

}  // namespace

checked_value value_from_text(value_rule const& rule, std::string_view text)
{
    if (rule.nullable && text == "null") return boost::json::value(nullptr);
    switch (rule.kind) {
        case value_kind::boolean:
            if (text == "true" || text == "yes" || text == "on" || text == "1") return true;
            if (text == "false" || text == "no" || text == "off" || text == "0") return false;
            return problem(quote(text) + " is not a boolean (true or false)");
        case value_kind::integer:
            if (auto const n = whole_number<std::int64_t>(text)) return *n;
            return problem(quote(text) + " is not an integer");
        case value_kind::number:
            if (auto const d = whole_number<double>(text)) return *d;
            return problem(quote(text) + " is not a number");
        case value_kind::date_time:
            if (auto const d = whole_number<double>(text)) return *d;
            return boost::json::string(text);
        case value_kind::gpu_ids:
            if (auto const n = whole_number<std::int64_t>(text)) return *n;
            return structured_from_text(rule, text);
        case value_kind::string_list:
        case value_kind::variable_names:
        case value_kind::env_patterns:
        case value_kind::variable_map: return structured_from_text(rule, text);
        default: return boost::json::string(text);
    }
}

boost::json::value file_form(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_null()) return v;
    switch (rule.kind) {
        case value_kind::choice:
            return boost::json::string(rule.choices[static_cast<std::size_t>(v.as_int64())]);
        case value_kind::memory:
            return boost::json::string(format_memory(v.to_number<std::uint64_t>()));
        case value_kind::signal: {
            // Signals without a standard name ("signal 40") are written as their number.
            std::string const name = signal_name(static_cast<int>(v.as_int64()));
            if (name.starts_with("signal ")) return v;
            return boost::json::string(name);
        }
        case value_kind::date_time:
            return boost::json::string(format_date_time(v.to_number<double>()));
        default: return v;
    }
}

std::string join_lines(std::vector<std::string> const& lines)
{
    std::string out;
    for (auto const& line : lines) out += (out.empty() ? "" : "\n") + line;
    return out;
}

std::string pointer_of(std::string_view path)
{
    std::string pointer;
    while (!path.empty()) {
        std::size_t const cut = std::min(path.find('.'), path.size());
        pointer = json_pointer_append(pointer, path.substr(0, cut));
        path.remove_prefix(std::min(cut + 1, path.size()));
    }
    return pointer;
}

void put_path(boost::json::object& root, std::string_view path, boost::json::value value)
{
    boost::json::object* at = &root;
    for (std::size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
        auto& next = (*at)[path.substr(0, dot)];
        if (!next.is_object()) next.emplace_object();
        at = &next.get_object();
        path.remove_prefix(dot + 1);
    }
    (*at)[path] = std::move(value);
}

void assign(std::vector<std::string>& m, boost::json::value const& v)
{
    m.clear();
    for (auto const& e : v.as_array()) m.emplace_back(e.as_string());
}

void assign(std::map<std::string, std::string>& m, boost::json::value const& v)
{
    m.clear();
    for (auto const& member : v.as_object()) {
        m.emplace(member.key(), member.value().as_string());
    }
}

boost::json::value normalize(std::vector<std::string> const& m)
{
    boost::json::array out;
    for (auto const& s : m) out.emplace_back(s);
    return out;
}

boost::json::value normalize(std::map<std::string, std::string> const& m)
{
    boost::json::object out;
    for (auto const& [k, v] : m) out[k] = v;
    return out;
}

}  // namespace detail
}  // namespace torcrun::core
