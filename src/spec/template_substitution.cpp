// Template substitution (docs/TORC-COMPATIBILITY.md §4.5) in two flavours: torcrun's single pass
// that replaces every placeholder, and Torc 0.10's per-name `find` + `replace` that skips all but
// the first formatted variant. The second exists only to tell users where the first differs (§4.10
// item 7).
#include "torcrun/spec/template_substitution.hpp"

#include "torcrun/spec/rust_text.hpp"
#include "message_text.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <variant>

namespace torcrun::core::spec {

namespace {

std::string template_prefix(std::string_view template_text)
{
    return concat({"template ", quoted(template_text), ": "});
}

void push_unique(std::vector<std::string>& list, std::string item)
{
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
}

// The N of `0Nd` (integers) or `.Nf` (floats) when the spec has the form its value's type
// takes, as Torc's strip_suffix / strip_prefix / parse::<usize> chain decides.
std::optional<std::uint64_t> spec_number(parameter_value const& value, std::string_view spec)
{
    if (spec.size() < 2) return std::nullopt;
    std::string_view const inner = spec.substr(1, spec.size() - 2);
    if (std::holds_alternative<std::int64_t>(value.v) && spec.front() == '0' && spec.back() == 'd')
        return rust::parse_usize(inner);
    if (std::holds_alternative<double>(value.v) && spec.front() == '.' && spec.back() == 'f')
        return rust::parse_usize(inner);
    return std::nullopt;
}

bool exceeds_format_limit(parameter_value const& value, std::string_view spec)
{
    auto const n = spec_number(value, spec);
    return n && *n > max_format_width;
}

// The placeholder of `name` at the start of `rest`: `{name}` or `{name:spec}` with the spec
// running to the first `}`.
std::optional<std::string_view> placeholder_of(std::string_view rest, std::string_view name)
{
    if (rest.size() < name.size() + 2 || rest[0] != '{' || rest.substr(1, name.size()) != name)
        return std::nullopt;
    char const after = rest[name.size() + 1];
    if (after == '}') return rest.substr(0, name.size() + 2);
    if (after != ':') return std::nullopt;
    auto const close = rest.find('}', name.size() + 2);
    if (close == std::string_view::npos) return std::nullopt;
    return rest.substr(0, close + 1);
}

// The placeholders of `name` that Torc leaves literal: when `{name:` occurs with a `}` after
// it, every `{name}` and every `{name:spec}` other than that first one.
void add_left_literal(std::string_view t, std::string_view name, std::vector<std::string>& out)
{
    std::string const prefix = concat({"{", name, ":"});
    auto const first = t.find(prefix);
    if (first == std::string_view::npos) return;
    auto const chosen = placeholder_of(t.substr(first), name);
    if (!chosen) return;
    for (auto pos = t.find('{'); pos != std::string_view::npos; pos = t.find('{', pos + 1)) {
        auto const text = placeholder_of(t.substr(pos), name);
        if (text && *text != *chosen) push_unique(out, std::string(*text));
    }
}

void add_torc_warnings(std::string_view t, combination const& bindings, substitution_result& out)
{
    std::string const torc = substitute_as_torc(t, bindings);
    if (torc == out.text) return;
    std::vector<std::string> literal;
    for (auto const& b : bindings) add_left_literal(t, b.name, literal);
    for (auto const& text : literal) {
        out.warnings.push_back(concat({template_prefix(t), "Torc 0.10 would leave ", quoted(text),
                                       " literal here; torcrun substitutes it"}));
    }
    // Left: differences from Torc re-scanning inserted values, e.g. a value "{b}".
    if (literal.empty()) {
        out.warnings.push_back(concat({template_prefix(t), "Torc 0.10 would produce ", quoted(torc),
                                       " here; torcrun produces ", quoted(out.text)}));
    }
}

std::string replace_all(std::string_view text, std::string_view from, std::string_view to)
{
    std::string out;
    std::size_t pos = 0;
    for (auto hit = text.find(from); hit != std::string_view::npos; hit = text.find(from, pos)) {
        out.append(text.substr(pos, hit - pos)).append(to);
        pos = hit + from.size();
    }
    return out.append(text.substr(pos));
}

}  // namespace

std::string format_value(parameter_value const& value, std::string_view spec)
{
    auto const n = spec_number(value, spec);
    if (!n || *n > max_format_width) return plain_form(value);
    if (auto const* i = std::get_if<std::int64_t>(&value.v)) return rust::zero_padded_i64(*i, *n);
    return rust::fixed_f64(std::get<double>(value.v), *n);
}

substitution_result substitute(std::string_view template_text, combination const& bindings,
                               bool compare_with_0_10)
{
    substitution_result out;
    std::string_view const t = template_text;
    std::size_t pos = 0;
    while (pos < t.size()) {
        auto const brace = t.find('{', pos);
        out.text.append(t.substr(pos, brace - pos));
        if (brace == std::string_view::npos) break;
        named_value const* bound = nullptr;  // the first bound name whose placeholder is here
        std::optional<std::string_view> text;
        for (auto it = bindings.begin(); it != bindings.end() && !bound; ++it) {
            if ((text = placeholder_of(t.substr(brace), it->name))) bound = &*it;
        }
        if (!bound) {
            out.text += '{';
            pos = brace + 1;
            continue;
        }
        std::size_t const head = bound->name.size() + 2;  // "{name}" or "{name:"
        if (text->size() == head) {
            out.text += plain_form(bound->value);
        } else {
            std::string_view const spec = text->substr(head, text->size() - head - 1);
            out.text += format_value(bound->value, spec);
            if (exceeds_format_limit(bound->value, spec)) {
                push_unique(out.warnings, concat({template_prefix(t), quoted(*text),
                                                  " exceeds the ", std::to_string(max_format_width),
                                                  "-character limit; the plain form is used"}));
            }
        }
        pos = brace + text->size();
    }
    if (compare_with_0_10) add_torc_warnings(t, bindings, out);
    return out;
}

std::string substitute_as_torc(std::string_view template_text, combination const& bindings)
{
    std::string result(template_text);
    for (auto const& b : bindings) {
        std::string const prefix = concat({"{", b.name, ":"});
        auto const start = result.find(prefix);
        // Torc searches for `}` from the brace and panics when the name itself holds a `}`;
        // for every other name searching after the prefix finds the same `}`.
        auto const close = start == std::string::npos ? std::string::npos
                                                      : result.find('}', start + prefix.size());
        if (close != std::string::npos) {
            std::string const full = result.substr(start, close - start + 1);
            std::string_view const spec =
                std::string_view(full).substr(prefix.size(), full.size() - prefix.size() - 1);
            result = replace_all(result, full, format_value(b.value, spec));
            continue;
        }
        result = replace_all(result, concat({"{", b.name, "}"}), plain_form(b.value));
    }
    return result;
}

}  // namespace torcrun::core::spec
