// Torc's value formats: memory strings ("512m", "2g", bytes when unitless) and ISO-8601
// durations ("PT30M", "P1DT12H", "P2W"), with Torc's constants (docs/TORC-COMPATIBILITY.md §2.4).
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace torcrun::core {

// "10", "512k", "2G", "1t" -> bytes (binary multiples); surrounding whitespace is ignored.
// Rejects empty strings, negatives, a leading '+', decimals, two-letter units ("10GB"), unknown
// letters and anything above UINT64 range (also after the multiplication); the message quotes
// the input.
result<std::uint64_t> parse_memory(std::string_view text);

// Bytes -> the shortest exact Torc memory string ("4g", "1536m", "100").
std::string format_memory(std::uint64_t bytes);

// Bytes -> a size for people: "512 B", "3.9 GiB" (binary units, tenths rounded half up).
std::string format_size(std::uint64_t bytes);

// A count with its noun for messages: "1 CPU", "4 GPUs", "0 nodes" (an English plural in -s).
std::string count_of(std::uint64_t n, std::string_view noun);

// Bytes -> whole megabytes, rounded down (srun --mem=<MB>M; 0 means "leave --mem out").
std::uint64_t memory_megabytes(std::uint64_t bytes);

// ISO-8601 duration P[nY][nM][nW][nD][T[nH][nM][nS]] -> seconds. Years 31,557,600 s, months
// 2,629,800 s, weeks 604,800 s, days 86,400 s; a fraction ('.' or ',') is allowed on the last
// component written. Surrounding whitespace is ignored; designators are upper case only; totals
// above 2^53 seconds are rejected so that callers may convert to integers safely.
result<double> parse_duration(std::string_view text);

// Seconds -> the form Torc sends: "PT{h}H{m}M", "PT{h}H" or "PT{m}M" (whole minutes, floor);
// below one minute, negative or NaN "PT0M"; above 2^53 seconds it saturates there.
std::string format_duration(double seconds);

}  // namespace torcrun::core
