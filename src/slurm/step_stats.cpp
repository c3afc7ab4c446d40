// See step_stats.hpp. Hand-written: Slurm prints these tables for people (units chosen per value,
// times as clock text); no library reads them.
#include "torcrun/slurm/step_stats.hpp"

#include "torcrun/common/concat.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <map>

namespace torcrun::core {

using detail::cat;

namespace {

std::string_view trimmed(std::string_view s)
{
    auto const first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    auto const last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view s, char separator)
{
    std::vector<std::string_view> parts;
    for (;;) {
        auto const at = s.find(separator);
        parts.push_back(s.substr(0, at));
        if (at == std::string_view::npos) return parts;
        s.remove_prefix(at + 1);
    }
}

// A non-negative decimal number that is the whole of `text`.
std::optional<double> decimal(std::string_view text)
{
    if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
    double value = 0;
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

}  // namespace

result<std::uint64_t> parse_slurm_size(std::string_view text)
{
    auto const bad = error{cat("\"", text, "\" is not a size")};
    if (text.empty()) return bad;
    double scale = 1;
    auto digits = text;
    constexpr std::string_view units = "KMGTP";
    if (auto const unit = units.find(text.back()); unit != std::string_view::npos) {
        scale = std::pow(1024.0, static_cast<double>(unit + 1));
        digits.remove_suffix(1);
    }
    auto const value = decimal(digits);
    // Below 2^64, so the rounded value converts; a byte count past it is no size Slurm prints.
    if (!value || !(*value * scale < 18446744073709551616.0)) return bad;
    return static_cast<std::uint64_t>(std::round(*value * scale));
}

result<double> parse_slurm_cpu_time(std::string_view text)
{
    auto const bad = error{cat("\"", text, "\" is not a CPU time")};
    double days = 0;
    auto clock = text;
    if (auto const dash = text.find('-'); dash != std::string_view::npos) {
        auto const d = decimal(text.substr(0, dash));
        if (!d || *d != std::floor(*d)) return bad;
        days = *d;
        clock = text.substr(dash + 1);
    }
    auto const fields = split(clock, ':');
    if (fields.size() > 3 || (days > 0 && fields.size() != 3)) return bad;
    double seconds = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        auto const value = decimal(fields[i]);
        bool const last = i + 1 == fields.size();
        // Only the seconds may have a fraction; minutes and seconds stay below 60 after a colon.
        if (!value || (!last && *value != std::floor(*value)) || (i > 0 && *value >= 60))
            return bad;
        seconds = seconds * 60 + *value;
    }
    auto const total = days * 86400 + seconds;
    if (!std::isfinite(total)) return bad;  // "1e308-00:00:00"
    return total;
}

result<std::vector<step_reading>> parse_step_readings(std::string_view table,
                                                      std::string_view what)
{
    auto lines = split(table, '\n');
    std::size_t first = 0;
    while (first < lines.size() && trimmed(lines[first]).empty()) ++first;
    if (first == lines.size()) return std::vector<step_reading>{};
    std::map<std::string, std::size_t, std::less<>> column;
    auto const header = split(trimmed(lines[first]), '|');
    for (std::size_t i = 0; i < header.size(); ++i) column.emplace(trimmed(header[i]), i);
    if (!column.contains("JobID"))
        return error{cat(what, ": no JobID column in the header \"", trimmed(lines[first]), "\"")};
    std::vector<step_reading> readings;
    for (std::size_t n = first + 1; n < lines.size(); ++n) {
        auto const line = trimmed(lines[n]);
        if (line.empty()) continue;
        auto const cells = split(line, '|');
        auto cell = [&](std::string_view name) -> std::string_view {
            auto const it = column.find(name);
            return it == column.end() || it->second >= cells.size() ? std::string_view{}
                                                                    : trimmed(cells[it->second]);
        };
        auto const where = [&](std::string_view name, error const& e) {
            return error{cat(what, " line ", std::to_string(n + 1), ": ", name, " ", e.message)};
        };
        step_reading r;
        r.step_id = std::string(cell("JobID"));
        if (r.step_id.empty()) continue;
        r.name = std::string(cell("JobName"));
        r.nodes = std::string(cell("NodeList"));
        if (auto const text = cell("MaxRSS"); !text.empty()) {
            auto size = parse_slurm_size(text);
            if (!size) return where("MaxRSS", size.error());
            r.max_rss_bytes = *size;
        }
        if (auto const text = cell("TotalCPU"); !text.empty()) {
            auto cpu = parse_slurm_cpu_time(text);
            if (!cpu) return where("TotalCPU", cpu.error());
            r.cpu_seconds = *cpu;
        }
        // "cpu=00:00:01,energy=0,fs/disk=1685845,mem=320636K,pages=0,vmem=323772K"
        for (auto const item : split(cell("TRESUsageInTot"), ',')) {
            auto const eq = item.find('=');
            if (eq == std::string_view::npos) continue;
            auto const key = item.substr(0, eq);
            auto const value = item.substr(eq + 1);
            if (key == "cpu") {
                auto cpu = parse_slurm_cpu_time(value);
                if (!cpu) return where("TRESUsageInTot cpu", cpu.error());
                r.cpu_seconds = *cpu;
            } else if (key == "mem") {
                auto size = parse_slurm_size(value);
                if (!size) return where("TRESUsageInTot mem", size.error());
                r.rss_bytes = *size;
            }
        }
        readings.push_back(std::move(r));
    }
    return readings;
}

}  // namespace torcrun::core
