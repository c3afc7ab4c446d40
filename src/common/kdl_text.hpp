// KDL 2.0's text rules, for the KDL reader (private to src/common): its character classes (white
// space, line breaks, identifier characters, the code points a document may not hold), UTF-8
// decoding of well-formed text, the number grammars, and the whitespace escapes a multi-line
// string resolves before it is dedented.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::core::detail::kdl {

std::string concat(std::initializer_list<std::string_view> parts);

// One code point at `at` of well-formed UTF-8 (checked before parsing) and its width; {0, 0} at
// the end.
struct code_point {
    std::uint32_t value = 0;
    std::size_t width = 0;
};
code_point decode(std::string_view text, std::size_t at);

bool is_space(std::uint32_t c);    // unicode-space: tab, space and the Zs spaces
bool is_newline(std::uint32_t c);  // CR, LF, VT, FF, NEL, LS, PS
bool is_disallowed(std::uint32_t c);
bool is_identifier_char(std::uint32_t c);
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
std::string hex_of(std::uint32_t cp);  // "U+00A0"

// The width of the line break at `at` of `s` (CRLF counts as one), or 0.
std::size_t line_break_width(std::string_view s, std::size_t at);

// `raw` with its whitespace escapes (a '\\' and all the white space and line breaks after it)
// removed; other escapes stay for the unescaping that follows the dedent.
std::string without_whitespace_escapes(std::string_view raw);

// The digits of a 0x/0o/0b body (after the prefix) without its `_`s, or nullopt.
std::optional<std::string> radix_digits(std::string_view body, int base);

// A decimal body, `integer ('.' integer)? (('e' | 'E') sign? integer)?` with each integer a digit
// then digits and `_`s, as strtod's text without the `_`s; nullopt when malformed.
std::optional<std::string> decimal_digits(std::string_view body, bool& is_float);

}  // namespace torcrun::core::detail::kdl
