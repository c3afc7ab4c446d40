// RFC 3339 parsing and formatting on std::chrono's calendar types; no clock is read.
#include "torcrun/common/date_time.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <optional>

namespace torcrun::core {

namespace {

// Exactly `width` digits at `at`, or nullopt.
std::optional<int> digits_at(std::string_view text, std::size_t at, std::size_t width)
{
    if (at + width > text.size()) return std::nullopt;
    int value = 0;
    for (std::size_t i = at; i < at + width; ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

bool char_at(std::string_view text, std::size_t at, std::string_view allowed)
{
    return at < text.size() && allowed.find(text[at]) != std::string_view::npos;
}

std::optional<double> parse(std::string_view t)
{
    auto const year = digits_at(t, 0, 4), month = digits_at(t, 5, 2), day = digits_at(t, 8, 2);
    auto const hour = digits_at(t, 11, 2), minute = digits_at(t, 14, 2);
    auto const second = digits_at(t, 17, 2);
    if (!year || !month || !day || !hour || !minute || !second || !char_at(t, 4, "-")
        || !char_at(t, 7, "-") || !char_at(t, 10, "Tt ") || !char_at(t, 13, ":")
        || !char_at(t, 16, ":")) {
        return std::nullopt;
    }
    std::size_t at = 19;
    double fraction = 0;
    if (char_at(t, at, ".")) {
        std::size_t const start = ++at;
        while (char_at(t, at, "0123456789")) ++at;
        if (at == start) return std::nullopt;
        std::string const digits = "0." + std::string(t.substr(start, at - start));
        std::from_chars(digits.data(), digits.data() + digits.size(), fraction);
    }
    int offset = 0;
    if (char_at(t, at, "Zz")) {
        ++at;
    } else if (char_at(t, at, "+-")) {
        auto const oh = digits_at(t, at + 1, 2), om = digits_at(t, at + 4, 2);
        if (!oh || !om || !char_at(t, at + 3, ":") || *oh > 23 || *om > 59) return std::nullopt;
        offset = (t[at] == '-' ? -1 : 1) * (*oh * 3600 + *om * 60);
        at += 6;
    } else {
        return std::nullopt;
    }
    using namespace std::chrono;
    year_month_day const date{std::chrono::year{*year}, std::chrono::month(unsigned(*month)),
                              std::chrono::day(unsigned(*day))};
    if (at != t.size() || !date.ok() || *year < 1970 || *hour > 23 || *minute > 59
        || *second > 60) {
        return std::nullopt;
    }
    double const days = static_cast<double>(sys_days(date).time_since_epoch().count());
    return days * 86400 + *hour * 3600 + *minute * 60 + *second + fraction - offset;
}

}  // namespace

result<double> parse_date_time(std::string_view text)
{
    if (auto const seconds = parse(text)) return *seconds;
    return error{"date-time: \"" + std::string(text)
                 + "\" is not an RFC 3339 date-time with a time zone (like "
                   "2025-06-30T17:00:00Z or 2025-06-30T12:00:00-05:00)"};
}

namespace {

// `value` in decimal, left-padded with zeros to `width` digits, appended to `out` without a
// string of its own: a log line's time stamp is formatted several times per job, and each
// temporary string past 15 characters was an allocation.
void append_padded(std::string& out, long long value, std::size_t width)
{
    char digits[24];
    auto const end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    auto const size = static_cast<std::size_t>(end - digits);
    if (size < width) out.append(width - size, '0');
    out.append(digits, size);
}

}  // namespace

std::string format_date_time(double unix_seconds)
{
    using namespace std::chrono;
    double const whole = std::floor(unix_seconds);
    auto micros = std::llround((unix_seconds - whole) * 1e6);
    auto total = static_cast<long long>(whole);
    if (micros == 1000000) ++total, micros = 0;
    sys_seconds const instant{seconds(total)};
    auto const day_start = floor<days>(instant);
    year_month_day const date{day_start};
    hh_mm_ss const time{instant - day_start};
    std::string out;
    out.reserve(32);
    append_padded(out, int(date.year()), 4);
    out += '-';
    append_padded(out, unsigned(date.month()), 2);
    out += '-';
    append_padded(out, unsigned(date.day()), 2);
    out += 'T';
    append_padded(out, time.hours().count(), 2);
    out += ':';
    append_padded(out, time.minutes().count(), 2);
    out += ':';
    append_padded(out, time.seconds().count(), 2);
    if (micros != 0) {
        out += '.';
        append_padded(out, micros, 6);
        while (out.back() == '0') out.pop_back();
    }
    out += 'Z';
    return out;
}

std::string format_torc_time(double unix_seconds)
{
    auto const ms = std::isfinite(unix_seconds) && unix_seconds > 0
                        ? static_cast<std::int64_t>(std::llround(unix_seconds * 1000))
                        : std::int64_t{0};
    auto text = format_date_time(static_cast<double>(ms / 1000));  // "...:SSZ"
    text.pop_back();
    text += '.';
    append_padded(text, ms % 1000, 3);  // "007"
    text += 'Z';
    return text;
}

}  // namespace torcrun::core
