// KDL 2.0's text rules (kdl_text.hpp): character classes, UTF-8 decoding, number grammars and
// whitespace escapes.
#include "kdl_text.hpp"

namespace torcrun::core::detail::kdl {

std::string concat(std::initializer_list<std::string_view> parts)
{
    std::string out;
    for (auto const part : parts) out.append(part);
    return out;
}

code_point decode(std::string_view text, std::size_t at)
{
    if (at >= text.size()) return {};
    auto const b = static_cast<unsigned char>(text[at]);
    if (b < 0x80) return {b, 1};
    std::size_t const width = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    std::uint32_t cp = b & (width == 4 ? 0x07 : width == 3 ? 0x0F : 0x1F);
    for (std::size_t k = 1; k < width && at + k < text.size(); ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[at + k]) & 0x3F);
    return {cp, width};
}

bool is_space(std::uint32_t c)
{
    return c == 0x09 || c == 0x20 || c == 0xA0 || c == 0x1680
        || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_newline(std::uint32_t c)
{
    return c == 0x0A || c == 0x0B || c == 0x0D || c == 0x85 || c == 0x0C || c == 0x2028
        || c == 0x2029;
}

std::size_t line_break_width(std::string_view s, std::size_t at)
{
    if (at >= s.size()) return 0;
    if (s[at] == '\r') return at + 1 < s.size() && s[at + 1] == '\n' ? 2 : 1;
    auto const cp = decode(s, at);
    return is_newline(cp.value) ? cp.width : 0;
}

std::string without_whitespace_escapes(std::string_view raw)
{
    std::string out;
    for (std::size_t k = 0; k < raw.size();) {
        if (raw[k] != '\\') {
            out += raw[k++];
            continue;
        }
        std::size_t next = k + 1;
        while (next < raw.size()) {
            auto const cp = decode(raw, next);
            if (!is_space(cp.value) && !is_newline(cp.value)) break;
            next += cp.width;
        }
        if (next > k + 1) {
            k = next;
        } else {
            out += raw[k++];
            if (k < raw.size()) out += raw[k++];  // the escaped character stays escaped
        }
    }
    return out;
}

bool is_disallowed(std::uint32_t c)
{
    return c <= 0x08 || (c >= 0x0E && c <= 0x1F) || c == 0x7F || (c >= 0xD800 && c <= 0xDFFF)
        || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E)
        || (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF;
}

bool is_identifier_char(std::uint32_t c)
{
    if (c == 0 || is_space(c) || is_newline(c) || is_disallowed(c)) return false;
    switch (c) {
    case '\\': case '/': case '(': case ')': case '{': case '}': case ';': case '[': case ']':
    case '"': case '#': case '=': return false;
    default: return true;
    }
}

std::string hex_of(std::uint32_t cp)
{
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (int shift = cp > 0xFFFF ? 20 : 12; shift >= 0; shift -= 4)
        out += digits[(cp >> shift) & 0xF];
    return "U+" + out;
}

std::optional<std::string> radix_digits(std::string_view body, int base)
{
    if (body.empty() || body.front() == '_') return std::nullopt;
    std::string digits;
    for (char ch : body) {
        if (ch == '_') continue;
        int const d = is_digit(ch)               ? ch - '0'
                      : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10
                      : (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10
                                                 : 99;
        if (d >= base) return std::nullopt;
        digits += ch;
    }
    return digits;
}

std::optional<std::string> decimal_digits(std::string_view body, bool& is_float)
{
    std::string digits;
    std::size_t k = 0;
    auto const integer = [&] {
        if (k >= body.size() || !is_digit(body[k])) return false;
        for (; k < body.size() && (is_digit(body[k]) || body[k] == '_'); ++k)
            if (body[k] != '_') digits += body[k];
        return true;
    };
    if (!integer()) return std::nullopt;
    if (k < body.size() && body[k] == '.') {
        digits += body[k++];
        is_float = true;
        if (!integer()) return std::nullopt;
    }
    if (k < body.size() && (body[k] == 'e' || body[k] == 'E')) {
        digits += body[k++];
        is_float = true;
        if (k < body.size() && (body[k] == '+' || body[k] == '-')) digits += body[k++];
        if (!integer()) return std::nullopt;
    }
    if (k != body.size()) return std::nullopt;
    return digits;
}

}  // namespace torcrun::core::detail::kdl
