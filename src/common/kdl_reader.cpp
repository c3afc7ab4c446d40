// The KDL 2.0.0 reader (include/torcrun/common/kdl_reader.hpp): one recursive-descent pass over
// the text, which is checked first for malformed UTF-8 and the code points KDL forbids anywhere.
// The first error stops the reader. Positions are computed from byte offsets, forwards from the
// last one asked for, so a long line costs its length once.
#include "torcrun/common/kdl_reader.hpp"

#include "json_cursor.hpp"
#include "kdl_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>

namespace torcrun::core {

namespace {

using namespace detail::kdl;

class kdl_parser {
public:
    kdl_parser(std::string_view text, std::string_view origin) : text_(text), origin_(origin) {}

    result<kdl_document> run();

private:
    // --- positions and errors
    source_position position(std::size_t offset);
    bool fail(std::size_t offset, std::string_view message);
    std::string describe_at(std::size_t offset);

    // --- characters
    code_point at(std::size_t offset) const { return decode(text_, offset); }
    bool at_end() const { return pos_ >= text_.size(); }
    bool starts(std::string_view s) const { return text_.substr(pos_).starts_with(s); }
    std::size_t newline_width(std::size_t offset) const;

    // --- space and comments
    bool skip_block_comment();
    bool skip_ws(bool& any);
    bool skip_node_space(bool& any);
    bool skip_line_space();
    void skip_line_comment();

    // --- structure
    bool parse_nodes(std::vector<kdl_node>& out, std::size_t depth, std::size_t open);
    bool parse_node(kdl_node& node, std::size_t depth);
    bool parse_children(kdl_node& node, bool keep, std::size_t depth);
    bool parse_entry(kdl_node& node, bool keep);
    bool parse_type();
    bool parse_value(kdl_value& out);
    bool parse_string(std::string& out, bool& ok_as_string);

    // --- scalars
    bool read_identifier(std::string& out);
    bool read_keyword(kdl_value& out);
    bool read_number(kdl_value& out);
    bool read_quoted(std::string& out);
    bool read_raw(std::string& out);
    bool read_multiline_body(std::string_view body, std::size_t body_start, bool raw,
                             std::string& out);
    bool unescape(std::string_view raw, std::size_t raw_start, std::string& out);

    std::string_view text_;
    std::string_view origin_;
    std::size_t pos_ = 0;
    std::size_t cached_offset_ = 0;
    source_position cached_{1, 1};
    std::optional<error> error_;
};

std::size_t kdl_parser::newline_width(std::size_t offset) const
{
    return line_break_width(text_, offset);
}

source_position kdl_parser::position(std::size_t offset)
{
    if (offset < cached_offset_) {
        cached_offset_ = 0;
        cached_ = {1, 1};
    }
    while (cached_offset_ < offset && cached_offset_ < text_.size()) {
        if (std::size_t const nl = newline_width(cached_offset_)) {
            cached_offset_ += nl;
            ++cached_.line;
            cached_.column = 1;
        } else {
            cached_offset_ += std::max<std::size_t>(at(cached_offset_).width, 1);
            ++cached_.column;
        }
    }
    return cached_;
}

bool kdl_parser::fail(std::size_t offset, std::string_view message)
{
    if (!error_) {
        auto const p = position(offset);
        error_ = error{concat({origin_, ":", std::to_string(p.line), ":", std::to_string(p.column),
                               ": ", message})};
    }
    return false;
}

std::string kdl_parser::describe_at(std::size_t offset)
{
    if (offset >= text_.size()) return "the end of the file";
    if (newline_width(offset)) return "a line break";
    auto const cp = at(offset);
    if (cp.value < 0x80 && cp.value > 0x20) return concat({"'", text_.substr(offset, 1), "'"});
    return concat({"'", text_.substr(offset, cp.width), "' (", hex_of(cp.value), ")"});
}

// ---------------------------------------------------------------- space and comments

bool kdl_parser::skip_block_comment()
{
    std::size_t const start = pos_;
    pos_ += 2;
    std::size_t depth = 1;
    while (depth > 0) {
        if (at_end()) return fail(start, "this /* comment is not closed");
        if (starts("/*")) {
            ++depth;
            pos_ += 2;
        } else if (starts("*/")) {
            --depth;
            pos_ += 2;
        } else {
            ++pos_;
        }
    }
    return true;
}

bool kdl_parser::skip_ws(bool& any)
{
    for (;;) {
        if (starts("/*")) {
            if (!skip_block_comment()) return false;
        } else if (auto const cp = at(pos_); !at_end() && is_space(cp.value)) {
            pos_ += cp.width;
        } else {
            return true;
        }
        any = true;
    }
}

void kdl_parser::skip_line_comment()
{
    while (!at_end() && !newline_width(pos_)) pos_ += std::max<std::size_t>(at(pos_).width, 1);
    pos_ += newline_width(pos_);
}

// node-space: white space, block comments and `\` line continuations.
bool kdl_parser::skip_node_space(bool& any)
{
    for (;;) {
        if (!skip_ws(any)) return false;
        if (at_end() || text_[pos_] != '\\') return true;
        std::size_t const slash = pos_++;
        bool ignored = false;
        if (!skip_ws(ignored)) return false;
        if (starts("//")) {
            skip_line_comment();
        } else if (std::size_t const nl = newline_width(pos_)) {
            pos_ += nl;
        } else if (!at_end()) {
            return fail(slash, "a '\\' between entries must end the line (a line continuation)");
        }
        any = true;
    }
}

bool kdl_parser::skip_line_space()
{
    for (;;) {
        bool any = false;
        if (!skip_node_space(any)) return false;
        if (std::size_t const nl = newline_width(pos_)) {
            pos_ += nl;
        } else if (starts("//")) {
            skip_line_comment();
        } else {
            return true;
        }
    }
}

// ---------------------------------------------------------------- structure

result<kdl_document> kdl_parser::run()
{
    kdl_document doc;
    doc.origin = origin_;
    if (std::size_t const bad = detail::find_invalid_utf8(text_); bad != std::string_view::npos) {
        fail(bad, "invalid UTF-8");
        return *error_;
    }
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
    for (std::size_t k = pos_; k < text_.size();) {
        auto const cp = at(k);
        if (is_disallowed(cp.value)) {
            fail(k, concat({"the code point ", hex_of(cp.value), " may not appear in a KDL "
                                                                  "document"}));
            return *error_;
        }
        k += cp.width;
    }
    if (!parse_nodes(doc.nodes, 0, std::string_view::npos)) return *error_;
    return doc;
}

// Nodes up to the end of the text (open == npos) or the `}` closing the block opened at `open`.
bool kdl_parser::parse_nodes(std::vector<kdl_node>& out, std::size_t depth, std::size_t open)
{
    for (;;) {
        if (!skip_line_space()) return false;
        if (at_end()) {
            if (open == std::string_view::npos) return true;
            return fail(open, "this '{' is not closed by a '}'");
        }
        if (text_[pos_] == '}') {
            if (open != std::string_view::npos) return true;
            return fail(pos_, "'}' without a '{' before it");
        }
        bool keep = true;
        if (starts("/-")) {
            pos_ += 2;
            if (!skip_line_space()) return false;
            keep = false;
        }
        kdl_node node;
        if (!parse_node(node, depth)) return false;
        if (keep) out.push_back(std::move(node));
    }
}

bool kdl_parser::parse_node(kdl_node& node, std::size_t depth)
{
    bool any = false;
    if (!at_end() && text_[pos_] == '(' && (!parse_type() || !skip_node_space(any))) return false;
    std::size_t const name_at = pos_;
    node.where = position(name_at);
    bool is_string = false;
    if (!parse_string(node.name, is_string)) return false;
    if (!is_string)
        return fail(name_at, concat({"expected a node name, found ", describe_at(name_at)}));
    bool children_seen = false;
    for (;;) {
        any = false;
        if (!skip_node_space(any)) return false;
        if (at_end()) return true;
        if (std::size_t const nl = newline_width(pos_)) {
            pos_ += nl;
            return true;
        }
        char const c = text_[pos_];
        if (c == ';') {
            ++pos_;
            return true;
        }
        if (starts("//")) {
            skip_line_comment();
            return true;
        }
        if (c == '}') return true;  // the caller's block ends: the last node needs no terminator
        bool keep = true;
        std::size_t const entry_at = pos_;
        if (starts("/-")) {
            pos_ += 2;
            if (!skip_line_space()) return false;
            keep = false;
        } else if (!any && c != '{') {
            return fail(pos_, concat({"expected a space, ';' or a line break, found ",
                                      describe_at(pos_)}));
        }
        if (!at_end() && text_[pos_] == '{') {
            if (children_seen && keep && node.children)
                return fail(entry_at, concat({"node \"", node.name, "\" has a second children "
                                                                    "block"}));
            if (depth + 1 > json_max_depth)
                return fail(pos_, concat({"children blocks are nested deeper than ",
                                          std::to_string(json_max_depth)}));
            children_seen = true;
            if (!parse_children(node, keep, depth + 1)) return false;
            continue;
        }
        if (children_seen)
            return fail(entry_at, concat({"arguments and properties of node \"", node.name,
                                          "\" must come before its children block"}));
        if (!parse_entry(node, keep)) return false;
    }
}

bool kdl_parser::parse_children(kdl_node& node, bool keep, std::size_t depth)
{
    std::size_t const open = pos_++;
    std::vector<kdl_node> children;
    if (!parse_nodes(children, depth, open)) return false;
    ++pos_;  // the '}'
    if (keep) node.children = std::move(children);
    return true;
}

bool kdl_parser::parse_type()
{
    std::size_t const open = pos_++;
    bool any = false;
    if (!skip_node_space(any)) return false;
    std::string ignored;
    bool is_string = false;
    std::size_t const at_name = pos_;
    if (!parse_string(ignored, is_string)) return false;
    if (!is_string)
        return fail(at_name, concat({"expected a type name after '(', found ",
                                     describe_at(at_name)}));
    if (!skip_node_space(any)) return false;
    if (at_end() || text_[pos_] != ')')
        return fail(pos_, concat({"expected ')' closing the type annotation opened at ",
                                  std::to_string(position(open).column), ", found ",
                                  describe_at(pos_)}));
    ++pos_;
    return true;
}

// An argument or a property: a string followed by `=` names a property.
bool kdl_parser::parse_entry(kdl_node& node, bool keep)
{
    kdl_entry entry;
    std::size_t const start = pos_;
    if (at_end())  // after a `/-` that comments out nothing
        return fail(start, "expected a value, an entry or a children block after /-, found the "
                           "end of the file");
    entry.where = position(start);
    if (text_[pos_] == '(') {
        bool any = false;
        if (!parse_type() || !skip_node_space(any)) return false;
        entry.value.where = position(pos_);
        if (!parse_value(entry.value)) return false;
    } else {
        entry.value.where = entry.where;
        if (!parse_value(entry.value)) return false;
        if (auto const* key = entry.value.as_string()) {
            std::size_t const after = pos_;
            bool any = false;
            if (!skip_node_space(any)) return false;
            if (!at_end() && text_[pos_] == '=') {
                ++pos_;
                if (!skip_node_space(any)) return false;
                entry.name = *key;
                if (!at_end() && text_[pos_] == '(' && (!parse_type() || !skip_node_space(any)))
                    return false;
                entry.value.where = position(pos_);
                if (!parse_value(entry.value)) return false;
            } else {
                pos_ = after;
            }
        }
    }
    if (keep) node.entries.push_back(std::move(entry));
    return true;
}

bool kdl_parser::parse_value(kdl_value& out)
{
    std::size_t const start = pos_;
    if (at_end() || newline_width(pos_))
        return fail(start, concat({"expected a value, found ", describe_at(start)}));
    char const c = text_[pos_];
    bool const signed_digit =
        (c == '+' || c == '-') && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]);
    if (is_digit(c) || signed_digit) return read_number(out);
    if (c == '#' && !starts("#\"") && !starts("##")) return read_keyword(out);
    std::string s;
    bool is_string = false;
    if (!parse_string(s, is_string)) return false;
    if (!is_string) return fail(start, concat({"expected a value, found ", describe_at(start)}));
    out.data = std::move(s);
    return true;
}

// A node name, property name or string value: identifier, quoted or raw. `ok_as_string` is false
// (and nothing consumed) when no string starts here.
bool kdl_parser::parse_string(std::string& out, bool& ok_as_string)
{
    ok_as_string = true;
    if (at_end()) {
        ok_as_string = false;
        return true;
    }
    char const c = text_[pos_];
    if (c == '"') return read_quoted(out);
    if (c == '#' && (starts("#\"") || starts("##"))) return read_raw(out);
    if (c == 'r' && (starts("r\"") || starts("r#\"")))
        return fail(pos_, "r\"...\" is a KDL 1 raw string; KDL 2 writes #\"...\"#");
    if (!is_identifier_char(at(pos_).value)) {
        ok_as_string = false;
        return true;
    }
    return read_identifier(out);
}

// ---------------------------------------------------------------- scalars

bool kdl_parser::read_identifier(std::string& out)
{
    std::size_t const start = pos_;
    while (!at_end() && is_identifier_char(at(pos_).value)) pos_ += at(pos_).width;
    out.assign(text_.substr(start, pos_ - start));
    // Identifiers may not look like numbers: a digit first, or after a sign or a leading dot.
    std::string_view rest = out;
    if (rest.starts_with('+') || rest.starts_with('-')) rest.remove_prefix(1);
    bool const dotted = rest.starts_with('.');
    if (dotted) rest.remove_prefix(1);
    if (!rest.empty() && is_digit(rest.front()))
        return fail(start, concat({"\"", out, "\" is neither a number nor a string; quote it if "
                                              "it is a string"}));
    if (out == "true" || out == "false" || out == "null")
        return fail(start, concat({out, " is not a value in KDL 2: write #", out, ", or \"", out,
                                   "\" for the string"}));
    if (out == "inf" || out == "-inf" || out == "nan")
        return fail(start, concat({out, " is not a value in KDL 2: write #", out, ", or \"", out,
                                   "\" for the string"}));
    return true;
}

bool kdl_parser::read_keyword(kdl_value& out)
{
    std::size_t const start = pos_;
    ++pos_;
    while (!at_end() && is_identifier_char(at(pos_).value)) pos_ += at(pos_).width;
    std::string_view const word = text_.substr(start, pos_ - start);
    if (word == "#true" || word == "#false") out.data = word == "#true";
    else if (word == "#null") out.data = nullptr;
    else if (word == "#inf") out.data = HUGE_VAL;
    else if (word == "#-inf") out.data = -HUGE_VAL;
    else if (word == "#nan") out.data = std::nan("");
    else
        return fail(start, concat({"unknown keyword \"", word, "\" (KDL 2 has #true, #false, "
                                                             "#null, #inf, #-inf and #nan)"}));
    return true;
}

// The digits of a 0x/0o/0b body (after the prefix) without its `_`s, or nullopt.

bool kdl_parser::read_number(kdl_value& out)
{
    std::size_t const start = pos_;
    while (!at_end() && is_identifier_char(at(pos_).value)) pos_ += at(pos_).width;
    std::string_view const token = text_.substr(start, pos_ - start);
    bool const negative = token.starts_with('-');
    std::string_view body = token;
    if (body.starts_with('+') || body.starts_with('-')) body.remove_prefix(1);
    int const base = body.starts_with("0x")   ? 16
                     : body.starts_with("0o") ? 8
                     : body.starts_with("0b") ? 2
                                              : 10;
    bool is_float = false;
    auto const digits = base == 10 ? decimal_digits(body, is_float)
                                   : radix_digits(body.substr(2), base);
    if (!digits)
        return fail(start, concat({"\"", token, "\" is not a number; quote it if it is a string"}));
    if (is_float) {
        std::string const signed_digits = concat({negative ? "-" : "", *digits});
        out.data = std::strtod(signed_digits.c_str(), nullptr);
        return true;
    }
    std::uint64_t magnitude = 0;
    auto const [end, ec] =
        std::from_chars(digits->data(), digits->data() + digits->size(), magnitude, base);
    bool const fits = ec == std::errc{} && end == digits->data() + digits->size()
        && magnitude <= (negative ? std::uint64_t{1} << 63 : std::uint64_t{INT64_MAX});
    if (!fits) return fail(start, concat({"the integer ", token, " does not fit in 64 bits"}));
    out.data = negative ? static_cast<std::int64_t>(0 - magnitude)
                        : static_cast<std::int64_t>(magnitude);
    return true;
}

bool kdl_parser::read_quoted(std::string& out)
{
    std::size_t const start = pos_;
    if (starts("\"\"\"")) {
        pos_ += 3;
        std::size_t const nl = newline_width(pos_);
        if (!nl) return fail(start, "a multi-line string's \"\"\" must end its line");
        pos_ += nl;
        std::size_t const body_start = pos_;
        for (;;) {
            if (at_end()) return fail(start, "this multi-line string is not closed by \"\"\"");
            if (text_[pos_] == '\\') {
                pos_ += 1 + std::max<std::size_t>(at(pos_ + 1).width, 1);
                continue;
            }
            if (starts("\"\"\"")) break;
            ++pos_;
        }
        std::string_view const body = text_.substr(body_start, pos_ - body_start);
        pos_ += 3;
        return read_multiline_body(body, body_start, false, out);
    }
    ++pos_;
    std::size_t const body_start = pos_;
    for (;;) {
        if (at_end()) return fail(start, "this string is not closed by '\"'");
        if (newline_width(pos_))
            return fail(pos_, "a quoted string cannot span lines; write a multi-line string "
                              "with \"\"\"");
        char const ch = text_[pos_];
        if (ch == '"') break;
        if (ch == '\\') {
            std::size_t const after = ++pos_;
            // A whitespace escape may span lines: skip the white space it eats; after it, a '"'
            // closes the string.
            while (!at_end() && (is_space(at(pos_).value) || newline_width(pos_)))
                pos_ += std::max<std::size_t>(newline_width(pos_), at(pos_).width);
            if (pos_ == after && !at_end() && (text_[pos_] == '"' || text_[pos_] == '\\'))
                ++pos_;
            continue;
        }
        ++pos_;
    }
    std::string_view const raw = text_.substr(body_start, pos_ - body_start);
    ++pos_;
    return unescape(raw, body_start, out);
}

bool kdl_parser::read_raw(std::string& out)
{
    std::size_t const start = pos_;
    std::size_t hashes = 0;
    while (!at_end() && text_[pos_] == '#') ++hashes, ++pos_;
    if (at_end() || text_[pos_] != '"')
        return fail(start, concat({"expected '\"' after the '#'s of a raw string, found ",
                                   describe_at(pos_)}));
    std::string const hash_run(hashes, '#');
    std::string const close = concat({"\"", hash_run});
    bool const multi = starts("\"\"\"");
    if (multi) {
        pos_ += 3;
        std::size_t const nl = newline_width(pos_);
        if (!nl) return fail(start, "a multi-line raw string's \"\"\" must end its line");
        pos_ += nl;
        std::size_t const body_start = pos_;
        std::size_t const end = text_.find(concat({"\"\"\"", hash_run}), pos_);
        if (end == std::string_view::npos)
            return fail(start, "this multi-line raw string is not closed");
        pos_ = end + 3 + hashes;
        return read_multiline_body(text_.substr(body_start, end - body_start), body_start, true,
                                   out);
    }
    ++pos_;
    std::size_t const end = text_.find(close, pos_);
    std::size_t const line_end = [&] {
        for (std::size_t k = pos_; k < text_.size(); ++k)
            if (newline_width(k)) return k;
        return text_.size();
    }();
    if (end == std::string_view::npos || end > line_end)
        return fail(start, concat({"this raw string is not closed by ", close,
                                   " on its line (a multi-line raw string starts with #\"\"\")"}));
    out.assign(text_.substr(pos_, end - pos_));
    pos_ = end + close.size();
    return true;
}

// The lines between `"""` + line break and the closing line: whitespace escapes resolved
// first (quoted strings), line breaks become LF, and the closing line's white space (its whole
// content) is removed from the start of every line, which must begin with it unless it is white
// space alone. The other escapes are resolved after that. Errors point at the line when no
// whitespace escape moved the lines, else at the string's first line.
bool kdl_parser::read_multiline_body(std::string_view raw_body, std::size_t body_start, bool raw,
                                     std::string& out)
{
    std::string const resolved = raw ? std::string() : without_whitespace_escapes(raw_body);
    bool const exact = raw || resolved.size() == raw_body.size();
    std::string_view const body = raw ? raw_body : std::string_view(resolved);
    auto const where = [&](std::size_t offset) { return body_start + (exact ? offset : 0); };
    struct line {
        std::size_t offset;
        std::string_view text;
    };
    std::vector<line> lines;
    for (std::size_t k = 0, line_start = 0;; ) {
        if (k >= body.size()) {
            lines.push_back({line_start, body.substr(line_start)});
            break;
        }
        if (std::size_t const nl = line_break_width(body, k)) {
            lines.push_back({line_start, body.substr(line_start, k - line_start)});
            k += nl;
            line_start = k;
        } else {
            k += std::max<std::size_t>(decode(body, k).width, 1);
        }
    }
    std::string_view const prefix = lines.back().text;
    auto const blank = [&](std::string_view s) {
        for (std::size_t k = 0; k < s.size();) {
            auto const cp = decode(s, k);
            if (!is_space(cp.value)) return false;
            k += cp.width;
        }
        return true;
    };
    if (!blank(prefix))
        return fail(where(lines.back().offset),
                    "the closing \"\"\" of a multi-line string must be on its own line");
    std::string joined;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        if (i) joined += '\n';
        if (blank(lines[i].text)) continue;
        if (!lines[i].text.starts_with(prefix))
            return fail(where(lines[i].offset),
                        "this line of a multi-line string does not start with the white space "
                        "of its closing \"\"\" line");
        joined.append(lines[i].text.substr(prefix.size()));
    }
    if (raw) {
        out = std::move(joined);
        return true;
    }
    return unescape(joined, body_start, out);
}

bool kdl_parser::unescape(std::string_view raw, std::size_t raw_start, std::string& out)
{
    out.clear();
    for (std::size_t k = 0; k < raw.size();) {
        if (raw[k] != '\\') {
            out += raw[k++];
            continue;
        }
        std::size_t const esc = k++;
        auto const bad = [&](std::string_view what) {
            // Offsets into a dedented body are approximate; point at the string's start there.
            return fail(raw_start + (raw.data() >= text_.data()
                                             && raw.data() < text_.data() + text_.size()
                                         ? esc
                                         : 0),
                        what);
        };
        if (k >= raw.size()) return bad("a '\\' ends the string");
        char const e = raw[k];
        auto const cp = decode(raw, k);
        if (is_space(cp.value) || is_newline(cp.value)) {
            while (k < raw.size()) {
                auto const next = decode(raw, k);
                if (!is_space(next.value) && !is_newline(next.value)) break;
                k += next.width;
            }
            continue;
        }
        ++k;
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 's': out += ' '; break;
        case 'u': {
            std::size_t const close = raw.find('}', k);
            if (k >= raw.size() || raw[k] != '{' || close == std::string_view::npos
                || close - k - 1 < 1 || close - k - 1 > 6)
                return bad("a \\u escape is written \\u{1F600}: one to six hex digits in braces");
            std::uint32_t value = 0;
            std::string_view const hex = raw.substr(k + 1, close - k - 1);
            auto const [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
            if (ec != std::errc{} || end != hex.data() + hex.size() || value > 0x10FFFF
                || (value >= 0xD800 && value <= 0xDFFF))
                return bad(concat({"\\u{", hex, "} is not a Unicode scalar value"}));
            detail::append_utf8(out, value);
            k = close + 1;
            break;
        }
        default:
            return bad(concat({"unknown escape \\", raw.substr(k - 1, cp.width),
                               " (KDL 2 has \\\" \\\\ \\b \\f \\n \\r \\t \\s \\u{...} and "
                               "\\ before white space)"}));
        }
    }
    return true;
}

}  // namespace

kdl_value const* kdl_node::property(std::string_view key) const noexcept
{
    kdl_value const* found = nullptr;
    for (auto const& e : entries)
        if (e.name && *e.name == key) found = &e.value;
    return found;
}

std::string describe(kdl_value const& value)
{
    if (value.as_string()) return concat({"the string \"", *value.as_string(), "\""});
    if (value.as_integer()) return concat({"the integer ", std::to_string(*value.as_integer())});
    if (value.as_bool()) return *value.as_bool() ? "#true" : "#false";
    if (std::holds_alternative<double>(value.data)) return "a decimal number";
    return "#null";
}

result<kdl_document> read_kdl(std::string_view text, std::string_view origin)
{
    return kdl_parser(text, origin).run();
}

}  // namespace torcrun::core
