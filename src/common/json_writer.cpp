// Indented JSON text with shortest-form numbers; strings are escaped by Boost.JSON.
#include "torcrun/common/json_writer.hpp"

#include <boost/json/serialize.hpp>

#include <charconv>
#include <cmath>

namespace torcrun::core {

namespace {

void write_value(std::string& out, boost::json::value const& value, std::size_t indent,
                 std::size_t depth);

void new_line(std::string& out, std::size_t indent, std::size_t depth)
{
    if (indent == 0) return;
    out += '\n';
    out.append(indent * depth, ' ');
}

void write_object(std::string& out, boost::json::object const& object, std::size_t indent,
                  std::size_t depth)
{
    if (object.empty()) {
        out += "{}";
        return;
    }
    out += '{';
    bool first = true;
    for (auto const& member : object) {
        if (!first) out += indent == 0 ? ", " : ",";
        first = false;
        new_line(out, indent, depth + 1);
        out += boost::json::serialize(member.key());
        out += ": ";
        write_value(out, member.value(), indent, depth + 1);
    }
    new_line(out, indent, depth);
    out += '}';
}

void write_array(std::string& out, boost::json::array const& array, std::size_t indent,
                 std::size_t depth)
{
    if (array.empty()) {
        out += "[]";
        return;
    }
    out += '[';
    bool first = true;
    for (auto const& element : array) {
        if (!first) out += indent == 0 ? ", " : ",";
        first = false;
        new_line(out, indent, depth + 1);
        write_value(out, element, indent, depth + 1);
    }
    new_line(out, indent, depth);
    out += ']';
}

void write_value(std::string& out, boost::json::value const& value, std::size_t indent,
                 std::size_t depth)
{
    switch (value.kind()) {
        case boost::json::kind::object: write_object(out, value.get_object(), indent, depth); break;
        case boost::json::kind::array: write_array(out, value.get_array(), indent, depth); break;
        case boost::json::kind::double_: out += format_number(value.get_double()); break;
        default: out += boost::json::serialize(value); break;
    }
}

}  // namespace

std::string write_json(boost::json::value const& value, std::size_t indent)
{
    std::string out;
    write_value(out, value, indent, 0);
    return out;
}

std::string format_number(double value)
{
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    char buffer[32];
    // Whole numbers below 2^53 in plain digits: 1000000, not the shortest form "1e+06".
    if (value == std::trunc(value) && std::fabs(value) < 9007199254740992.0 && value != 0) {
        auto const end =
            std::to_chars(buffer, buffer + sizeof buffer, static_cast<long long>(value)).ptr;
        return std::string(buffer, end);
    }
    auto const end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    return std::string(buffer, end);
}

}  // namespace torcrun::core
