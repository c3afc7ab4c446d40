// The JSON reader's lexer: positions, white space, comments and error messages, then the scalar
// tokens: strings (with the JSON5 escapes), identifier keys, numbers (decimal, hexadecimal,
// Infinity, NaN) and the literal words.
#include "json_cursor.hpp"

#include <boost/json/parse.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
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

int hex_value(char c) noexcept
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// Byte length of the UTF-8 sequence led by `c` (the text is known to be valid UTF-8).
std::size_t sequence_length(char c) noexcept
{
    auto const b = static_cast<unsigned char>(c);
    return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

// Applies the sign to an integer magnitude the way Boost.JSON does: int64 when it fits, uint64
// for large positives, double beyond.
boost::json::value signed_integer(std::uint64_t magnitude, bool negative)
{
    if (!negative && magnitude <= INT64_MAX) return static_cast<std::int64_t>(magnitude);
    if (!negative) return magnitude;
    if (magnitude <= std::uint64_t{1} << 63) return static_cast<std::int64_t>(0 - magnitude);
    return -static_cast<double>(magnitude);
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

bool json_cursor::read_string(std::string& out)
{
    source_position const start = position();
    char const quote = text_[pos_++];
    out.clear();
    for (;;) {
        std::size_t const chunk = pos_;
        while (!at_end()) {
            char const c = text_[pos_];
            if (c == quote || c == '\\' || c == '\n' || c == '\r') break;
            ++pos_;
        }
        out.append(text_.substr(chunk, pos_ - chunk));
        char const c = peek();
        if (c == quote) {
            ++pos_;
            return true;
        }
        if (c != '\\') {
            std::string message = "expected ";
            message += quote == '"' ? "'\"'" : "\"'\"";
            message += " to close this string, found ";
            message += at_end() ? "end of input" : "end of line";
            return fail_at(start, message);
        }
        if (!read_escape(out, start)) return false;
    }
}

bool json_cursor::read_escape(std::string& out, source_position string_start)
{
    ++pos_;  // the backslash
    if (at_end()) return fail_at(string_start, "expected a closing quote, found end of input");
    char const c = text_[pos_];
    switch (c) {
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'v': out += '\v'; break;
        case 'x': {
            std::uint32_t cp = 0;
            if (!read_hex_digits(2, cp)) return false;
            append_utf8(out, cp);
            return true;
        }
        case 'u': return read_unicode_escape(out);
        case '\n': start_line(1); return true;
        case '\r': start_line(peek_at(pos_ + 1) == '\n' ? 2 : 1); return true;
        case '0':
            if (!is_digit(peek_at(pos_ + 1))) {
                out += '\0';
                break;
            }
            [[fallthrough]];
        case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9': {
            --pos_;
            std::size_t const length = c == '0' ? 3 : 2;
            return fail_at(position(), "invalid escape '" + std::string(text_.substr(pos_, length))
                                           + "' (octal escapes are not allowed)");
        }
        default: {
            // U+2028 and U+2029 continue the line; any other character stands for itself.
            std::size_t const length = sequence_length(c);
            std::string_view const sequence = text_.substr(pos_, length);
            if (sequence != "\xE2\x80\xA8" && sequence != "\xE2\x80\xA9") out += sequence;
            pos_ += length;
            return true;
        }
    }
    ++pos_;
    return true;
}

// The `digits` hex digits after the 'x' or 'u' the cursor is on; the cursor ends after them.
bool json_cursor::read_hex_digits(std::size_t digits, std::uint32_t& cp)
{
    cp = 0;
    std::size_t const first = pos_ + 1;
    for (std::size_t i = 0; i < digits; ++i) {
        int const v = hex_value(peek_at(first + i));
        if (v < 0) {
            std::size_t shown = 0;
            while (shown < digits && first + shown < text_.size()
                && std::string_view("\"'\\\r\n").find(text_[first + shown])
                    == std::string_view::npos) {
                ++shown;
            }
            --pos_;
            return fail_at(position(),
                "invalid escape '" + std::string(text_.substr(pos_, 2 + shown)) + "' (expected "
                    + std::to_string(digits) + " hex digits)");
        }
        cp = cp * 16 + static_cast<std::uint32_t>(v);
    }
    pos_ = first + digits;
    return true;
}

bool json_cursor::read_unicode_escape(std::string& out)
{
    std::size_t const backslash = pos_ - 1;
    std::uint32_t cp = 0;
    if (!read_hex_digits(4, cp)) return false;
    auto const fail_surrogate = [&](std::string_view why) {
        pos_ = backslash;
        return fail_at(position(), "invalid escape '" + std::string(text_.substr(backslash, 6))
                                       + "' (" + std::string(why) + ")");
    };
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return fail_surrogate("a low surrogate must follow a high surrogate");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        std::uint32_t low = 0;
        if (peek() != '\\' || peek_at(pos_ + 1) != 'u') {
            return fail_surrogate("a high surrogate must be followed by a low surrogate");
        }
        ++pos_;
        if (!read_hex_digits(4, low)) return false;
        if (low < 0xDC00 || low > 0xDFFF) {
            return fail_surrogate("a high surrogate must be followed by a low surrogate");
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(out, cp);
    return true;
}

bool json_cursor::read_identifier(std::string& out)
{
    std::string_view const word = word_at(pos_);
    out.assign(word);
    pos_ += word.size();
    return true;
}

bool json_cursor::read_word(boost::json::value& out)
{
    std::string_view const word = word_at(pos_);
    if (word == "null") out = nullptr;
    else if (word == "true") out = true;
    else if (word == "false") out = false;
    else if (word == "Infinity") out = std::numeric_limits<double>::infinity();
    else if (word == "NaN") out = std::numeric_limits<double>::quiet_NaN();
    else return fail_expected("a value");
    pos_ += word.size();
    return true;
}

bool json_cursor::read_number(boost::json::value& out)
{
    std::size_t const start = pos_;
    char const sign = peek();
    bool const negative = sign == '-';
    if (sign == '-' || sign == '+') ++pos_;
    char const c = peek();
    if (c == 'I' || c == 'N') {
        std::string_view const word = word_at(pos_);
        if (word != "Infinity" && word != "NaN") {
            return fail_expected(std::string("a digit after '") + sign + "'");
        }
        pos_ += word.size();
        double const v = word == "NaN" ? std::numeric_limits<double>::quiet_NaN()
                                       : std::numeric_limits<double>::infinity();
        out = negative ? -v : v;
        return true;
    }
    if (c == '0' && (peek_at(pos_ + 1) == 'x' || peek_at(pos_ + 1) == 'X')) {
        pos_ += 2;
        return read_hex_number(out, negative);
    }
    return read_decimal(out, start, negative);
}

bool json_cursor::read_hex_number(boost::json::value& out, bool negative)
{
    if (hex_value(peek()) < 0) return fail_expected("a hex digit after '0x'");
    std::uint64_t magnitude = 0;
    double approximate = 0;
    bool overflow = false;
    for (int v = hex_value(peek()); v >= 0; v = hex_value(peek())) {
        overflow = overflow || magnitude > (std::numeric_limits<std::uint64_t>::max() >> 4);
        magnitude = (magnitude << 4) | static_cast<std::uint64_t>(v);
        approximate = approximate * 16 + v;
        ++pos_;
    }
    out = overflow ? boost::json::value(negative ? -approximate : approximate)
                   : signed_integer(magnitude, negative);
    return true;
}

bool json_cursor::read_decimal(boost::json::value& out, std::size_t start, bool negative)
{
    std::size_t const digits_start = pos_;
    std::size_t int_digits = 0, fraction_digits = 0;
    for (; is_digit(peek()); ++pos_) ++int_digits;
    if (int_digits > 1 && text_[digits_start] == '0') {
        std::string_view const number = text_.substr(start, pos_ - start);
        pos_ = start;
        return fail_at(position(), "invalid number '" + std::string(number)
                                       + "' (leading zeros are not allowed)");
    }
    bool integer = true;
    if (peek() == '.') {
        integer = false;
        for (++pos_; is_digit(peek()); ++pos_) ++fraction_digits;
    }
    if (int_digits == 0 && fraction_digits == 0) {
        if (integer) return fail_expected(std::string("a digit after '") + text_[start] + "'");
        return fail_expected("a digit after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
        integer = false;
        ++pos_;
        if (peek() == '+' || peek() == '-') ++pos_;
        if (!is_digit(peek())) return fail_expected("a digit in the exponent");
        while (is_digit(peek())) ++pos_;
    }
    std::string_view const digits = text_.substr(digits_start, pos_ - digits_start);
    char const* const last = digits.data() + digits.size();
    if (integer) {
        std::uint64_t magnitude = 0;
        if (std::from_chars(digits.data(), last, magnitude).ec == std::errc{}) {
            out = signed_integer(magnitude, negative);
            return true;
        }
    }
    double v = 0;
    if (std::from_chars(digits.data(), last, v).ec == std::errc::result_out_of_range) {
        // Overflow reads as infinity and underflow as zero, as in Boost.JSON, which decides.
        std::string normalized = digits.starts_with('.') ? "0" : "";
        for (std::size_t i = 0; i < digits.size(); ++i) {
            normalized += digits[i];
            if (digits[i] == '.' && (i + 1 == digits.size() || !is_digit(digits[i + 1]))) {
                normalized += '0';
            }
        }
        // Boost.JSON refuses an exponent beyond its own range ("exponent overflow"): an error
        // at the number, never an exception (found by fuzzing).
        boost::system::error_code ec;
        auto const parsed = boost::json::parse(normalized, ec);
        if (ec) {
            std::string_view const number = text_.substr(start, pos_ - start);
            pos_ = start;
            return fail_at(position(), "invalid number '" + std::string(number)
                                           + "' (its exponent is out of range)");
        }
        v = parsed.to_number<double>();
    }
    out = negative ? -v : v;
    return true;
}

}  // namespace torcrun::core::detail
