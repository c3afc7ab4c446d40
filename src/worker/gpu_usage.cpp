// GPU readings into figures and a bounded series. When the series is full, neighbouring points
// are merged (the later end, the mean utilisation weighted by the stretches, the larger memory),
// so the points stay spread over the whole life however long the job runs.
#include "torcrun/worker/gpu_usage.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace torcrun::core {

namespace json = boost::json;

namespace {

std::string seconds_text(double s)
{
    std::ostringstream out;
    out << s;
    return out.str() + " s";
}

gpu_point merged(gpu_point const& before, gpu_point const& a, gpu_point const& b)
{
    gpu_point m{b.seconds, std::nullopt, std::max(a.memory_bytes, b.memory_bytes)};
    double const da = a.seconds - before.seconds;
    double const db = b.seconds - a.seconds;
    if (a.utilization_percent && b.utilization_percent && da + db > 0)
        m.utilization_percent =
            (*a.utilization_percent * da + *b.utilization_percent * db) / (da + db);
    else
        m.utilization_percent =
            a.utilization_percent ? a.utilization_percent : b.utilization_percent;
    return m;
}

}  // namespace

gpu_usage_stats::gpu_usage_stats(std::size_t capacity)
    : capacity_(std::max<std::size_t>(capacity, 2))
{
}

result<void> gpu_usage_stats::add(gpu_sample const& s)
{
    if (!std::isfinite(s.seconds) || s.seconds <= last_seconds_)
        return error{"GPU usage: " + seconds_text(s.seconds)
                     + " is not after the previous reading at " + seconds_text(last_seconds_)};
    if (s.utilization_percent
        && (!std::isfinite(*s.utilization_percent) || *s.utilization_percent < 0))
        return error{"GPU usage: utilisation " + std::to_string(*s.utilization_percent)
                     + " is not a non-negative number"};
    double const stretch = s.seconds - last_seconds_;
    last_seconds_ = s.seconds;
    auto& sum = summary_;
    ++sum.sample_count;
    sum.per_process = sum.per_process || s.per_process;
    sum.peak_memory_bytes = std::max(sum.peak_memory_bytes, s.memory_bytes);
    if (s.utilization_percent) {
        percent_seconds_ += *s.utilization_percent * stretch;
        known_seconds_ += stretch;
        sum.peak_percent = std::max(sum.peak_percent.value_or(0), *s.utilization_percent);
        sum.avg_percent = percent_seconds_ / known_seconds_;
    }
    sum.points.push_back({s.seconds, s.utilization_percent, s.memory_bytes});
    if (sum.points.size() > capacity_) {
        std::vector<gpu_point> halved;
        gpu_point before{};
        for (std::size_t i = 0; i + 1 < sum.points.size(); i += 2) {
            halved.push_back(merged(before, sum.points[i], sum.points[i + 1]));
            before = halved.back();
        }
        if (sum.points.size() % 2) halved.push_back(sum.points.back());
        sum.points = std::move(halved);
    }
    return {};
}

gpu_usage_summary gpu_usage_stats::summary() const
{
    return summary_;
}

json::object gpu_usage_json(gpu_usage_summary const& s)
{
    json::object o;
    o["samples"] = s.sample_count;
    if (s.peak_percent) o["peak_percent"] = *s.peak_percent;
    if (s.avg_percent) o["avg_percent"] = *s.avg_percent;
    o["peak_memory_bytes"] = s.peak_memory_bytes;
    o["per_process"] = s.per_process;
    json::array points;
    for (auto const& p : s.points) {
        json::array point{p.seconds, nullptr, p.memory_bytes};
        if (p.utilization_percent) point[1] = *p.utilization_percent;
        points.push_back(std::move(point));
    }
    o["points"] = std::move(points);
    return o;
}

namespace {

std::optional<double> number_of(json::value const* v)
{
    if (!v) return std::nullopt;
    if (v->is_double()) return v->get_double();
    if (v->is_int64()) return static_cast<double>(v->get_int64());
    if (v->is_uint64()) return static_cast<double>(v->get_uint64());
    return std::nullopt;
}

}  // namespace

result<gpu_usage_summary> gpu_usage_from_json(json::object const& o)
{
    gpu_usage_summary s;
    auto const samples = number_of(o.if_contains("samples"));
    auto const memory = number_of(o.if_contains("peak_memory_bytes"));
    if (!samples || !memory || *samples < 0 || *memory < 0)
        return error{
            "GPU usage: \"samples\" and \"peak_memory_bytes\" must be non-negative numbers"};
    s.sample_count = static_cast<std::size_t>(*samples);
    s.peak_memory_bytes = static_cast<std::uint64_t>(*memory);
    s.peak_percent = number_of(o.if_contains("peak_percent"));
    s.avg_percent = number_of(o.if_contains("avg_percent"));
    if (auto const* p = o.if_contains("per_process"); p && p->is_bool())
        s.per_process = p->get_bool();
    if (auto const* points = o.if_contains("points"); points && points->is_array()) {
        for (auto const& v : points->get_array()) {
            auto const* a = v.if_array();
            if (!a || a->size() != 3)
                return error{"GPU usage: a point is not [seconds, percent, bytes]"};
            auto const sec = number_of(&(*a)[0]);
            auto const mem = number_of(&(*a)[2]);
            if (!sec || !mem) return error{"GPU usage: a point is not [seconds, percent, bytes]"};
            s.points.push_back({*sec, number_of(&(*a)[1]), static_cast<std::uint64_t>(*mem)});
        }
    }
    return s;
}

}  // namespace torcrun::core
