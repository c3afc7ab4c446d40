// The JSON reader's structure: values, objects and arrays, the per-value position records and
// their lookup by JSON pointer. Tokens come from json_cursor.
//
// Positions are kept compactly: one record per value in document order, and for every
// container the node indices of its children in one contiguous run of `children_`, so a
// pointer lookup costs one step per segment (objects keep insertion order and reject
// duplicate keys, so member i of the object is child i).
#include "torcrun/common/json_reader.hpp"

#include "json_cursor.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <charconv>
#include <iterator>
#include <utility>

namespace torcrun::core {

class json_parser {
public:
    json_parser(std::string_view text, std::string_view origin) : cursor_(text, origin)
    {
        doc_.origin_ = origin;
    }

    result<json_document> run(std::string_view text);

private:
    bool parse_value(boost::json::value& out, std::size_t depth, source_position key);
    bool parse_object(boost::json::object& out, std::size_t depth, std::size_t self);
    bool parse_array(boost::json::array& out, std::size_t depth, std::size_t self);
    void close_container(std::size_t self, std::size_t mark);

    detail::json_cursor cursor_;
    json_document doc_;
    std::vector<std::uint32_t> pending_;  // children of the open containers, innermost last
};

result<json_document> json_parser::run(std::string_view text)
{
    if (std::size_t const bad = detail::find_invalid_utf8(text); bad != std::string_view::npos) {
        cursor_.advance_to(bad);
        static constexpr char hex[] = "0123456789abcdef";
        auto const b = static_cast<unsigned char>(text[bad]);
        cursor_.fail_at(cursor_.position(),
                        std::string("invalid UTF-8 byte 0x") + hex[b >> 4] + hex[b & 0xF]);
        return *cursor_.failure();
    }
    bool const ok = cursor_.skip_space() && parse_value(doc_.root_, 0, {})
        && cursor_.skip_space()
        && (cursor_.at_end() || cursor_.fail_expected("end of input after the value"));
    if (!ok) return *cursor_.failure();
    return std::move(doc_);
}

bool json_parser::parse_value(boost::json::value& out, std::size_t depth, source_position key)
{
    std::size_t const self = doc_.nodes_.size();
    doc_.nodes_.push_back({cursor_.position(), key, 0});
    char const c = cursor_.peek();
    if (c == '{' || c == '[') {
        if (depth >= json_max_depth) {
            return cursor_.fail_at(doc_.nodes_[self].value,
                                   "nesting is deeper than " + std::to_string(json_max_depth)
                                       + " arrays and objects");
        }
        cursor_.advance();
        if (c == '{') return parse_object(out.emplace_object(), depth + 1, self);
        return parse_array(out.emplace_array(), depth + 1, self);
    }
    if (c == '"' || c == '\'') {
        std::string text;
        if (!cursor_.read_string(text)) return false;
        out.emplace_string().assign(text);
        return true;
    }
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') return cursor_.read_number(out);
    if (cursor_.at_identifier_start()) return cursor_.read_word(out);
    return cursor_.fail_expected("a value");
}

bool json_parser::parse_object(boost::json::object& out, std::size_t depth, std::size_t self)
{
    std::size_t const mark = pending_.size();
    std::string key;
    for (;;) {
        if (!cursor_.skip_space()) return false;
        if (cursor_.peek() == '}') break;
        source_position const key_at = cursor_.position();
        char const c = cursor_.peek();
        bool const read = c == '"' || c == '\'' ? cursor_.read_string(key)
            : cursor_.at_identifier_start()     ? cursor_.read_identifier(key)
                                                : cursor_.fail_expected("an object key or '}'");
        if (!read) return false;
        if (auto it = out.find(key); it != out.end()) {
            auto const first = doc_.nodes_[pending_[mark + static_cast<std::size_t>(
                                                                std::distance(out.begin(), it))]]
                                   .key;
            return cursor_.fail_at(key_at, "duplicate key \"" + key + "\" (first at "
                                               + std::to_string(first.line) + ":"
                                               + std::to_string(first.column) + ")");
        }
        if (!cursor_.skip_space()) return false;
        if (cursor_.peek() != ':') return cursor_.fail_expected("':' after an object key");
        cursor_.advance();
        if (!cursor_.skip_space()) return false;
        auto const child = static_cast<std::uint32_t>(doc_.nodes_.size());
        boost::json::value value;
        if (!parse_value(value, depth, key_at)) return false;
        out.emplace(key, std::move(value));
        pending_.push_back(child);
        if (!cursor_.skip_space()) return false;
        if (cursor_.peek() == ',') {
            cursor_.advance();
        } else if (cursor_.peek() != '}') {
            return cursor_.fail_expected("',' or '}' after an object member");
        }
    }
    cursor_.advance();
    close_container(self, mark);
    return true;
}

bool json_parser::parse_array(boost::json::array& out, std::size_t depth, std::size_t self)
{
    std::size_t const mark = pending_.size();
    for (;;) {
        if (!cursor_.skip_space()) return false;
        if (cursor_.peek() == ']') break;
        auto const child = static_cast<std::uint32_t>(doc_.nodes_.size());
        if (!parse_value(out.emplace_back(nullptr), depth, {})) return false;
        pending_.push_back(child);
        if (!cursor_.skip_space()) return false;
        if (cursor_.peek() == ',') {
            cursor_.advance();
        } else if (cursor_.peek() != ']') {
            return cursor_.fail_expected("',' or ']' after an array element");
        }
    }
    cursor_.advance();
    close_container(self, mark);
    return true;
}

void json_parser::close_container(std::size_t self, std::size_t mark)
{
    doc_.nodes_[self].first_child = static_cast<std::uint32_t>(doc_.children_.size());
    doc_.children_.insert(
        doc_.children_.end(), pending_.begin() + static_cast<std::ptrdiff_t>(mark), pending_.end());
    pending_.resize(mark);
}

result<json_document> read_json(std::string_view text, std::string_view origin)
{
    return json_parser(text, origin).run(text);
}

namespace {

// One pointer segment with ~1 and ~0 decoded; nullopt when a '~' is not followed by 0 or 1.
std::optional<std::string> decode_segment(std::string_view segment)
{
    std::string out;
    for (std::size_t i = 0; i < segment.size(); ++i) {
        if (segment[i] != '~') {
            out += segment[i];
        } else if (i + 1 < segment.size() && (segment[i + 1] == '0' || segment[i + 1] == '1')) {
            out += segment[++i] == '0' ? '~' : '/';
        } else {
            return std::nullopt;
        }
    }
    return out;
}

std::optional<std::size_t> array_index(std::string_view segment, std::size_t size)
{
    std::size_t index = 0;
    auto const [end, ec] = std::from_chars(segment.data(), segment.data() + segment.size(), index);
    bool const canonical = !segment.empty() && (segment == "0" || segment[0] != '0');
    if (ec != std::errc{} || end != segment.data() + segment.size() || !canonical) {
        return std::nullopt;
    }
    if (index >= size) return std::nullopt;
    return index;
}

}  // namespace

std::optional<std::size_t> json_document::find_node(std::string_view pointer) const
{
    if (nodes_.empty()) return std::nullopt;
    if (pointer.empty()) return 0;
    if (pointer[0] != '/') return std::nullopt;
    std::size_t node = 0;
    boost::json::value const* value = &root_;
    while (!pointer.empty()) {
        pointer.remove_prefix(1);
        std::size_t const cut = std::min(pointer.find('/'), pointer.size());
        auto const segment = decode_segment(pointer.substr(0, cut));
        pointer.remove_prefix(cut);
        if (!segment) return std::nullopt;
        std::optional<std::size_t> index;
        if (auto const* object = value->if_object()) {
            auto const it = object->find(*segment);
            if (it == object->end()) return std::nullopt;
            index = static_cast<std::size_t>(std::distance(object->begin(), it));
            value = &it->value();
        } else if (auto const* array = value->if_array()) {
            index = array_index(*segment, array->size());
            if (!index) return std::nullopt;
            value = &(*array)[*index];
        } else {
            return std::nullopt;
        }
        node = children_[nodes_[node].first_child + *index];
    }
    return node;
}

std::optional<source_position> json_document::value_position(std::string_view pointer) const
{
    if (auto const node = find_node(pointer)) return nodes_[*node].value;
    return std::nullopt;
}

std::optional<source_position> json_document::key_position(std::string_view pointer) const
{
    auto const node = find_node(pointer);
    if (!node || nodes_[*node].key.line == 0) return std::nullopt;
    return nodes_[*node].key;
}

std::string json_document::location(std::string_view pointer, bool at_key) const
{
    auto const where = at_key ? key_position(pointer) : value_position(pointer);
    if (!where) return origin_;
    return origin_ + ":" + std::to_string(where->line) + ":" + std::to_string(where->column);
}

std::string json_pointer_append(std::string_view pointer, std::string_view key)
{
    std::string out(pointer);
    out += '/';
    for (char const c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string json_pointer_append(std::string_view pointer, std::size_t index)
{
    return std::string(pointer) + "/" + std::to_string(index);
}

}  // namespace torcrun::core
