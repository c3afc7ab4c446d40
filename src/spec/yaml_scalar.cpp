// serde_yaml 0.9's scalar resolution (`visit_untagged_str` and the core-schema tags), over
// the Rust number parsers in rust_text.
#include "yaml_scalar.hpp"

#include "message_text.hpp"
#include "torcrun/spec/rust_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace torcrun::core::spec::detail {

namespace {

constexpr std::string_view core_tag = "tag:yaml.org,2002:";

// Digits only (no sign), non-empty, all consumed.
std::optional<std::uint64_t> parse_digits(std::string_view digits, int base)
{
    std::uint64_t value = 0;
    auto const [end, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

boost::json::value unsigned_value(std::uint64_t v)
{
    if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return static_cast<std::int64_t>(v);
    return v;
}

// 0x, 0o and 0b integers, with an optional `+` or `-` before the prefix.
std::optional<boost::json::value> prefixed_integer(std::string_view v)
{
    bool const negative = v.starts_with('-');
    std::string_view rest = (negative || v.starts_with('+')) ? v.substr(1) : v;
    if (rest.size() < 2 || rest[0] != '0') return std::nullopt;
    int const base = rest[1] == 'x' ? 16 : rest[1] == 'o' ? 8 : rest[1] == 'b' ? 2 : 0;
    if (base == 0) return std::nullopt;
    rest.remove_prefix(2);
    // u64::from_str_radix takes one '+' of its own ("0x+1F"); the negative form builds
    // "-" + rest for i64::from_str_radix, which then takes no second sign.
    if (!negative && rest.starts_with('+')) rest.remove_prefix(1);
    auto const magnitude = parse_digits(rest, base);
    if (!magnitude) return std::nullopt;
    if (!negative) return unsigned_value(*magnitude);
    if (*magnitude > std::uint64_t{1} << 63) return std::nullopt;
    return static_cast<std::int64_t>(0 - *magnitude);
}

bool leading_zero_digits(std::string_view v)
{
    while (!v.empty() && (v.front() == '-' || v.front() == '+')) v.remove_prefix(1);
    if (v.size() < 2 || v.front() != '0') return false;
    for (char c : v.substr(1))
        if (c < '0' || c > '9') return false;
    return true;
}

boost::json::value float_value(double v)
{
    if (!std::isfinite(v)) return nullptr;  // serde_json's Value has no NaN or infinity
    return v;
}

result<boost::json::value> plain_value(std::string_view v)
{
    if (v.empty() || v == "~" || v == "null") return boost::json::value(nullptr);
    if (v == "true" || v == "false") return boost::json::value(v == "true");
    if (auto prefixed = prefixed_integer(v)) return *prefixed;
    if (leading_zero_digits(v)) return boost::json::value(v);
    if (auto u = rust::parse_usize(v)) return unsigned_value(*u);
    if (auto i = rust::parse_i64(v)) return boost::json::value(*i);
    // Rust's u128 and i128 parse these; a serde_json value cannot hold them.
    std::string_view digits = v;
    if (digits.starts_with('+') || digits.starts_with('-')) digits.remove_prefix(1);
    if (!digits.empty() && digits.find_first_not_of("0123456789") == digits.npos)
        return error{concat({"the integer ", v, " does not fit in 64 bits"})};
    std::string_view unplussed = v;
    while (!unplussed.empty() && unplussed.front() == '+') unplussed.remove_prefix(1);
    if (unplussed == ".inf" || unplussed == ".Inf" || unplussed == ".INF" || v == "-.inf"
        || v == "-.Inf" || v == "-.INF" || v == ".nan" || v == ".NaN" || v == ".NAN")
        return boost::json::value(nullptr);
    if (auto f = rust::parse_f64(v); f && std::isfinite(*f)) return boost::json::value(*f);
    return boost::json::value(v);
}

result<boost::json::value> tagged_value(std::string_view type, std::string_view v)
{
    auto const invalid = [&](std::string_view expected) {
        return error{concat({"!!", type, " ", quoted(v), " is not ", expected})};
    };
    if (type == "bool") {
        if (v == "true" || v == "false") return boost::json::value(v == "true");
        return invalid("a boolean");
    }
    if (type == "int") {
        if (auto i = rust::parse_i64(v)) return boost::json::value(*i);
        return invalid("an integer");
    }
    if (type == "float") {
        if (auto f = rust::parse_f64(v)) return float_value(*f);
        return invalid("a float");
    }
    if (type == "null") {
        if (v == "~" || v == "null") return boost::json::value(nullptr);
        return invalid("null");
    }
    return boost::json::value(v);
}

}  // namespace

result<boost::json::value> yaml_scalar_value(std::string_view tag, std::string_view text)
{
    if (tag == "?") return plain_value(text);
    if (tag.substr(0, core_tag.size()) == core_tag)
        return tagged_value(tag.substr(core_tag.size()), text);
    return boost::json::value(text);  // "!" (quoted or block) and any other tag: a string
}

}  // namespace torcrun::core::spec::detail
