// Writing for the worker wire: compact JSON with numbers as Torc's serde and torcrun's server
// write them, and Torc's UTC time format.
#include "worker_wire_detail.hpp"

#include "torcrun/common/date_time.hpp"

#include <boost/json/serialize.hpp>

#include <charconv>
#include <cmath>

namespace torcrun::api::wire {
namespace {

void append(std::string& out, json::value const& v)
{
    switch (v.kind()) {
    case json::kind::object: {
        char separator = '{';
        for (auto const& kv : v.get_object()) {
            out += separator;
            out += json::serialize(json::string(kv.key()));
            out += ':';
            append(out, kv.value());
            separator = ',';
        }
        out += v.get_object().empty() ? "{}" : "}";
        return;
    }
    case json::kind::array: {
        char separator = '[';
        for (auto const& item : v.get_array()) {
            out += separator;
            append(out, item);
            separator = ',';
        }
        out += v.get_array().empty() ? "[]" : "]";
        return;
    }
    case json::kind::double_: {
        auto const d = v.get_double();
        if (!std::isfinite(d)) {
            out += "null";
            return;
        }
        char buffer[32];
        auto const r = std::trunc(d) == d && std::fabs(d) < 9007199254740992.0
                           ? std::to_chars(buffer, buffer + sizeof buffer,
                                           static_cast<std::int64_t>(d))
                           : std::to_chars(buffer, buffer + sizeof buffer, d);
        out.append(buffer, r.ptr);
        return;
    }
    default:
        out += json::serialize(v);  // strings, integers, booleans, null
    }
}

}  // namespace

std::string to_text(json::value const& v)
{
    std::string out;
    append(out, v);
    return out;
}

std::string torc_time(double unix_seconds)
{
    auto const ms = std::isfinite(unix_seconds) && unix_seconds > 0
                        ? static_cast<std::int64_t>(std::llround(unix_seconds * 1000))
                        : std::int64_t{0};
    auto text = core::format_date_time(static_cast<double>(ms / 1000));  // "...:SSZ"
    auto const fraction = std::to_string(1000 + ms % 1000).substr(1);    // "007"
    text.insert(text.size() - 1, "." + fraction);
    return text;
}

}  // namespace torcrun::api::wire
