// Hostlist and count-list notation. Expansion checks sizes before it allocates anything, so a
// hostile or mistyped list costs an error message, never memory.
#include "torcrun/slurm/hostlist.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <utility>

namespace torcrun::core {

namespace {

struct number_range {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    std::size_t width = 0;  // digits of the low bound as written: Slurm pads every name to it
};

// A host group is literal text and bracketed range lists, in order.
struct segment {
    std::string text;
    std::vector<number_range> ranges;  // empty for a literal
};

// 18 digits always fit an uint64_t, so range sizes never overflow.
constexpr std::size_t max_digits = 18;

error list_error(std::string_view what, std::string_view text, std::string_view detail)
{
    return error{std::string(what) + ": \"" + std::string(text) + "\" " + std::string(detail)};
}

// Appends instead of `"\"" + std::string(s)`: GCC 12 -O3 reports a false -Wrestrict on that.
std::string quoted(std::string_view s)
{
    std::string out(1, '"');
    out += s;
    out += '"';
    return out;
}

bool all_digits(std::string_view s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::vector<std::string_view> split_commas(std::string_view s)
{
    std::vector<std::string_view> parts;
    for (auto comma = s.find(','); comma != std::string_view::npos; comma = s.find(',')) {
        parts.push_back(s.substr(0, comma));
        s.remove_prefix(comma + 1);
    }
    parts.push_back(s);
    return parts;
}

std::optional<std::uint64_t> to_number(std::string_view s)
{
    std::uint64_t v = 0;
    auto const [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string padded(std::uint64_t value, std::size_t width)
{
    std::string s = std::to_string(value);
    if (s.size() < width) s.insert(0, width - s.size(), '0');
    return s;
}

// Splits at commas outside brackets and checks that brackets pair up without nesting.
result<std::vector<std::string_view>> split_groups(std::string_view text, std::string_view what)
{
    std::vector<std::string_view> groups;
    bool open = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        char const c = i < text.size() ? text[i] : ',';
        if (c == '[' && open) return list_error(what, text, "has a '[' inside brackets");
        if (c == ']' && !open) return list_error(what, text, "has an unbalanced bracket");
        if (c == '[' || c == ']') open = (c == '[');
        if (c == ',' && !open) {
            groups.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    if (open) return list_error(what, text, "has an unbalanced bracket");
    return groups;
}

result<number_range> parse_range(std::string_view item, std::string_view text,
                                 std::string_view what)
{
    if (item.empty()) return list_error(what, text, "has an empty range");
    auto const dash = item.find('-');
    std::string_view const lo = item.substr(0, dash);
    std::string_view const hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    if (lo.empty() || hi.empty()) {
        return list_error(what, text, "has an incomplete range " + quoted(item));
    }
    if (!all_digits(lo) || !all_digits(hi)) {
        return list_error(what, text, "has a non-numeric range " + quoted(item));
    }
    if (lo.size() > max_digits || hi.size() > max_digits) {
        return list_error(what, text, "has a number too large in " + quoted(item));
    }
    number_range r{*to_number(lo), *to_number(hi), lo.size()};
    if (r.lo > r.hi) return list_error(what, text, "has a descending range " + quoted(item));
    return r;
}

result<std::vector<segment>> parse_group(std::string_view group, std::string_view text,
                                         std::string_view what)
{
    if (group.empty()) return list_error(what, text, "has an empty host name");
    std::vector<segment> segments;
    std::size_t pos = 0;
    while (pos < group.size()) {
        auto const open = group.find('[', pos);
        if (open != pos) {
            segments.push_back({std::string(group.substr(pos, open - pos)), {}});
            if (open == std::string_view::npos) break;
        }
        auto const close = group.find(']', open);
        segment seg;
        for (auto const item : split_commas(group.substr(open + 1, close - open - 1))) {
            auto r = parse_range(item, text, what);
            if (!r) return r.error();
            seg.ranges.push_back(*r);
        }
        segments.push_back(std::move(seg));
        pos = close + 1;
    }
    return segments;
}

// First segment varies slowest, as Slurm expands "rack[1-2]-n[1-2]".
void append_names(std::vector<segment> const& segments, std::vector<std::string>& out)
{
    std::vector<std::string> partial{""};
    for (auto const& seg : segments) {
        if (seg.ranges.empty()) {
            for (auto& p : partial) p += seg.text;
            continue;
        }
        std::vector<std::string> next;
        for (auto const& p : partial) {
            for (auto const& r : seg.ranges) {
                for (std::uint64_t k = r.lo;; ++k) {
                    next.push_back(p + padded(k, r.width));
                    if (k == r.hi) break;
                }
            }
        }
        partial = std::move(next);
    }
    out.insert(out.end(), partial.begin(), partial.end());
}

// A name split into the text before its trailing number and that number as written.
struct numbered_name {
    std::string_view prefix;
    std::string_view digits;  // empty: the name has no usable trailing number
};

numbered_name split_number(std::string_view name)
{
    auto const last_letter = name.find_last_not_of("0123456789");
    std::size_t const start = last_letter == std::string_view::npos ? 0 : last_letter + 1;
    std::string_view const digits = name.substr(start);
    if (digits.size() > max_digits) return {name, {}};
    return {name.substr(0, start), digits};
}

// "1","2","3","7" -> "1-3,7": a run grows while the next number is one more and is written with
// the run's width, so expanding the run reproduces every name exactly.
std::string compress_numbers(std::vector<std::string_view> const& digits)
{
    std::string out;
    std::size_t i = 0;
    while (i < digits.size()) {
        std::uint64_t const lo = *to_number(digits[i]);
        std::size_t j = i + 1;
        while (j < digits.size() && *to_number(digits[j]) == lo + (j - i)
               && padded(lo + (j - i), digits[i].size()) == digits[j]) {
            ++j;
        }
        if (!out.empty()) out += ',';
        out += digits[i];
        if (j - i > 1) {
            out += '-';
            out += digits[j - 1];
        }
        i = j;
    }
    return out;
}

}  // namespace

result<std::vector<std::string>> expand_hostlist(std::string_view text, std::string_view what)
{
    if (text.empty()) return list_error(what, text, "is empty");
    if (std::any_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); })) {
        return list_error(what, text, "contains whitespace");
    }
    auto groups = split_groups(text, what);
    if (!groups) return groups.error();

    std::uint64_t const cap = max_list_size + 1;
    std::vector<std::vector<segment>> parsed;
    std::uint64_t total = 0;
    for (auto const group : *groups) {
        auto segments = parse_group(group, text, what);
        if (!segments) return segments.error();
        // Capped at max_list_size + 1 as it grows, so no product can overflow.
        std::uint64_t count = 1;
        for (auto const& seg : *segments) {
            std::uint64_t n = seg.ranges.empty() ? 1 : 0;
            for (auto const& r : seg.ranges) n = std::min(n + (r.hi - r.lo + 1), cap);
            count = std::min(count * n, cap);
        }
        total += count;
        if (total > max_list_size) {
            return list_error(what, text,
                              "names more than " + std::to_string(max_list_size) + " hosts");
        }
        parsed.push_back(std::move(*segments));
    }
    std::vector<std::string> names;
    names.reserve(total);
    for (auto const& segments : parsed) append_names(segments, names);
    return names;
}

std::string compress_hostlist(std::vector<std::string> const& hosts)
{
    std::string out;
    std::size_t i = 0;
    while (i < hosts.size()) {
        auto const first = split_number(hosts[i]);
        std::vector<std::string_view> digits{first.digits};
        std::size_t j = i + 1;
        while (!first.digits.empty() && j < hosts.size()) {
            auto const next = split_number(hosts[j]);
            if (next.digits.empty() || next.prefix != first.prefix) break;
            digits.push_back(next.digits);
            ++j;
        }
        if (!out.empty()) out += ',';
        if (j - i == 1) out += hosts[i];
        else out += std::string(first.prefix) + "[" + compress_numbers(digits) + "]";
        i = j;
    }
    return out;
}

result<std::vector<std::uint32_t>> expand_counts(std::string_view text, std::string_view what)
{
    if (text.empty()) return list_error(what, text, "is empty");
    std::vector<std::uint32_t> values;
    for (auto const item : split_commas(text)) {
        if (item.empty()) return list_error(what, text, "has an empty item");
        auto const paren = item.find('(');
        std::string_view const value = item.substr(0, paren);
        std::string_view repeat = "1";
        if (paren != std::string_view::npos) {
            bool const framed =
                item.size() >= paren + 4 && item.substr(paren, 2) == "(x" && item.back() == ')';
            repeat = framed ? item.substr(paren + 2, item.size() - paren - 3) : std::string_view{};
        }
        if (!all_digits(value) || !all_digits(repeat)) {
            return list_error(what, text,
                              "has a malformed item " + quoted(item) + " (expected N or N(xR))");
        }
        auto const v = to_number(value);
        if (!v || *v > UINT32_MAX) {
            return list_error(what, text, "has a value above 4294967295 in " + quoted(item));
        }
        auto const r = to_number(repeat);
        if (r && *r == 0) return list_error(what, text, "has a zero repeat in " + quoted(item));
        if (!r || *r > max_list_size - values.size()) {
            return list_error(what, text,
                              "expands to more than " + std::to_string(max_list_size) + " values");
        }
        values.insert(values.end(), static_cast<std::size_t>(*r), static_cast<std::uint32_t>(*v));
    }
    return values;
}

}  // namespace torcrun::core
