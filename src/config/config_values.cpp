// Checking one file value against its rule: type, range, choices and the value formats
// (memory, signals, URLs, date-times, variable names, patterns, GPU ids, srun --signal). The
// result is the normalized value the member conversion expects.
#include "config_values.hpp"

#include "torcrun/common/date_time.hpp"
#include "torcrun/common/json_writer.hpp"
#include "torcrun/common/signal_names.hpp"
#include "torcrun/common/units.hpp"

#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>

#include <charconv>
#include <cmath>
#include <set>

namespace torcrun::core::detail {

namespace {

// A value as messages quote it: strings in JSON quotes, numbers in shortest form.
std::string show(boost::json::value const& v)
{
    if (v.is_double()) return format_number(v.get_double());
    return boost::json::serialize(v);
}

std::string quote(std::string_view s) { return boost::json::serialize(boost::json::string(s)); }

value_problem mismatch(value_rule const& rule, boost::json::value const& v)
{
    std::string const expected = type_name(rule);
    std::string const article = expected.starts_with("a") || expected.starts_with("i")
            || expected.starts_with("o")
        ? "an "
        : "a ";
    return problem(cat("expected ", article, expected, ", found ", describe_json(v)));
}

value_problem out_of_range(value_rule const& rule, boost::json::value const& v)
{
    return problem(show(v) + " is out of range (" + range_text(rule) + ")");
}

bool in_range(value_rule const& rule, double x) { return x >= rule.min && x <= rule.max; }

// Messages from the value parsers start with their own subject ("memory: "); the key path
// takes its place.
std::string without_subject(std::string message, std::string_view subject)
{
    if (message.starts_with(subject)) message.erase(0, subject.size());
    return message;
}

bool is_variable_name(std::string_view s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char const c : s) {
        bool const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || c == '_';
        if (!ok) return false;
    }
    return true;
}

checked_value check_integer(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_number()) return mismatch(rule, v);
    double const d = v.to_number<double>();
    if (v.is_double() && (!std::isfinite(d) || d != std::trunc(d))) {
        return problem(show(v) + " is not an integer");
    }
    if (!in_range(rule, d)) return out_of_range(rule, v);
    if (v.is_uint64()) return v;
    return v.is_int64() ? v : boost::json::value(static_cast<std::int64_t>(d));
}

checked_value check_number(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_number()) return mismatch(rule, v);
    double const d = v.to_number<double>();
    if (!std::isfinite(d)) return problem(show(v) + " is not a finite number");
    if (!in_range(rule, d)) return out_of_range(rule, v);
    return d;
}

checked_value check_choice(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_string()) return mismatch(rule, v);
    for (std::size_t i = 0; i < rule.choices.size(); ++i) {
        if (rule.choices[i] == v.get_string()) return static_cast<std::int64_t>(i);
    }
    return problem(show(v) + " is not one of " + range_text(rule));
}

checked_value check_memory(value_rule const& rule, boost::json::value const& v)
{
    std::uint64_t bytes = 0;
    if (v.is_string()) {
        auto const parsed = parse_memory(v.get_string());
        if (!parsed) return problem(without_subject(parsed.error().message, "memory: "));
        bytes = *parsed;
    } else if (v.is_int64() || v.is_uint64()) {
        if (v.is_int64() && v.get_int64() < 0) return out_of_range(rule, v);
        bytes = v.to_number<std::uint64_t>();
    } else if (v.is_double()) {
        return problem(show(v) + " is not an integer");
    } else {
        return mismatch(rule, v);
    }
    if (!in_range(rule, static_cast<double>(bytes))) return out_of_range(rule, v);
    return bytes;
}

checked_value check_signal(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_string() && !v.is_int64()) return mismatch(rule, v);
    auto const parsed =
        parse_signal(v.is_string() ? std::string(v.get_string()) : std::to_string(v.get_int64()));
    if (!parsed) return problem(without_subject(parsed.error().message, "signal: "));
    return static_cast<std::int64_t>(*parsed);
}

checked_value check_url(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_string()) return mismatch(rule, v);
    auto const url = boost::urls::parse_uri(std::string_view(v.get_string()));
    if (!url) return problem(show(v) + " is not a valid URL");
    if (url->scheme_id() != boost::urls::scheme::http
        && url->scheme_id() != boost::urls::scheme::https) {
        return problem(show(v) + " is not an http or https URL");
    }
    if (url->encoded_host().empty()) return problem(show(v) + " has no host");
    return v;
}

checked_value check_date_time(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_string()) {
        auto const parsed = parse_date_time(v.get_string());
        if (!parsed) return problem(without_subject(parsed.error().message, "date-time: "));
        return *parsed;
    }
    value_rule epoch = rule;
    epoch.kind = value_kind::number;
    epoch.min = 0;
    epoch.max = 253402300799;  // 9999-12-31T23:59:59Z
    if (!v.is_number()) return mismatch(rule, v);
    return check_number(epoch, v);
}

// One element of a list of strings: "" when it is fine, else what is wrong.
std::string element_problem(value_kind kind, boost::json::value const& e)
{
    if (!e.is_string()) return cat("expected a string, found ", describe_json(e));
    std::string_view const s = e.get_string();
    if (s.empty()) return "must not be empty";
    if (kind == value_kind::variable_names && !is_variable_name(s)) {
        return show(e) + " is not a valid variable name";
    }
    if (kind == value_kind::env_patterns
        && !is_variable_name(s.ends_with('*') ? s.substr(0, s.size() - 1) : s)) {
        return show(e) + " is not a variable name or a prefix ending in '*'";
    }
    if (kind == value_kind::gpu_ids && s.find_first_of(", \t\n\r") != std::string_view::npos) {
        return show(e) + " is not a GPU id (commas and white space are not allowed)";
    }
    return "";
}

checked_value check_list(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_array()) return mismatch(rule, v);
    std::set<std::string_view> seen;
    for (std::size_t i = 0; i < v.get_array().size(); ++i) {
        auto const& e = v.get_array()[i];
        std::string detail = element_problem(rule.kind, e);
        if (detail.empty() && rule.kind == value_kind::gpu_ids
            && !seen.insert(e.get_string()).second) {
            detail = show(e) + " is listed twice";
        }
        if (!detail.empty()) {
            std::string const index = std::to_string(i);
            return value_problem{detail, cat("/", index), cat("[", index, "]"), false};
        }
    }
    return v;
}

checked_value check_gpu_ids(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_array()) return check_list(rule, v);
    if (!v.is_int64()) return mismatch(rule, v);
    if (!in_range(rule, static_cast<double>(v.get_int64()))) return out_of_range(rule, v);
    boost::json::array ids;
    for (std::int64_t i = 0; i < v.get_int64(); ++i) ids.emplace_back(std::to_string(i));
    return ids;
}

checked_value check_variable_map(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_object()) return mismatch(rule, v);
    for (auto const& member : v.get_object()) {
        std::string const pointer = json_pointer_append("", member.key());
        if (!is_variable_name(member.key())) {
            return value_problem{quote(member.key()) + " is not a valid variable name", pointer,
                                 "", true};
        }
        if (!member.value().is_string()) {
            return value_problem{cat("expected a string, found ", describe_json(member.value())),
                                 pointer, cat(".", member.key()), false};
        }
    }
    return v;
}

// srun --signal=[R:|B:]SIGNAL[@SECONDS] (Slurm allows up to 65535 seconds).
checked_value check_srun_signal(value_rule const& rule, boost::json::value const& v)
{
    if (!v.is_string()) return mismatch(rule, v);
    std::string_view spec = v.get_string();
    for (std::string_view const prefix : {"R:", "B:", "RB:", "BR:"}) {
        if (spec.starts_with(prefix)) spec.remove_prefix(prefix.size());
    }
    std::string_view const name = spec.substr(0, spec.find('@'));
    bool ok = !name.empty() && name.find(':') == std::string_view::npos
        && parse_signal(name).has_value();
    if (ok && name.size() < spec.size()) {
        std::string_view const time = spec.substr(name.size() + 1);
        unsigned seconds = 0;
        auto const [end, ec] = std::from_chars(time.data(), time.data() + time.size(), seconds);
        ok = !time.empty() && ec == std::errc{} && end == time.data() + time.size()
            && seconds <= 65535;
    }
    if (!ok) {
        return problem(show(v) + " is not an srun signal ([R:|B:]SIGNAL[@SECONDS], like "
                                       "TERM@120)");
    }
    return v;
}

}  // namespace

checked_value check_value(value_rule const& rule, boost::json::value const& v)
{
    if (v.is_null()) {
        if (rule.nullable) return boost::json::value(nullptr);
        return mismatch(rule, v);
    }
    switch (rule.kind) {
        case value_kind::boolean: return v.is_bool() ? checked_value(v) : mismatch(rule, v);
        case value_kind::integer: return check_integer(rule, v);
        case value_kind::number: return check_number(rule, v);
        case value_kind::string:
            if (!v.is_string()) return mismatch(rule, v);
            if (v.get_string().empty()) return problem("must not be empty");
            return v;
        case value_kind::choice: return check_choice(rule, v);
        case value_kind::memory: return check_memory(rule, v);
        case value_kind::signal: return check_signal(rule, v);
        case value_kind::url: return check_url(rule, v);
        case value_kind::date_time: return check_date_time(rule, v);
        case value_kind::string_list:
        case value_kind::variable_names:
        case value_kind::env_patterns: return check_list(rule, v);
        case value_kind::variable_map: return check_variable_map(rule, v);
        case value_kind::gpu_ids: return check_gpu_ids(rule, v);
        case value_kind::srun_signal: return check_srun_signal(rule, v);
    }
    return mismatch(rule, v);
}

}  // namespace torcrun::core::detail
