// Rendering a schema for people: the commented example file and the Markdown reference table,
// both from the same rows that validate values, so documentation cannot drift from the code.
#include "torcrun/config/config_schema.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/json_writer.hpp"

#include <boost/json/serialize.hpp>

#include <vector>

namespace torcrun::core {

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
