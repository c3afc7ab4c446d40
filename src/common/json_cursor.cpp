// The JSON reader's lexer, part 1: positions, white space, comments and error messages.
// Scalar tokens (strings, identifiers, numbers, words) are in json_scalars.cpp.
#include "json_cursor.hpp"

#include <string>

namespace torcrun::core::detail {

namespace {

bool is_continuation(char c) noexcept
{
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

bool is_ascii_identifier_char(char c) noexcept
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
        || c == '$';
}

// JSON5 white space beyond ASCII: U+00A0, U+FEFF, U+2028, U+2029 and the Zs spaces.
std::size_t space_width_at(std::string_view text, std::size_t pos) noexcept
{
    std::string_view const rest = text.substr(pos);
    char const c = rest.empty() ? '\0' : rest[0];
    if (c == ' ' || c == '\t' || c == '\v' || c == '\f') return 1;
    if (rest.starts_with("\xC2\xA0")) return 2;
    if (rest.starts_with("\xEF\xBB\xBF") || rest.starts_with("\xE1\x9A\x80")
        || rest.starts_with("\xE2\x81\x9F") || rest.starts_with("\xE3\x80\x80")) {
        return 3;
    }
    if (rest.size() >= 3 && rest.starts_with("\xE2\x80")) {
        auto const b = static_cast<unsigned char>(rest[2]);
        if ((b >= 0x80 && b <= 0x8A) || b == 0xA8 || b == 0xA9 || b == 0xAF) return 3;
    }
    return 0;
}

}  // namespace

json_cursor::json_cursor(std::string_view text, std::string_view origin)
    : text_(text), origin_(origin)
{
    // A UTF-8 byte order mark is not part of the first line's columns.
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = line_start_ = column_offset_ = 3;
}

source_position json_cursor::position()
{
    if (pos_ < column_offset_) {
        column_offset_ = line_start_;
        column_ = 1;
    }
    for (; column_offset_ < pos_; ++column_offset_) {
        if (!is_continuation(text_[column_offset_])) ++column_;
    }
    return {line_, column_};
}

void json_cursor::start_line(std::size_t width)
{
    pos_ += width;
    ++line_;
    line_start_ = column_offset_ = pos_;
    column_ = 1;
}

void json_cursor::advance_to(std::size_t offset)
{
    while (pos_ < offset) {
        if (text_[pos_] == '\n') start_line(1);
        else if (text_[pos_] == '\r') start_line(peek_at(pos_ + 1) == '\n' ? 2 : 1);
        else ++pos_;
    }
}

bool json_cursor::skip_space()
{
    while (!at_end()) {
        char const c = text_[pos_];
        if (c == '\n') {
            start_line(1);
        } else if (c == '\r') {
            start_line(pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n' ? 2 : 1);
        } else if (c == '/') {
            char const next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
            if (next != '/' && next != '*') return true;
            if (!skip_comment()) return false;
        } else if (std::size_t const width = space_width_at(text_, pos_); width > 0) {
            pos_ += width;
        } else {
            return true;
        }
    }
    return true;
}

bool json_cursor::skip_comment()
{
    source_position const start = position();
    bool const block = text_[pos_ + 1] == '*';
    pos_ += 2;
    while (!at_end()) {
        char const c = text_[pos_];
        if (c == '\n' || c == '\r') {
            if (!block) return true;
            start_line(c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n' ? 2 : 1);
        } else if (block && c == '*' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
            pos_ += 2;
            return true;
        } else {
            ++pos_;
        }
    }
    if (!block) return true;
    return fail_at(start, "expected '*/' to close this comment, found end of input");
}

bool json_cursor::at_identifier_start() const noexcept
{
    if (at_end()) return false;
    char const c = text_[pos_];
    if (c >= '0' && c <= '9') return false;
    return is_ascii_identifier_char(c)
        || (static_cast<unsigned char>(c) >= 0x80 && space_width_at(text_, pos_) == 0);
}

// The identifier-like run of bytes starting at `at` (ASCII letters, digits, `_`, `$` and
// non-ASCII characters other than spaces).
std::string_view json_cursor::word_at(std::size_t at) const noexcept
{
    std::size_t end = at;
    while (end < text_.size()) {
        char const c = text_[end];
        if (is_ascii_identifier_char(c) || is_continuation(c)) {
            ++end;
        } else if (static_cast<unsigned char>(c) >= 0xC0 && space_width_at(text_, end) == 0) {
            ++end;
        } else {
            break;
        }
    }
    return text_.substr(at, end - at);
}

std::string json_cursor::describe_here() const
{
    if (at_end()) return "end of input";
    char const c = text_[pos_];
    if (c == '"' || c == '\'') return "a string";
    if (c >= '0' && c <= '9') return "a number";
    if (c == '\n' || c == '\r') return "end of line";
    std::string out = "'";
    if (at_identifier_start()) {
        std::string_view word = word_at(pos_);
        if (word.size() > 32) {
            std::size_t cut = 32;
            while (is_continuation(word[cut])) --cut;
            word = word.substr(0, cut);
            out.append(word).append("...'");
            return out;
        }
        out.append(word);
    } else if (auto const u = static_cast<unsigned char>(c); u < 0x20 || u == 0x7F) {
        static constexpr char hex[] = "0123456789ABCDEF";
        out = "control character U+00";
        out += hex[u >> 4];
        out += hex[u & 0xF];
        return out;
    } else {
        out += c;
    }
    out += '\'';
    return out;
}

bool json_cursor::fail_expected(std::string_view what)
{
    std::string message = "expected ";
    message += what;
    message += ", found ";
    message += describe_here();
    return fail_at(position(), message);
}

bool json_cursor::fail_at(source_position where, std::string_view message)
{
    error_ = error{std::string(origin_) + ":" + std::to_string(where.line) + ":"
                   + std::to_string(where.column) + ": " + std::string(message)};
    return false;
}

void append_utf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::size_t find_invalid_utf8(std::string_view text) noexcept
{
    std::size_t i = 0;
    while (i < text.size()) {
        auto const b = static_cast<unsigned char>(text[i]);
        if (b < 0x80) {
            ++i;
            continue;
        }
        std::size_t length = 0;
        std::uint32_t cp = 0, minimum = 0;
        if ((b & 0xE0) == 0xC0) {
            length = 2, cp = b & 0x1F, minimum = 0x80;
        } else if ((b & 0xF0) == 0xE0) {
            length = 3, cp = b & 0x0F, minimum = 0x800;
        } else if ((b & 0xF8) == 0xF0) {
            length = 4, cp = b & 0x07, minimum = 0x10000;
        } else {
            return i;
        }
        if (i + length > text.size()) return i;
        for (std::size_t k = 1; k < length; ++k) {
            if (!is_continuation(text[i + k])) return i;
            cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
        }
        if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += length;
    }
    return std::string_view::npos;
}

}  // namespace torcrun::core::detail
