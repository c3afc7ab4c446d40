// /proc/<pid>/stat parsing (proc(5)) and per-session sums. The command name is the only field
// that may contain spaces, and it may contain ')' too, so the fixed fields are read after the
// last ')' of the line; everything else is split on single spaces.
#include "torcrun/worker/proc_stat.hpp"

#include "torcrun/common/concat.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <set>

namespace torcrun::core {
namespace {

using detail::cat;

// Fields counted from 1 as in proc(5); field 3 (state) is the first one after the name.
constexpr std::size_t first_field = 3;
constexpr std::size_t last_field = 24;  // rss

struct field_name {
    std::size_t number;
    std::string_view name;
};
constexpr std::array<field_name, 8> numeric_fields{{{4, "ppid"},
                                                    {5, "pgrp"},
                                                    {6, "session"},
                                                    {14, "utime"},
                                                    {15, "stime"},
                                                    {16, "cutime"},
                                                    {17, "cstime"},
                                                    {24, "rss"}}};

std::string_view trim_newline(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

template <class T>
bool parse_number(std::string_view text, T& out)
{
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
}

std::vector<std::string_view> split_spaces(std::string_view text)
{
    std::vector<std::string_view> parts;
    while (!text.empty()) {
        auto const space = text.find(' ');
        parts.push_back(text.substr(0, space));
        if (space == std::string_view::npos) break;
        text.remove_prefix(space + 1);
    }
    return parts;
}

error whole_line_error(std::string_view text, std::string_view detail)
{
    return error{cat("proc stat: \"", text, "\" ", detail)};
}

}  // namespace

result<proc_stat> parse_proc_stat(std::string_view text)
{
    auto const line = trim_newline(text);
    auto const open = line.find(" (");
    auto const close = line.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open + 2)
        return whole_line_error(line, "has no command name in parentheses");
    proc_stat stat;
    if (!parse_number(line.substr(0, open), stat.pid) || stat.pid <= 0)
        return whole_line_error(line, "does not start with a process id");
    stat.comm = std::string(line.substr(open + 2, close - open - 2));
    auto const rest = line.substr(close + 1);
    // fields[i] is proc(5) field number first_field + i.
    auto const fields = rest.size() > 1 && rest.front() == ' ' ? split_spaces(rest.substr(1))
                                                               : std::vector<std::string_view>{};
    if (fields.size() < last_field - first_field + 1)
        return whole_line_error(line, cat("has ", std::to_string(fields.size()),
                                          " fields after the command name, expected at least ",
                                          std::to_string(last_field - first_field + 1)));
    auto const pid_text = std::to_string(stat.pid);
    if (fields[0].size() != 1)
        return error{cat("proc stat of pid ", pid_text, ": state (field 3) \"", fields[0],
                         "\" is not a single letter")};
    stat.state = fields[0][0];
    std::array<std::uint64_t, numeric_fields.size()> values{};
    for (std::size_t i = 0; i < numeric_fields.size(); ++i) {
        auto const [number, name] = numeric_fields[i];
        auto const field = fields[number - first_field];
        if (!parse_number(field, values[i]))
            return error{cat("proc stat of pid ", pid_text, ": ", name, " (field ",
                             std::to_string(number), ") \"", field,
                             "\" is not a non-negative integer")};
    }
    // Process ids fit an int (pid_max is at most 2^22); the kernel never writes more.
    stat.ppid = static_cast<int>(std::min<std::uint64_t>(values[0], INT32_MAX));
    stat.pgrp = static_cast<int>(std::min<std::uint64_t>(values[1], INT32_MAX));
    stat.session = static_cast<int>(std::min<std::uint64_t>(values[2], INT32_MAX));
    stat.utime_ticks = values[3];
    stat.stime_ticks = values[4];
    stat.cutime_ticks = values[5];
    stat.cstime_ticks = values[6];
    stat.rss_pages = values[7];
    return stat;
}

std::map<int, tree_usage> usage_by_session(std::span<proc_stat const> table,
                                           std::span<int const> sessions)
{
    std::set<int> const wanted(sessions.begin(), sessions.end());
    std::map<int, tree_usage> sums;
    for (auto const& p : table) {
        if (!wanted.contains(p.session)) continue;
        auto& sum = sums[p.session];
        sum.cpu_ticks += p.utime_ticks + p.stime_ticks + p.cutime_ticks + p.cstime_ticks;
        if (!p.alive()) continue;
        sum.rss_pages += p.rss_pages;
        ++sum.processes;
    }
    return sums;
}

std::vector<int> session_members(std::span<proc_stat const> table, int session)
{
    std::vector<int> members;
    for (auto const& p : table)
        if (p.session == session && p.pid != session && p.alive()) members.push_back(p.pid);
    return members;
}

}  // namespace torcrun::core
