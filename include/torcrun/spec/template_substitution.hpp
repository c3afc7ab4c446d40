// Placeholder substitution in job and file templates (docs/TORC-COMPATIBILITY.md §4.5): `{name}`
// prints the plain form, `{name:0Nd}` zero-pads integers, `{name:.Nf}` rounds floats, any other
// spec prints the plain form. torcrun substitutes every placeholder (§4.10 item 7); Torc 0.10
// replaces only the first formatted variant of a name and leaves the rest literal.
// `substitute_as_torc` reproduces Torc's algorithm so torcrun can warn where the two differ.
#pragma once

#include "torcrun/spec/parameter_combinations.hpp"
#include "torcrun/spec/parameter_values.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core::spec {

// Widths and precisions above this print the plain form, with a warning: Torc would build a
// string of that many characters, which a server must not do on request.
inline constexpr std::size_t max_format_width = 1024;

// Torc's `ParameterValue::format(Some(spec))`: `0Nd` on an integer (N a usize, `+N` accepted,
// sign inside the width), `.Nf` on a float; everything else, and N above max_format_width,
// gives plain_form(value).
std::string format_value(parameter_value const& value, std::string_view spec);

struct substitution_result {
    std::string text;
    std::vector<std::string> warnings;
};

// torcrun's substitution: one left-to-right pass; every `{name}` and `{name:spec}` of a bound
// name is replaced (the spec runs to the first `}`), text inserted is not scanned again, and
// unknown names stay literal. `${name}` therefore becomes `$` plus the value, as in Torc.
// Where two bound names match at one brace (`a` and `a:b` at `{a:b}`), the earlier binding wins.
// Where Torc 0.10 would produce a different text, a warning names each placeholder it would
// leave literal, e.g. `template "{i:03d}-{i}": Torc 0.10 would leave "{i}" literal here;
// torcrun substitutes it`. These name no values, so callers can deduplicate them across an
// entry's combinations. A difference of any other kind gets one warning quoting both texts.
// With `compare_with_0_10` false (a spec read by newer Torc's rules, whose substitution replaces
// every placeholder as torcrun does) those comparisons are not made.
substitution_result substitute(std::string_view template_text, combination const& bindings,
                               bool compare_with_0_10 = true);

// Torc 0.10's `substitute_parameters`, bindings taken in the given order (Torc's is its
// HashMap's): per name, if `{name:` occurs with a `}` after it, only that first exact
// `{name:spec}` text is replaced (everywhere); otherwise every `{name}` is.
std::string substitute_as_torc(std::string_view template_text, combination const& bindings);

}  // namespace torcrun::core::spec
