// Torc's value formats (docs/TORC-COMPATIBILITY.md §2.4): memory strings with one binary unit
// letter, and ISO-8601 durations converted with Torc's calendar constants. Both parsers trim
// surrounding whitespace first; every error quotes the input exactly as it was given.
#include "torcrun/common/units.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <system_error>

namespace torcrun::core {
namespace {

constexpr std::string_view whitespace = " \t\n\r\f\v";

// 2^53: every whole second up to here is exact in a double and fits any integer type callers
// convert to, so larger durations are rejected rather than silently rounded.
constexpr double max_duration_seconds = 9007199254740992.0;
constexpr std::string_view too_long = "is too large (more than 9007199254740992 seconds)";
constexpr std::string_view out_of_order =
    " out of order or repeated (expected order: Y M W D T H M S)";
constexpr std::string_view no_designator = "ends with a number without a designator";

std::string_view trim(std::string_view s)
{
    auto const first = s.find_first_not_of(whitespace);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(whitespace) - first + 1);
}

// ASCII only on purpose: <cctype> depends on the C locale.
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string quoted(std::string_view s) { return '"' + std::string(s) + '"'; }

// ---- memory --------------------------------------------------------------------------------

struct memory_unit {
    char letter;
    std::uint64_t factor;
};

// Largest first, so format_memory picks the shortest exact form.
constexpr std::array<memory_unit, 4> memory_units{
    {{'t', 1ULL << 40}, {'g', 1ULL << 30}, {'m', 1ULL << 20}, {'k', 1ULL << 10}}};

std::optional<std::uint64_t> unit_factor(char c)
{
    char const lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    for (auto const& u : memory_units)
        if (u.letter == lower) return u.factor;
    return std::nullopt;
}

error memory_error(std::string_view text, std::string const& detail)
{
    return error{"memory: " + quoted(text) + " " + detail};
}

}  // namespace

result<std::uint64_t> parse_memory(std::string_view text)
{
    auto const s = trim(text);
    if (s.empty()) return memory_error(text, "is empty");
    if (s.front() == '-') return memory_error(text, "is negative");

    auto digits = s;
    std::uint64_t factor = 1;
    auto const letters =
        static_cast<std::size_t>(std::find_if_not(s.rbegin(), s.rend(), is_letter) - s.rbegin());
    if (letters > 1 && letters < s.size())
        return memory_error(text, "has a multi-letter unit " +
                                      quoted(s.substr(s.size() - letters)) +
                                      "; use one of k, m, g or t");
    if (letters == 1 && s.size() > 1) {
        auto const f = unit_factor(s.back());
        if (!f)
            return memory_error(text, "has an unknown unit " + quoted(s.substr(s.size() - 1)) +
                                          "; use one of k, m, g or t");
        factor = *f;
        digits.remove_suffix(1);
    }
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), is_digit))
        return memory_error(text, "is not an integer followed by an optional k, m, g or t");

    std::uint64_t n = 0;
    auto const [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc::result_out_of_range ||
        n > std::numeric_limits<std::uint64_t>::max() / factor)
        return memory_error(text, "is too large (more than 18446744073709551615 bytes)");
    return n * factor;
}

std::string format_memory(std::uint64_t bytes)
{
    if (bytes == 0) return "0";
    for (auto const& u : memory_units)
        if (bytes % u.factor == 0) return std::to_string(bytes / u.factor) + u.letter;
    return std::to_string(bytes);
}

std::uint64_t memory_megabytes(std::uint64_t bytes) { return bytes >> 20; }

// ---- durations -----------------------------------------------------------------------------

namespace {

// The fixed order Y M W D (date part) then H M S (after T); the index into this table is the
// order a component must respect.
struct designator {
    char letter;
    bool time;
    double seconds;
};

constexpr std::array<designator, 7> designators{{{'Y', false, 31'557'600},
                                                 {'M', false, 2'629'800},
                                                 {'W', false, 604'800},
                                                 {'D', false, 86'400},
                                                 {'H', true, 3'600},
                                                 {'M', true, 60},
                                                 {'S', true, 1}}};

std::optional<std::size_t> designator_index(char c, bool time)
{
    for (std::size_t i = 0; i < designators.size(); ++i)
        if (designators[i].letter == c && designators[i].time == time) return i;
    return std::nullopt;
}

struct duration_scan {
    std::string_view text;  // as given, for messages
    std::string_view s;     // trimmed
    std::size_t pos = 1;    // after the leading P
    bool in_time = false;
    std::size_t next_index = 0;  // smallest designator index still allowed
    int components = 0;
    int time_components = 0;
    char fraction_on = 0;  // designator of a fractional component already read, if any
    double total = 0;
};

error duration_error(duration_scan const& d, std::string_view detail)
{
    return error{"duration: " + quoted(d.text) + " " + std::string(detail)};
}

error unexpected_at(duration_scan const& d, std::size_t pos)
{
    return duration_error(
        d, "has unexpected " + quoted(d.s.substr(pos, 1)) + " after " + quoted(d.s.substr(0, pos)));
}

struct number {
    double value;
    bool fraction;  // written with a decimal separator, even if the fraction is zero
};

// Reads "digits[(.|,)digits]" at d.pos and leaves d.pos after it.
result<number> scan_number(duration_scan& d)
{
    auto const start = d.pos;
    while (d.pos < d.s.size() && is_digit(d.s[d.pos]))
        ++d.pos;
    bool const fraction = d.pos < d.s.size() && (d.s[d.pos] == '.' || d.s[d.pos] == ',');
    if (fraction) {
        auto const after_separator = ++d.pos;
        while (d.pos < d.s.size() && is_digit(d.s[d.pos]))
            ++d.pos;
        if (d.pos == after_separator) {
            if (d.pos == d.s.size()) return duration_error(d, no_designator);
            return unexpected_at(d, d.pos);
        }
    }
    std::string digits(d.s.substr(start, d.pos - start));
    std::replace(digits.begin(), digits.end(), ',', '.');
    double value = 0;
    auto const [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value,
                                           std::chars_format::fixed);
    if (ec == std::errc::result_out_of_range) return duration_error(d, too_long);
    return number{value, fraction};
}

// The designator after a number was not one of the current part's: say why as precisely as
// the character allows.
error bad_designator(duration_scan const& d)
{
    char const c = d.s[d.pos];
    auto const letter = quoted(d.s.substr(d.pos, 1));
    if (!d.in_time && (c == 'H' || c == 'S'))
        return duration_error(d, "needs T before hours, minutes or seconds (e.g. PT2H)");
    if (d.in_time && designator_index(c, false))
        return duration_error(d, "has " + letter + std::string(out_of_order));
    if (is_letter(c)) return duration_error(d, "has unknown designator " + letter);
    return unexpected_at(d, d.pos);
}

// One "<number><designator>" component at d.pos.
result<void> scan_component(duration_scan& d)
{
    char const first = d.s[d.pos];
    if (first == '-') return duration_error(d, "has a negative number");
    if (!is_digit(first)) {
        if (designator_index(first, d.in_time))
            return duration_error(
                d, "has designator " + quoted(d.s.substr(d.pos, 1)) + " without a number");
        return unexpected_at(d, d.pos);
    }
    auto const n = scan_number(d);
    if (!n) return n.error();
    if (d.pos == d.s.size()) return duration_error(d, no_designator);

    auto const index = designator_index(d.s[d.pos], d.in_time);
    if (!index) return bad_designator(d);
    if (*index < d.next_index)
        return duration_error(d, "has " + quoted(d.s.substr(d.pos, 1)) + std::string(out_of_order));
    if (d.fraction_on != 0)
        return duration_error(d, "has a fraction on " +
                                     quoted(std::string_view(&d.fraction_on, 1)) +
                                     ", but only the last component may have one");
    if (n->fraction) d.fraction_on = d.s[d.pos];
    d.total += n->value * designators[*index].seconds;
    d.next_index = *index + 1;
    ++d.pos;
    ++d.components;
    if (d.in_time) ++d.time_components;
    return {};
}

}  // namespace

result<double> parse_duration(std::string_view text)
{
    duration_scan d{.text = text, .s = trim(text)};
    if (d.s.empty()) return duration_error(d, "is empty");
    if (d.s.front() == '-') return duration_error(d, "is negative");
    if (d.s.front() != 'P') return duration_error(d, "does not start with P (e.g. PT30M, P1DT12H)");

    while (d.pos < d.s.size()) {
        if (d.s[d.pos] == 'T' && !d.in_time) {
            d.in_time = true;
            ++d.pos;
            continue;
        }
        if (auto const r = scan_component(d); !r) return r.error();
    }
    if (d.in_time && d.time_components == 0) return duration_error(d, "has no components after T");
    if (d.components == 0) return duration_error(d, "has no components");
    if (!(d.total <= max_duration_seconds)) return duration_error(d, too_long);
    return d.total;
}

std::string format_duration(double seconds)
{
    if (!(seconds >= 60)) return "PT0M";  // also NaN
    auto const minutes = static_cast<std::uint64_t>(std::min(seconds, max_duration_seconds) / 60);
    auto const h = minutes / 60;
    auto const m = minutes % 60;
    if (h == 0) return "PT" + std::to_string(m) + "M";
    if (m == 0) return "PT" + std::to_string(h) + "H";
    return "PT" + std::to_string(h) + "H" + std::to_string(m) + "M";
}

std::string count_of(std::uint64_t n, std::string_view noun)
{
    auto text = std::to_string(n) + ' ' + std::string(noun);
    if (n != 1) text += 's';
    return text;
}

std::string format_size(std::uint64_t bytes)
{
    static constexpr std::string_view units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return std::to_string(bytes) + " B";
    std::uint64_t unit = 1024;
    for (std::size_t u = 1;; ++u, unit *= 1024) {
        // Tenths rounded half up, without overflow: the remainder is below unit <= 2^60.
        std::uint64_t const tenths = bytes / unit * 10 + (bytes % unit * 10 + unit / 2) / unit;
        if (tenths < 10240 || u + 1 == std::size(units)) {
            return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " "
                   + std::string(units[u]);
        }
    }
}

}  // namespace torcrun::core
