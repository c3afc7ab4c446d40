// The report's GPU readings (run_report.hpp): each attempt's GPU chart and figures, and the GPUs
// found busy over the allocation's life, drawn beside the GPUs held. Pure, as run_report.cpp.
#include "torcrun/cli/run_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace torcrun::core {

namespace {

std::string decimals(double v, int n)
{
    char text[64];
    auto const [end, ec] = std::to_chars(text, text + sizeof text, v, std::chars_format::fixed, n);
    return ec == std::errc{} ? std::string(text, end) : std::string("?");
}

std::string bytes_text(std::uint64_t bytes)
{
    static constexpr char const* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    std::size_t u = 0;
    while (v >= 1024 && u + 1 < std::size(units)) v /= 1024, ++u;
    return decimals(v, u == 0 ? 0 : 1) + " " + units[u];
}

std::string key_of(report_attempt const& a)
{
    return std::to_string(a.job_id) + "." + std::to_string(a.run_id) + "."
           + std::to_string(a.attempt_id);
}

}  // namespace

std::vector<measured_step> measured_gpu_steps(std::vector<report_attempt> const& attempts)
{
    std::map<double, double> change;  // time -> GPUs busy delta
    for (auto const& a : attempts) {
        if (!a.gpu) continue;
        double from = 0;
        for (auto const& p : a.gpu->points) {
            auto const busy = p.utilization_percent.value_or(0) / 100.0;
            if (p.seconds > from && busy > 0) {
                change[a.start_seconds + from] += busy;
                change[a.start_seconds + p.seconds] -= busy;
            }
            from = std::max(from, p.seconds);
        }
    }
    bool const any = std::any_of(attempts.begin(), attempts.end(), [](report_attempt const& a) {
        return a.gpu && a.gpu->peak_percent.has_value();
    });
    std::vector<measured_step> out;
    if (!any) return out;
    double now = 0;
    for (auto const& [t, delta] : change) {
        now += delta;
        if (std::abs(now) < 1e-9) now = 0;
        out.push_back({t, std::max(now, 0.0)});
    }
    if (out.empty() && !attempts.empty()) out.push_back({attempts.front().start_seconds, 0});
    return out;
}

std::string gpu_series_svg(report_attempt const& a)
{
    if (!a.gpu || a.gpu->points.empty()) return {};
    auto const& points = a.gpu->points;
    constexpr double width = 160, height = 32, top = 2;
    double const held = static_cast<double>(std::max<std::int64_t>(a.num_gpus, 1));
    double peak_util = 0;
    std::uint64_t peak_memory = 0;
    for (auto const& p : points) {
        peak_util = std::max(peak_util, p.utilization_percent.value_or(0));
        peak_memory = std::max(peak_memory, p.memory_bytes);
    }
    double const util_scale = std::max(100.0 * held, peak_util);
    auto const memory_scale = static_cast<double>(std::max<std::uint64_t>(1, peak_memory));
    double end = std::max(points.back().seconds, a.end_seconds - a.start_seconds);
    if (!(end > 0)) end = 1;
    auto const x_of = [&](double t) { return decimals(width * std::clamp(t / end, 0.0, 1.0), 2); };
    auto const steps = [&](auto value_of) {
        std::string d = "M0," + decimals(top + height * (1 - value_of(points.front())), 2);
        for (auto const& p : points)
            d += " V" + decimals(top + height * (1 - value_of(p)), 2) + " H" + x_of(p.seconds);
        return d;
    };
    std::string out =
        "<svg class=\"gpu-series\" data-attempt=\"" + key_of(a) + "\" data-points=\""
        + std::to_string(points.size())
        + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"160\" height=\"36\"><title>"
        + std::to_string(points.size()) + " GPU readings over " + decimals(points.back().seconds, 1)
        + " s: utilisation up to "
        + (a.gpu->peak_percent ? decimals(peak_util, 1) + " %" : "unknown")
        + " (green), GPU memory up to " + bytes_text(peak_memory) + " (brown)</title>";
    if (a.gpu->peak_percent)
        out += "<path class=\"util\" d=\"" + steps([&](gpu_point const& p) {
                   return p.utilization_percent.value_or(0) / util_scale;
               })
               + "\"/>";
    out += "<path class=\"gmem\" d=\"" + steps([&](gpu_point const& p) {
               return static_cast<double>(p.memory_bytes) / memory_scale;
           })
           + "\"/></svg>";
    return out;
}

std::string gpu_use_cell(report_attempt const& a)
{
    if (!a.gpu) return "-";
    auto const& g = *a.gpu;
    std::string text = g.peak_percent && g.avg_percent ? decimals(*g.peak_percent, 1) + " % / "
                                                             + decimals(*g.avg_percent, 1) + " %"
                                                       : std::string("utilisation unknown");
    text += ", " + bytes_text(g.peak_memory_bytes);
    if (g.per_process) text += " (its processes)";
    return "<span class=\"gpu-use\">" + text + "</span> " + gpu_series_svg(a);
}

}  // namespace torcrun::core
