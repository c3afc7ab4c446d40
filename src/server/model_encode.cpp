// Records -> JSON text. Written by hand rather than through boost::json::serialize so numbers
// come out as people write them ("240", "0.5") instead of "2.4E2"; JSON-valued cells are the
// text the decoder produced and are copied verbatim.
#include "torcrun/server/model_json.hpp"

#include <charconv>
#include <cmath>

namespace torcrun::api {
namespace {

void append_number(std::string& out, double d)
{
    if (!std::isfinite(d)) {
        out += "null";
        return;
    }
    // Whole numbers below 2^53 as integers ("1700000000", not "1.7e+09"); others in the
    // shortest form that reads back to the same double.
    char buffer[32];
    auto const r = std::trunc(d) == d && std::fabs(d) < 9007199254740992.0
                       ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<std::int64_t>(d))
                       : std::to_chars(buffer, buffer + sizeof buffer, d);
    out.append(buffer, r.ptr);
}

// false when the cell does not hold a value of the field's kind (nothing is written then).
bool append_value(std::string& out, field_spec const& f, cell const& c)
{
    if (auto const* i = std::get_if<std::int64_t>(&c)) {
        switch (f.kind) {
        case field_kind::boolean:
            out += *i != 0 ? "true" : "false";
            return true;
        case field_kind::number:
            append_number(out, static_cast<double>(*i));
            return true;
        case field_kind::job_status:
            if (job_status_name(*i).empty()) return false;
            out += json_quote(job_status_name(*i));
            return true;
        default:
            out += std::to_string(*i);
            return true;
        }
    }
    if (auto const* d = std::get_if<double>(&c)) {
        append_number(out, *d);
        return true;
    }
    if (auto const* s = std::get_if<std::string>(&c)) {
        bool const raw = f.kind == field_kind::json_object || f.kind == field_kind::json_any ||
                         f.kind == field_kind::ids || f.kind == field_kind::json_config ||
                         f.kind == field_kind::json_document ||
                         f.kind == field_kind::string_or_object ||
                         f.kind == field_kind::env_map;
        out += raw ? *s : json_quote(*s);
        return true;
    }
    if (auto const* ids = std::get_if<id_list>(&c)) {
        out += json_ids(*ids);
        return true;
    }
    return false;
}

void append_object(std::string& out, model_spec const& model, record const& row)
{
    out += '{';
    bool first = true;
    for (auto const& f : model.fields) {
        auto const* c = row.find(f.name);
        if (c == nullptr || std::holds_alternative<std::monostate>(*c)) continue;
        auto const mark = out.size();
        if (!first) out += ',';
        out += json_quote(f.name);
        out += ':';
        if (append_value(out, f, *c)) {
            first = false;
        } else {
            out.resize(mark);
        }
    }
    out += '}';
}

void append_array(std::string& out, model_spec const& model, std::span<record const> rows)
{
    out += '[';
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i != 0) out += ',';
        append_object(out, model, rows[i]);
    }
    out += ']';
}

// The length of the well-formed UTF-8 sequence at the start of `text` (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or 0 when it does not start with one.
std::size_t utf8_sequence(std::string_view text)
{
    auto const byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    auto const lead = byte(0);
    std::size_t const n = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2
                          : lead >= 0xE0 && lead <= 0xEF               ? 3
                          : lead >= 0xF0 && lead <= 0xF4               ? 4
                                                                       : 0;
    if (n == 0 || text.size() < n) return 0;
    for (std::size_t i = 1; i < n; ++i) {
        if ((byte(i) & 0xC0) != 0x80) return 0;
    }
    if (n == 3 && ((lead == 0xE0 && byte(1) < 0xA0) || (lead == 0xED && byte(1) > 0x9F))) return 0;
    if (n == 4 && ((lead == 0xF0 && byte(1) < 0x90) || (lead == 0xF4 && byte(1) > 0x8F))) return 0;
    return n;
}

}  // namespace

std::string json_quote(std::string_view text)
{
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (std::size_t i = 0; i < text.size(); ++i) {
        char const ch = text[i];
        auto const u = static_cast<unsigned char>(ch);
        if (u >= 0x80) {  // text from a request line may be any bytes: JSON must be UTF-8
            auto const n = utf8_sequence(text.substr(i));
            if (n == 0) {
                out += "\\ufffd";
            } else {
                out.append(text.substr(i, n));
                i += n - 1;
            }
            continue;
        }
        switch (ch) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += hex[u >> 4];
                out += hex[u & 0xF];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
    return out;
}

std::string json_ids(std::span<std::int64_t const> ids)
{
    std::string out = "[";
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i != 0) out += ',';
        out += std::to_string(ids[i]);
    }
    return out + "]";
}

std::string encode(model_spec const& model, record const& row)
{
    std::string out;
    append_object(out, model, row);
    return out;
}

std::string encode_list(model_spec const& model, std::span<record const> rows,
                        list_envelope const& page)
{
    auto const count = static_cast<std::int64_t>(rows.size());
    std::string out = "{\"items\":";
    append_array(out, model, rows);
    out += ",\"offset\":" + std::to_string(page.offset);
    out += ",\"max_limit\":" + std::to_string(page.max_limit);
    out += ",\"count\":" + std::to_string(count);
    out += ",\"total_count\":" + std::to_string(page.total_count);
    out += ",\"has_more\":";
    out += page.offset + count < page.total_count ? "true" : "false";
    return out + "}";
}

std::string encode_wrapped(model_spec const& model, std::span<record const> rows,
                           std::string_view key)
{
    std::string out = "{";
    out += json_quote(key);
    out += ':';
    append_array(out, model, rows);
    return out + "}";
}

std::string encode_array(model_spec const& model, std::span<record const> rows)
{
    std::string out;
    append_array(out, model, rows);
    return out;
}

std::string error_body(std::string_view message)
{
    auto const text = json_quote(message);
    std::string out = R"({"error":{"message":)";
    out += text;
    out += R"(},"message":)";
    out += text;
    out += '}';
    return out;
}

}  // namespace torcrun::api
