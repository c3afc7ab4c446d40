// The compute node's usage (node_usage.hpp): /proc/stat's cpu line and /proc/meminfo parsed,
// samples summed as Torc's SystemMetrics does, and the node usage file written and read back.
#include "torcrun/worker/node_usage.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

namespace torcrun::core {
namespace {

namespace json = boost::json;
using detail::cat;

std::optional<std::uint64_t> number_of(std::string_view text)
{
    std::uint64_t v = 0;
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

// The line of `text` that starts with `prefix`, without it.
std::optional<std::string_view> line_after(std::string_view text, std::string_view prefix)
{
    std::size_t at = 0;
    while (at < text.size()) {
        auto const end = std::min(text.find('\n', at), text.size());
        auto const line = text.substr(at, end - at);
        if (line.starts_with(prefix)) return line.substr(prefix.size());
        at = end + 1;
    }
    return std::nullopt;
}

std::vector<std::string_view> words(std::string_view text)
{
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (at < text.size()) {
        auto const start = text.find_first_not_of(" \t\r", at);
        if (start == std::string_view::npos) break;
        auto const end = std::min(text.find_first_of(" \t\r", start), text.size());
        out.push_back(text.substr(start, end - start));
        at = end;
    }
    return out;
}

result<std::uint64_t> kilobytes(std::string_view text, std::string_view key)
{
    auto const line = line_after(text, cat(key, ":"));
    if (!line) return error{cat("/proc/meminfo: no \"", key, "\" line")};
    auto const w = words(*line);
    std::optional<std::uint64_t> kb;
    if (w.size() == 2 && w[1] == "kB") kb = number_of(w[0]);
    if (!kb) {
        auto value = *line;
        auto const first = value.find_first_not_of(" \t");
        value = first == std::string_view::npos ? std::string_view{} : value.substr(first);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\r'))
            value.remove_suffix(1);
        return error{cat("/proc/meminfo: ", key, " \"", value, "\" is not a number of kB")};
    }
    return *kb * 1024;
}

}  // namespace

result<cpu_times> parse_cpu_times(std::string_view text)
{
    auto const line = line_after(text, "cpu ");
    if (!line) return error{"/proc/stat: no \"cpu\" line"};
    auto const w = words(*line);
    // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user).
    if (w.size() < 4) return error{"/proc/stat: the cpu line has fewer than 4 fields"};
    cpu_times out;
    for (std::size_t i = 0; i < std::min<std::size_t>(w.size(), 8); ++i) {
        auto const v = number_of(w[i]);
        if (!v)
            return error{cat("/proc/stat: cpu field ", std::to_string(i + 1), " \"",
                             std::string(w[i]), "\" is not a number")};
        out.total += *v;
        if (i != 3 && i != 4) out.busy += *v;
    }
    return out;
}

result<memory_reading> parse_meminfo(std::string_view text)
{
    auto const total = kilobytes(text, "MemTotal");
    if (!total) return total.error();
    auto const available = kilobytes(text, "MemAvailable");
    if (!available) return available.error();
    return memory_reading{*total, *total - std::min(*total, *available)};
}

node_usage::node_usage(node_usage_options options) : options_(options)
{
    if (options_.keep_series) series_.emplace();
}

void node_usage::add(node_reading const& r)
{
    if (last_ && !(r.seconds > last_->seconds)) return;
    if (options_.memory) total_memory_bytes_ = r.memory.total_bytes;
    if (!last_) {
        last_ = r;
        return;
    }
    double cpu = 0;
    if (options_.cpu && r.cpu.total > last_->cpu.total && r.cpu.busy >= last_->cpu.busy) {
        auto const busy = static_cast<double>(r.cpu.busy - last_->cpu.busy);
        cpu = std::min(100.0, busy / static_cast<double>(r.cpu.total - last_->cpu.total) * 100);
    }
    std::uint64_t const memory = options_.memory ? r.memory.used_bytes : 0;
    auto& s = summary_;
    ++s.sample_count;
    s.peak_cpu_percent = std::max(s.peak_cpu_percent, cpu);
    s.peak_memory_bytes = std::max(s.peak_memory_bytes, memory);
    cpu_percent_sum_ += cpu;
    memory_sum_ += static_cast<long double>(memory);
    auto const n = static_cast<double>(s.sample_count);
    s.avg_cpu_percent = cpu_percent_sum_ / n;
    s.avg_memory_bytes = static_cast<std::uint64_t>(memory_sum_ / static_cast<long double>(n));
    if (series_) {
        busy_seconds_ += cpu / 100 * (r.seconds - last_->seconds);
        series_->add({r.seconds, memory, busy_seconds_});
    }
    last_ = r;
}

usage_summary node_usage::summary() const { return summary_; }

std::vector<usage_point> node_usage::points() const
{
    return series_ ? series_->points() : std::vector<usage_point>{};
}

std::string node_usage_file_name(std::int64_t compute_node_id)
{
    return cat("node_usage_", std::to_string(compute_node_id), ".json");
}

std::string node_series_json(node_series const& s)
{
    auto const columns = json::parse(usage_series_json(s.points)).as_object();
    json::object o;
    o["compute_node_id"] = s.compute_node_id;
    o["hostname"] = s.hostname;
    o["start_unix"] = s.start_unix;
    o["total_memory_bytes"] = s.total_memory_bytes;
    for (auto const& [key, value] : columns) o[key] = value;
    return json::serialize(o);
}

result<node_series> parse_node_series(std::string_view text, std::string_view source)
{
    auto points = parse_usage_series(text, source);
    if (!points) return points.error();
    auto const o = json::parse(text).as_object();  // parse_usage_series checked both
    node_series out;
    out.points = std::move(*points);
    auto const* start = o.if_contains("start_unix");
    if (!start || !start->is_number())
        return error{cat(source, ": \"start_unix\" is missing or not a number")};
    out.start_unix = start->to_number<double>();
    auto const* id = o.if_contains("compute_node_id");
    if (!id || !id->is_int64())
        return error{cat(source, ": \"compute_node_id\" is missing or not an integer")};
    out.compute_node_id = id->get_int64();
    if (auto const* h = o.if_contains("hostname"); h && h->is_string())
        out.hostname = std::string(h->get_string());
    if (auto const* t = o.if_contains("total_memory_bytes"); t && t->is_uint64())
        out.total_memory_bytes = t->get_uint64();
    else if (t && t->is_int64() && t->get_int64() >= 0)
        out.total_memory_bytes = static_cast<std::uint64_t>(t->get_int64());
    return out;
}

}  // namespace torcrun::core
