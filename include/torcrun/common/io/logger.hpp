// The injected logger: one line per event, `level component: message key=value`,
// handed to a sink so that tests capture lines and `main` sends them to stderr.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace torcrun::io {

enum class log_level { err, warning, info, debug };  // lower = more severe

std::string_view to_string(log_level level) noexcept;

using log_field = std::pair<std::string_view, std::string_view>;

struct logger {
    log_level level = log_level::info;
    std::function<void(log_level, std::string_view)> sink;

    bool enabled(log_level lvl) const noexcept { return sink && lvl <= level; }

    // Values with spaces, quotes or `=` are written as JSON-style quoted strings so that the
    // line stays machine-splittable.
    void write(log_level lvl, std::string_view component, std::string_view message,
               std::initializer_list<log_field> fields = {}) const;
};

std::string format_log_line(log_level lvl, std::string_view component, std::string_view message,
                            std::initializer_list<log_field> fields);

// A sink writing each line to stderr; journald or the batch system adds the time.
logger stderr_logger(log_level level);

}  // namespace torcrun::io
