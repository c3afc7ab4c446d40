// Torc's parameter value grammar (Torc 0.10 `parse_parameter_value`, docs/TORC-COMPATIBILITY.md
// §4.4): trim, unwrap `{...}`, then a list, a range or a single scalar. Only the failure modes
// change: Torc's errors become messages naming the parameter, and ranges that never end in Torc
// are bounded by max_parameter_values.
#include "torcrun/spec/parameter_values.hpp"

#include "torcrun/spec/rust_text.hpp"
#include "message_text.hpp"

#include <cmath>
#include <optional>

namespace torcrun::core::spec {

namespace {

using values = std::vector<parameter_value>;

struct value_context {
    std::string_view text;  // as the user wrote it, for messages
    std::string_view name;
};

error value_error(value_context const& ctx, std::string_view detail)
{
    return error{concat({"parameter \"", ctx.name, "\": \"", ctx.text, "\" ", detail})};
}

error too_many_values(value_context const& ctx)
{
    return value_error(
        ctx, concat({"yields more than ", std::to_string(max_parameter_values), " values"}));
}

std::string_view strip_all(std::string_view s, char front, char back)
{
    while (!s.empty() && s.front() == front) s.remove_prefix(1);
    while (!s.empty() && s.back() == back) s.remove_suffix(1);
    return s;
}

// A list item or a bare scalar: i64, else f64, else the text itself.
parameter_value scalar(std::string_view text)
{
    if (auto i = rust::parse_i64(text)) return {*i};
    if (auto f = rust::parse_f64(text)) return {*f};
    return {std::string(text)};
}

// `[a, b, ...]`: every bracket at either end goes, commas always split (quotes do not protect
// them), and non-numeric items lose their surrounding single, then double quotes.
result<values> parse_list(std::string_view body, value_context const& ctx)
{
    std::string_view const inner = rust::trim(strip_all(body, '[', ']'));
    values out;
    if (inner.empty()) return out;
    std::size_t start = 0;
    while (true) {
        if (out.size() == max_parameter_values) return too_many_values(ctx);
        auto const comma = inner.find(',', start);
        std::string_view const item = rust::trim(inner.substr(start, comma - start));
        parameter_value value = scalar(item);
        if (auto* s = std::get_if<std::string>(&value.v))
            *s = std::string(strip_all(strip_all(item, '\'', '\''), '"', '"'));
        out.push_back(std::move(value));
        if (comma == std::string_view::npos) return out;
        start = comma + 1;
    }
}

// Inclusive of `end`; a range running the wrong way is empty. Counted up front in unsigned
// arithmetic, which is exact for any i64 bounds and step.
result<values> integer_range(std::int64_t start, std::int64_t end, std::string_view step_text,
                             value_context const& ctx)
{
    std::int64_t step = 1;
    if (!step_text.empty()) {
        auto const parsed = rust::parse_i64(step_text);
        if (!parsed) {
            return value_error(
                ctx, concat({"is an integer range with a non-integer step \"", step_text, "\""}));
        }
        step = *parsed;
    }
    if (step == 0) return value_error(ctx, "has a zero step");
    auto const ustart = static_cast<std::uint64_t>(start);
    auto const uend = static_cast<std::uint64_t>(end);
    auto const ustep = static_cast<std::uint64_t>(step);
    std::uint64_t steps = 0;  // count - 1
    if (step > 0 && start <= end)
        steps = (uend - ustart) / ustep;
    else if (step < 0 && start >= end)
        steps = (ustart - uend) / (0 - ustep);
    else
        return values{};
    if (steps >= max_parameter_values) return too_many_values(ctx);
    values out;
    out.reserve(steps + 1);
    for (std::uint64_t k = 0; k <= steps; ++k)
        out.push_back({static_cast<std::int64_t>(ustart + k * ustep)});
    return out;
}

// Repeated addition with Torc's 1e-10 slack at the end, so "0.0:1.0:0.1" ends at
// 0.9999999999999999 and "0.1:0.3:0.1" keeps 0.30000000000000004.
result<values> float_range(double start, double end, std::string_view step_text,
                           value_context const& ctx)
{
    double step = 1.0;
    if (!step_text.empty()) {
        auto const parsed = rust::parse_f64(step_text);
        if (!parsed) {
            return value_error(
                ctx, concat({"is a float range with a non-numeric step \"", step_text, "\""}));
        }
        step = *parsed;
    }
    if (step == 0.0) return value_error(ctx, "has a zero step");
    values out;
    bool const ascending = step > 0.0;  // a NaN step takes Torc's descending branch too
    for (double cur = start; ascending ? cur <= end + 1e-10 : cur >= end - 1e-10; cur += step) {
        if (out.size() == max_parameter_values) return too_many_values(ctx);
        out.push_back({cur});
    }
    return out;
}

result<parsed_parameter> parse_range(std::string_view body, value_context const& ctx)
{
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        auto const colon = body.find(':', start);
        parts.push_back(rust::trim(body.substr(start, colon - start)));
        if (colon == std::string_view::npos) break;
        start = colon + 1;
    }
    if (parts.size() > 3) {
        return value_error(ctx, concat({"has ", std::to_string(parts.size()),
                                        " parts; a range is start:end or start:end:step"}));
    }
    std::string_view const step = parts.size() == 3 ? parts[2] : std::string_view{};
    auto const istart = rust::parse_i64(parts[0]);
    auto const iend = rust::parse_i64(parts[1]);
    if (istart && iend) {
        auto r = integer_range(*istart, *iend, step, ctx);
        if (!r) return r.error();
        return parsed_parameter{std::move(*r), {}};
    }
    auto const fstart = rust::parse_f64(parts[0]);
    auto const fend = rust::parse_f64(parts[1]);
    if (!fstart || !fend) return value_error(ctx, "is a range whose start and end are not numbers");
    auto r = float_range(*fstart, *fend, step, ctx);
    if (!r) return r.error();
    parsed_parameter out{std::move(*r), {}};
    double const step_value = step.empty() ? 1.0 : *rust::parse_f64(step);
    // The docs read "0.0001:0.01:10" as log-spaced; the step is added, so one value comes out.
    if (out.values.size() == 1 && *fstart != *fend &&
        std::abs(step_value) > std::abs(*fend - *fstart)) {
        out.warnings.push_back(
            value_error(ctx, concat({"yields the single value ", rust::display_f64(*fstart),
                                     ": its step ", rust::display_f64(step_value),
                                     " exceeds the span, and steps are added, not multiplied"}))
                .message);
    }
    return out;
}

}  // namespace

std::string plain_form(parameter_value const& value)
{
    struct visitor {
        std::string operator()(std::int64_t i) const { return std::to_string(i); }
        std::string operator()(double f) const { return rust::display_f64(f); }
        std::string operator()(std::string const& s) const { return s; }
    };
    return std::visit(visitor{}, value.v);
}

result<parsed_parameter> parse_parameter_values(std::string_view text, std::string_view name)
{
    value_context const ctx{text, name};
    std::string_view body = rust::trim(text);
    // Newer Torc (v0.25) reads "@path" as a list from that file, one value per line; Torc 0.10 took
    // it as a string. Neither meaning is right silently here: refused until torcrun reads it.
    if (body.starts_with('@'))
        return value_error(ctx, "is a file-backed list (newer Torc reads one value per line of "
                                "the file after '@'), which torcrun does not read yet; write the "
                                "values as a list or a range, or use parameters_file");
    // "{1:5}" is a common slip for "1:5"; a comma means it is something else.
    if (body.size() >= 2 && body.front() == '{' && body.back() == '}' &&
        body.find(',') == std::string_view::npos) {
        body = rust::trim(body.substr(1, body.size() - 2));
    }
    if (body.size() >= 2 && body.front() == '[' && body.back() == ']') {
        auto list = parse_list(body, ctx);
        if (!list) return list.error();
        return parsed_parameter{std::move(*list), {}};
    }
    if (body.find(':') != std::string_view::npos) return parse_range(body, ctx);
    return parsed_parameter{{scalar(body)}, {}};
}

}  // namespace torcrun::core::spec
