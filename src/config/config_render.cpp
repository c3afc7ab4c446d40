// Showing configuration for people: the wording of a rule's type and range, a normalized value
// in file form (to_json and the defaults), and the commented example file and the Markdown
// reference table, both from the same rows that validate values, so documentation cannot
// drift from the code.
#include "config_table.hpp"

#include "torcrun/config/config_schema.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/date_time.hpp"
#include "torcrun/common/json_writer.hpp"
#include "torcrun/common/signal_names.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/serialize.hpp>

#include <array>
#include <cmath>
#include <vector>

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

}  // namespace detail

namespace {

using detail::cat;

constexpr std::size_t line_width = 100;

// `text` as `//` comment lines indented by `indent`, wrapped at the line width.
std::string comment(std::string_view text, std::size_t indent)
{
    std::string out, line;
    auto flush = [&] {
        out += cat(std::string(indent, ' '), "//", line, "\n");
        line.clear();
    };
    while (!text.empty()) {
        std::size_t const cut = std::min(text.find(' '), text.size());
        std::string_view const word = text.substr(0, cut);
        text.remove_prefix(std::min(cut + 1, text.size()));
        if (!line.empty() && indent + 2 + line.size() + 1 + word.size() > line_width) flush();
        line += cat(" ", word);
    }
    if (!line.empty()) flush();
    return out;
}

std::string describe_key(key_rule const& key)
{
    std::string const range = range_text(key.rule);
    return cat(key.description, " (", type_name(key.rule), range.empty() ? "" : "; ", range, ")");
}

std::vector<std::string_view> split_path(std::string_view path)
{
    std::vector<std::string_view> parts;
    for (std::size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
        parts.push_back(path.substr(0, dot));
        path.remove_prefix(dot + 1);
    }
    parts.push_back(path);
    return parts;
}

std::string_view group_description(schema_view const& schema, std::string_view path)
{
    for (auto const& group : schema.groups) {
        if (group.path == path) return group.description;
    }
    return {};
}

std::string quote(std::string_view s) { return boost::json::serialize(boost::json::string(s)); }

std::string indented(std::string const& text, std::size_t indent)
{
    std::string out;
    for (char const c : text) {
        out += c;
        if (c == '\n') out.append(indent, ' ');
    }
    return out;
}

}  // namespace

std::string render_example(schema_view const& schema)
{
    std::string const name(schema.name);
    std::string out = "// torcrun " + name + " configuration: every key at its default value.\n"
        "// Comments are allowed; absent keys take their defaults. Check a file with\n"
        "// `torcrun config " + name + " --config FILE`.\n{\n";
    std::vector<std::string_view> open;  // the groups currently open, outermost first
    bool need_comma = false;
    auto const indent = [&] { return std::string(4 * (open.size() + 1), ' '); };
    auto const close_group = [&] {
        open.pop_back();
        out += cat("\n", indent(), "}");
        need_comma = true;
    };
    auto const start_item = [&](std::string_view description) {
        out += need_comma ? ",\n" : "";
        out += comment(description, 4 * (open.size() + 1));
    };
    for (std::size_t i = 0; i < schema.keys.size(); ++i) {
        auto const parts = split_path(schema.keys[i].path);
        std::size_t shared = 0;
        while (shared < open.size() && shared + 1 < parts.size() && open[shared] == parts[shared]) {
            ++shared;
        }
        while (open.size() > shared) close_group();
        while (open.size() + 1 < parts.size()) {
            std::string group_path;
            for (std::size_t p = 0; p <= open.size(); ++p) {
                group_path += cat(p == 0 ? "" : ".", parts[p]);
            }
            start_item(group_description(schema, group_path));
            out += cat(indent(), quote(parts[open.size()]), ": {\n");
            open.push_back(parts[open.size()]);
            need_comma = false;
        }
        start_item(describe_key(schema.keys[i]));
        out += cat(indent(), quote(parts.back()), ": ",
                   indented(write_json(schema.defaults[i]), 4 * (open.size() + 1)));
        need_comma = true;
    }
    while (!open.empty()) close_group();
    return out + "\n}\n";
}

std::string render_reference(schema_view const& schema)
{
    auto const cell = [](std::string text) {
        std::string out;
        for (char const c : text) {
            if (c == '|') out += '\\';
            out += c;
        }
        return out;
    };
    std::string out = "| key | type | default | range | meaning |\n"
                      "| --- | --- | --- | --- | --- |\n";
    for (std::size_t i = 0; i < schema.keys.size(); ++i) {
        auto const& key = schema.keys[i];
        out += cat("| `", key.path, "` | ", cell(type_name(key.rule)), " | `",
                   cell(write_json(schema.defaults[i], 0)), "` | ", cell(range_text(key.rule)),
                   " | ", cell(std::string(key.description)), " |\n");
    }
    return out;
}

}  // namespace torcrun::core
