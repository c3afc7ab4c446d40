// A job's CPU and memory over time, bounded: the sampler's samples of one attempt kept as at
// most `capacity` points however long the job runs, so that 100,000 jobs of a day each write a
// few kilobytes (the attempt's usage.json) and the report draws each as a small chart.
//
// When the points fill up, every other one is merged into its successor and from then on only
// every second sample (then fourth, ...) makes a point: the points stay evenly spread over the
// whole life. Merging keeps the truth of both figures: a point's CPU % is the tree's CPU over
// the stretch since the previous point (cumulative CPU seconds differenced, so a merged stretch
// gets the mean rate of its parts), and its memory is the largest resident size sampled in
// that stretch (a peak is never merged away).
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/worker/usage_stats.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct usage_point {
    double seconds = 0;              // since the spawn; the stretch's end
    double cpu_percent = 0;          // over the stretch since the previous point (spawn: 0 s)
    std::uint64_t memory_bytes = 0;  // the largest sample in the stretch

    bool operator==(usage_point const&) const = default;
};

// Points a series keeps by default: a chart 160 pixels wide shows two per pixel.
inline constexpr std::size_t usage_series_capacity = 80;

class usage_series {
public:
    // `capacity` is at least 2 and even (asserted); odd capacities are rounded up.
    explicit usage_series(std::size_t capacity = usage_series_capacity);

    // Samples come in strictly increasing time, as usage_stats checks; one that is not after
    // the previous is ignored.
    void add(usage_sample const& sample);

    // The points so far, oldest first, the stretch being collected included.
    std::vector<usage_point> points() const;

    std::size_t stride() const { return stride_; }  // samples per point now

private:
    struct mark {
        double seconds = 0;
        double cpu_seconds = 0;
        std::uint64_t memory_bytes = 0;  // the largest since the previous mark
    };
    void halve();

    std::size_t capacity_;
    std::size_t stride_ = 1;
    std::vector<mark> marks_;  // closed stretches
    std::size_t pending_ = 0;  // samples since the last mark
    mark open_;                // the stretch being collected, when pending_ > 0
};

// The attempt's usage.json: `{"seconds":[..],"cpu_percent":[..],"memory_bytes":[..]}`.
std::string usage_series_json(std::vector<usage_point> const& points);

// Reads usage_series_json's text back. Errors name the problem after `source` (the file's
// path): `usage.json: not JSON: ...`, `usage.json: "seconds" is missing or not an array`,
// `usage.json: the arrays have 3, 2 and 3 entries`, `usage.json: seconds[1] is not a number`.
result<std::vector<usage_point>> parse_usage_series(std::string_view text,
                                                    std::string_view source = "usage.json");

}  // namespace torcrun::core
