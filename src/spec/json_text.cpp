// serde_json-compatible compact JSON text (see json_text.hpp for why the bytes matter).
#include "json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

namespace torcrun::core::spec {

namespace {

void append_string(std::string& out, std::string_view text)
{
    static constexpr char hex[] = "0123456789abcdef";
    out.push_back('"');
    for (char const c : text) {
        auto const b = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        default:
            if (b < 0x20) {
                out.append("\\u00").push_back(hex[b >> 4]);
                out.push_back(hex[b & 0xF]);
            } else {
                out.push_back(c);
            }
        }
    }
    out.push_back('"');
}

void append_value(std::string& out, boost::json::value const& value, bool sort_keys);

void append_object(std::string& out, boost::json::object const& object, bool sort_keys)
{
    std::vector<boost::json::key_value_pair const*> members;
    members.reserve(object.size());
    for (auto const& member : object) members.push_back(&member);
    if (sort_keys) {
        // std::string_view compares through char_traits<char>, which orders as unsigned char:
        // the bytewise order of Rust's String.
        std::sort(members.begin(), members.end(),
                  [](auto const* a, auto const* b) { return a->key() < b->key(); });
    }
    out.push_back('{');
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (i) out.push_back(',');
        append_string(out, members[i]->key());
        out.push_back(':');
        append_value(out, members[i]->value(), sort_keys);
    }
    out.push_back('}');
}

void append_value(std::string& out, boost::json::value const& value, bool sort_keys)
{
    switch (value.kind()) {
    case boost::json::kind::null: out.append("null"); break;
    case boost::json::kind::bool_: out.append(value.get_bool() ? "true" : "false"); break;
    case boost::json::kind::int64: out.append(std::to_string(value.get_int64())); break;
    case boost::json::kind::uint64: out.append(std::to_string(value.get_uint64())); break;
    case boost::json::kind::double_: out.append(json_float_text(value.get_double())); break;
    case boost::json::kind::string: append_string(out, value.get_string()); break;
    case boost::json::kind::array: {
        out.push_back('[');
        bool first = true;
        for (auto const& element : value.get_array()) {
            if (!first) out.push_back(',');
            first = false;
            append_value(out, element, sort_keys);
        }
        out.push_back(']');
        break;
    }
    case boost::json::kind::object: append_object(out, value.get_object(), sort_keys); break;
    }
}

}  // namespace

std::string json_float_text(double value)
{
    if (!std::isfinite(value)) return "null";
    if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
    // The shortest round-trip digits and exponent, laid out by ryu's rules.
    char buffer[64];
    auto const [end, ec] =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    std::string_view const text(buffer, static_cast<std::size_t>(end - buffer));
    bool const negative = text.front() == '-';
    auto const e = text.find('e');
    std::string digits;
    for (char c : text.substr(negative ? 1 : 0, e - (negative ? 1 : 0)))
        if (c != '.') digits.push_back(c);
    int exp10 = 0;
    std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                    exp10);
    int const length = static_cast<int>(digits.size());
    int const kk = exp10 + 1;  // 10^(kk-1) <= |value| < 10^kk
    std::string out = negative ? "-" : "";
    if (length <= kk && kk <= 16) {
        out.append(digits).append(static_cast<std::size_t>(kk - length), '0').append(".0");
    } else if (0 < kk && kk <= 16) {
        out.append(digits, 0, static_cast<std::size_t>(kk)).append(".").append(digits, kk);
    } else if (-5 < kk && kk <= 0) {
        out.append("0.").append(static_cast<std::size_t>(-kk), '0').append(digits);
    } else {
        out.push_back(digits[0]);
        if (length > 1) out.append(".").append(digits, 1);
        out.append("e").append(std::to_string(kk - 1));
    }
    return out;
}

std::string compact_json(boost::json::value const& value, bool sort_keys)
{
    std::string out;
    append_value(out, value, sort_keys);
    return out;
}

std::string describe_value(boost::json::value const& value, std::size_t limit)
{
    std::string text = compact_json(value, false);
    if (text.size() <= limit) return text;
    std::size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
    return text + "...";
}

}  // namespace torcrun::core::spec
