// RFC 3339 date-times <-> Unix seconds, for configured deadlines (termination.end_time). Pure
// calendar arithmetic: a time zone offset is required, since local time needs the system's
// zone database.
#pragma once

#include "torcrun/common/error.hpp"

#include <string>
#include <string_view>

namespace torcrun::core {

// "2025-06-30T17:00:00Z", "2025-06-30t12:00:00.5-05:00", "2025-06-30 17:00:00+00:00" -> Unix
// seconds. Years 1970 to 9999; a leap second (:60) reads as the next second.
result<double> parse_date_time(std::string_view text);

// Unix seconds -> "2025-06-30T17:00:00Z", with a fraction (up to microseconds) when there is one.
std::string format_date_time(double unix_seconds);

// Unix seconds -> "2026-01-19T22:55:01.123Z": Torc's time stamps (%Y-%m-%dT%H:%M:%S%.3fZ, UTC,
// always milliseconds), as the server stores them and torcrun's logs and result.json write
// them. A negative or non-finite time is the epoch.
std::string format_torc_time(double unix_seconds);

}  // namespace torcrun::core
