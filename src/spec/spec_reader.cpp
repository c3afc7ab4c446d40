// Format detection (docs/TORC-COMPATIBILITY.md §4.1), the located document every format becomes,
// and read_spec. `.json` stays strict as in Torc: core::read_json reads JSON5, so a JSON file is
// checked once more with Boost.JSON's RFC 8259 parser.
#include "torcrun/spec/spec_reader.hpp"

#include "message_text.hpp"

#include <boost/json/stream_parser.hpp>

#include <algorithm>
#include <cctype>

namespace torcrun::core::spec {

namespace {

std::string lower_extension(std::string_view file_name)
{
    auto const slash = file_name.find_last_of('/');
    std::string_view const base =
        slash == std::string_view::npos ? file_name : file_name.substr(slash + 1);
    auto const dot = base.find_last_of('.');
    if (dot == std::string_view::npos || dot == 0) return "";
    std::string out(base.substr(dot + 1));
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Line and column (in code points) of byte `offset`, as core::read_json counts them.
source_position position_at(std::string_view text, std::size_t offset)
{
    source_position p{1, 1};
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        char const c = text[i];
        if (c == '\n' || (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
            ++p.line;
            p.column = 1;
        } else if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            ++p.column;
        }
    }
    return p;
}

result<void> check_strict_json(std::string_view text, std::string_view origin)
{
    boost::json::parse_options options;
    options.max_depth = json_max_depth + 1;  // depth is read_json's to judge, not strictness
    boost::json::stream_parser parser({}, options);
    boost::system::error_code ec;
    std::size_t const used = parser.write_some(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (!ec) return {};
    auto const p = position_at(text, used);
    return error{concat({origin, ":", std::to_string(p.line), ":", std::to_string(p.column),
                         ": not strict JSON, which Torc requires of a .json file (comments, "
                         "trailing commas, single quotes, unquoted keys and the like are JSON5: "
                         "name the file .json5)"})};
}

}  // namespace

result<std::optional<spec_format>> format_of(std::string_view file_name)
{
    std::string const ext = lower_extension(file_name);
    if (ext == "json") return spec_format::json;
    if (ext == "json5") return spec_format::json5;
    if (ext == "yaml" || ext == "yml") return spec_format::yaml;
    if (ext == "kdl") return spec_format::kdl;
    return std::optional<spec_format>{};
}

spec_document::spec_document(json_document document, spec_format format)
    : json_(std::move(document)), origin_(json_->origin()), format_(format)
{
}

spec_document::spec_document(boost::json::value root, std::string origin, yaml_positions positions,
                             spec_format format)
    : yaml_root_(std::move(root)), yaml_positions_(std::move(positions)),
      origin_(std::move(origin)), format_(format)
{
}

boost::json::value const& spec_document::root() const noexcept
{
    return json_ ? json_->root() : yaml_root_;
}

std::string spec_document::location(std::string_view pointer, bool at_key) const
{
    if (json_) return json_->location(pointer, at_key);
    // Values reached through a YAML alias have no entry of their own: use the nearest one.
    for (std::string p(pointer);; p.erase(p.find_last_of('/'))) {
        if (auto const it = yaml_positions_.find(p); it != yaml_positions_.end()) {
            auto const pos = at_key && p.size() == pointer.size() && it->second.key
                                 ? *it->second.key
                                 : it->second.value;
            return concat(
                {origin_, ":", std::to_string(pos.line), ":", std::to_string(pos.column)});
        }
        if (p.empty()) return origin_;
    }
}

result<spec_document> read_spec_document(std::string_view text, std::string_view file_name)
{
    auto const format = format_of(file_name);
    if (!format) return format.error();
    if (*format == spec_format::yaml) return read_yaml_document(text, file_name);
    if (*format == spec_format::kdl) return read_kdl_document(text, file_name);
    auto document = read_json(text, file_name);
    if (*format) {
        if (!document) return document.error();
        if (**format == spec_format::json) {
            if (auto strict = check_strict_json(text, file_name); !strict) return strict.error();
        }
        return spec_document(std::move(*document), **format);
    }
    // Unknown extension: Torc tries JSON, JSON5, YAML and KDL and keeps the first success.
    if (document) return spec_document(std::move(*document), spec_format::json5);
    auto yaml = read_yaml_document(text, file_name);
    if (yaml) return yaml;
    auto kdl = read_kdl_document(text, file_name);
    if (kdl) return kdl;
    return error{concat({file_name, ": is neither JSON5 (", document.error().message,
                         ") nor YAML (", yaml.error().message, ") nor KDL (",
                         kdl.error().message, ")"})};
}

result<workflow_spec> read_spec(std::string_view text, std::string_view file_name,
                                table_loader loader)
{
    auto document = read_spec_document(text, file_name);
    if (!document) return document.error();
    return parse_spec(*document, std::move(loader));
}

}  // namespace torcrun::core::spec
