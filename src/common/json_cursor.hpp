// The JSON reader's lexer (private to src/common): a position in the text that knows its line and
// column, skips white space and comments, reads the scalar tokens and formats errors as
// "origin:line:col: message". The first error stops the reader; functions return false then.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/json_reader.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::core::detail {

class json_cursor {
public:
    json_cursor(std::string_view text, std::string_view origin);

    bool at_end() const noexcept { return pos_ >= text_.size(); }
    // The current byte; '\0' at the end (a NUL inside the text is never valid there either).
    char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }
    char peek_at(std::size_t at) const noexcept { return at < text_.size() ? text_[at] : '\0'; }
    void advance() noexcept { ++pos_; }
    // Moves forward to `offset`, counting the line breaks passed.
    void advance_to(std::size_t offset);

    // Where the current byte is. Amortised O(1): positions are asked for in text order.
    source_position position();

    // Skips white space and comments; false on an unterminated comment.
    bool skip_space();

    bool at_identifier_start() const noexcept;
    bool read_string(std::string& out);
    bool read_identifier(std::string& out);
    bool read_number(boost::json::value& out);
    // null, true, false, Infinity or NaN; anything else is "expected a value".
    bool read_word(boost::json::value& out);

    // Failure helpers: they record the error and return false.
    bool fail_expected(std::string_view what);  // "expected <what>, found <what is here>"
    bool fail_at(source_position where, std::string_view message);

    std::optional<error> const& failure() const noexcept { return error_; }

private:
    void start_line(std::size_t width);  // consumes a line break of `width` bytes
    bool skip_comment();
    std::string describe_here() const;
    std::string_view word_at(std::size_t at) const noexcept;
    bool read_escape(std::string& out, source_position string_start);
    bool read_hex_digits(std::size_t digits, std::uint32_t& cp);
    bool read_unicode_escape(std::string& out);
    bool read_decimal(boost::json::value& out, std::size_t start, bool negative);
    bool read_hex_number(boost::json::value& out, bool negative);

    std::string_view text_;
    std::string_view origin_;
    std::size_t pos_ = 0;
    std::uint32_t line_ = 1;
    std::size_t line_start_ = 0;
    std::size_t column_offset_ = 0;  // a byte offset on the current line ...
    std::uint32_t column_ = 1;       // ... and its column, the start of the next count
    std::optional<error> error_;
};

// Appends code point `cp` (at most U+10FFFF) as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);

// The offset of the first byte that is not part of well-formed UTF-8, or npos.
std::size_t find_invalid_utf8(std::string_view text) noexcept;

}  // namespace torcrun::core::detail
