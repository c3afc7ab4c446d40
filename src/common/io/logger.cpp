// Log line formatting and the stderr sink.
#include "torcrun/common/io/logger.hpp"

#include <iostream>

namespace torcrun::io {

namespace {

bool needs_quotes(std::string_view value) {
    if (value.empty()) return true;
    for (char c : value) {
        auto u = static_cast<unsigned char>(c);
        if (u <= ' ' || c == '"' || c == '=' || c == '\\' || u == 0x7f) return true;
    }
    return false;
}

void append_value(std::string& out, std::string_view value) {
    if (!needs_quotes(value)) {
        out += value;
        return;
    }
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (char c : value) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (u < ' ' || u == 0x7f) {
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 0xf];
        } else {
            out += c;
        }
    }
    out += '"';
}

}  // namespace

std::string_view to_string(log_level level) noexcept {
    switch (level) {
        case log_level::err: return "err";
        case log_level::warning: return "warning";
        case log_level::info: return "info";
        case log_level::debug: return "debug";
    }
    return "debug";
}

std::string format_log_line(log_level lvl, std::string_view component, std::string_view message,
                            std::initializer_list<log_field> fields) {
    std::string line;
    line.reserve(256);  // a job's lines run to 200 characters: one allocation, not three
    line += to_string(lvl);
    line += ' ';
    line += component;
    line += ": ";
    line += message;
    for (auto const& [key, value] : fields) {
        line += ' ';
        line += key;
        line += '=';
        append_value(line, value);
    }
    return line;
}

void logger::write(log_level lvl, std::string_view component, std::string_view message,
                   std::initializer_list<log_field> fields) const {
    if (!enabled(lvl)) return;
    sink(lvl, format_log_line(lvl, component, message, fields));
}

logger stderr_logger(log_level level) {
    return logger{level, [](log_level, std::string_view line) {
                      std::cerr << line << '\n' << std::flush;
                  }};
}

}  // namespace torcrun::io
