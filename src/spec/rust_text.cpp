// Rust's text conventions as Torc 0.10 sees them (see the header). The C++ library does the
// digit work (std::from_chars / std::to_chars are correctly rounded); this file supplies the
// grammar and the spellings where Rust and C++ differ: a leading `+`, `inf`/`NaN`, overflow to
// infinity instead of an error, and Unicode blanks for trim.
#include "torcrun/spec/rust_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace torcrun::core::spec::rust {

namespace {

struct decoded {
    char32_t code_point;
    std::size_t length;
};

// One UTF-8 sequence at the start of `text`; overlong forms count as malformed so that no
// byte sequence other than the real one decodes to a blank.
std::optional<decoded> decode_first(std::string_view text)
{
    if (text.empty()) return std::nullopt;
    auto const lead = static_cast<unsigned char>(text[0]);
    if (lead < 0x80) return decoded{lead, 1};
    // Lead byte ranges of well-formed 2-, 3- and 4-byte sequences (C0, C1, F5-FF never occur).
    struct form {
        unsigned char first, last, payload_mask;
        std::size_t length;
        char32_t minimum;
    };
    static constexpr std::array<form, 3> forms{{{0xC2, 0xDF, 0x1F, 2, 0x80},
                                                {0xE0, 0xEF, 0x0F, 3, 0x800},
                                                {0xF0, 0xF4, 0x07, 4, 0x10000}}};
    auto const it = std::find_if(forms.begin(), forms.end(),
                                 [&](form const& f) { return lead >= f.first && lead <= f.last; });
    if (it == forms.end()) return std::nullopt;
    std::size_t const length = it->length;
    char32_t const minimum = it->minimum;
    char32_t cp = lead & it->payload_mask;
    if (text.size() < length) return std::nullopt;
    for (std::size_t i = 1; i < length; ++i) {
        auto const byte = static_cast<unsigned char>(text[i]);
        if ((byte & 0xC0) != 0x80) return std::nullopt;
        cp = (cp << 6) | (byte & 0x3F);
    }
    if (cp < minimum) return std::nullopt;
    return decoded{cp, length};
}

bool is_white_space(char32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool equals_ignoring_case(std::string_view text, std::string_view lower)
{
    return std::equal(text.begin(), text.end(), lower.begin(), lower.end(), [](char a, char b) {
        return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
    });
}

std::size_t count_digits(std::string_view text, std::size_t from)
{
    std::size_t n = 0;
    while (from + n < text.size() && is_digit(text[from + n])) ++n;
    return n;
}

// Rust's `Number ::= (Digit+ | Digit+ '.' Digit* | Digit* '.' Digit+) Exp?`, no sign.
bool is_decimal(std::string_view text)
{
    std::size_t pos = count_digits(text, 0);
    std::size_t mantissa_digits = pos;
    if (pos < text.size() && text[pos] == '.') {
        std::size_t const fraction = count_digits(text, pos + 1);
        mantissa_digits += fraction;
        pos += 1 + fraction;
    }
    if (mantissa_digits == 0) return false;
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
        ++pos;
        if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
        std::size_t const exponent = count_digits(text, pos);
        if (exponent == 0) return false;
        pos += exponent;
    }
    return pos == text.size();
}

// For a decimal that from_chars reports out of range: true when it is too large (Rust gives
// infinity), false when too small (Rust gives zero). Uses the position of the first non-zero
// digit plus the exponent, which is far from the boundary in every out-of-range case.
bool is_too_large(std::string_view decimal)
{
    auto const e_pos = decimal.find_first_of("eE");
    std::string_view const mantissa = decimal.substr(0, e_pos);
    long long exponent = 0;
    if (e_pos != std::string_view::npos) {
        std::string_view digits = decimal.substr(e_pos + 1);
        bool const negative = digits.front() == '-';
        if (digits.front() == '+' || digits.front() == '-') digits.remove_prefix(1);
        for (char c : digits) exponent = std::min(exponent * 10 + (c - '0'), 1'000'000'000LL);
        if (negative) exponent = -exponent;
    }
    auto const dot = mantissa.find('.');
    std::string_view const whole = mantissa.substr(0, dot);
    std::string_view const fraction =
        dot == std::string_view::npos ? std::string_view{} : mantissa.substr(dot + 1);
    long long magnitude = 0;
    if (auto const nz = whole.find_first_not_of('0'); nz != std::string_view::npos) {
        magnitude = static_cast<long long>(whole.size() - nz);
    } else {
        auto const fz = fraction.find_first_not_of('0');
        if (fz == std::string_view::npos) return false;
        magnitude = -static_cast<long long>(fz);
    }
    return magnitude + exponent > 0;
}

template <class Int>
std::optional<Int> parse_integer(std::string_view text)
{
    // from_chars takes no `+`; Rust does, but only directly before a digit ("+-1" is invalid).
    if (text.size() >= 2 && text[0] == '+' && is_digit(text[1])) text.remove_prefix(1);
    Int value{};
    auto const end = text.data() + text.size();
    auto const [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end) return std::nullopt;
    return value;
}

}  // namespace

std::string_view trim(std::string_view text)
{
    while (auto d = decode_first(text)) {
        if (!is_white_space(d->code_point)) break;
        text.remove_prefix(d->length);
    }
    while (!text.empty()) {
        std::size_t start = text.size() - 1;
        while (start > 0 && text.size() - start < 4 &&
               (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
            --start;
        auto const d = decode_first(text.substr(start));
        if (!d || d->length != text.size() - start || !is_white_space(d->code_point)) break;
        text.remove_suffix(d->length);
    }
    return text;
}

std::optional<std::int64_t> parse_i64(std::string_view text)
{
    return parse_integer<std::int64_t>(text);
}

std::optional<std::uint64_t> parse_usize(std::string_view text)
{
    return parse_integer<std::uint64_t>(text);
}

std::optional<double> parse_f64(std::string_view text)
{
    bool negative = false;
    if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
        negative = text[0] == '-';
        text.remove_prefix(1);
    }
    double value = 0.0;
    if (equals_ignoring_case(text, "inf") || equals_ignoring_case(text, "infinity")) {
        value = std::numeric_limits<double>::infinity();
    } else if (equals_ignoring_case(text, "nan")) {
        value = std::numeric_limits<double>::quiet_NaN();
    } else if (is_decimal(text)) {
        auto const end = text.data() + text.size();
        auto const [ptr, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc::result_out_of_range) {
            value = is_too_large(text) ? std::numeric_limits<double>::infinity() : 0.0;
        } else if (ec != std::errc{} || ptr != end) {
            return std::nullopt;
        }
    } else {
        return std::nullopt;
    }
    return negative ? -value : value;
}

std::string display_f64(double value)
{
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    // Rust prints the shortest round-trip digits and pads with zeros; to_chars' fixed form
    // would print the exact value of large doubles instead (1e23 -> 99999999999999991611392).
    // So take the shortest digits in scientific form ("-1.25e+02") and place the point.
    std::array<char, 64> buffer{};
    auto const [ptr, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                         std::chars_format::scientific);
    std::string_view const sci(buffer.data(), ec == std::errc{} ? ptr - buffer.data() : 0);
    auto const e_pos = sci.find('e');
    std::string_view mantissa = sci.substr(0, e_pos);
    std::string out;
    if (!mantissa.empty() && mantissa.front() == '-') {
        out = "-";
        mantissa.remove_prefix(1);
    }
    std::string digits;
    for (char c : mantissa) {
        if (c != '.') digits += c;
    }
    int exponent = 0;
    std::string_view exp_text = sci.substr(e_pos + 1);
    if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
    std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);
    // Digits before the point; the digit string is never empty.
    long const point = static_cast<long>(exponent) + 1;
    auto const n = static_cast<long>(digits.size());
    if (point <= 0) return out.append("0.").append(static_cast<std::size_t>(-point), '0') + digits;
    if (point >= n) return (out + digits).append(static_cast<std::size_t>(point - n), '0');
    return out.append(digits, 0, static_cast<std::size_t>(point))
        .append(".")
        .append(digits, static_cast<std::size_t>(point));
}

std::string fixed_f64(double value, std::size_t precision)
{
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
    // Sign, up to 309 integer digits, the point and the decimals.
    std::string out(precision + 320, '\0');
    auto const [ptr, ec] = std::to_chars(out.data(), out.data() + out.size(), value,
                                         std::chars_format::fixed, static_cast<int>(precision));
    out.resize(ec == std::errc{} ? static_cast<std::size_t>(ptr - out.data()) : 0);
    return out;
}

std::string zero_padded_i64(std::int64_t value, std::size_t width)
{
    std::string out = std::to_string(value);
    std::size_t const sign = value < 0 ? 1 : 0;
    if (out.size() < width) out.insert(sign, width - out.size(), '0');
    return out;
}

}  // namespace torcrun::core::spec::rust
