// One workflow-spec parameter: its value string ("1:5", "[1,'a']", "0.0:1.0:0.1") parsed into the
// values a template expands over, exactly as Torc 0.10 does (docs/TORC-COMPATIBILITY.md §4.4), and
// the plain form a value prints as in a template (§4.5). Where Torc silently produces something
// users do not expect, torcrun adds a warning (§4.10 item 4).
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/spec/spec_limits.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace torcrun::core::spec {

// Integers and floats stay apart: `{i:03d}` pads integers only and `{x:.2f}` formats floats only.
struct parameter_value {
    std::variant<std::int64_t, double, std::string> v;

    bool operator==(parameter_value const&) const = default;
};

// What `{name}` prints (Rust Display): integers in decimal, strings verbatim, floats as the
// shortest round-trip decimal without exponent (`1`, `0.30000000000000004`, `-0`, `NaN`, `inf`).
std::string plain_form(parameter_value const& value);

struct parsed_parameter {
    std::vector<parameter_value> values;  // may be empty: the template then expands to nothing
    std::vector<std::string> warnings;
};

// Parses the value string of parameter `name`; more than max_parameter_values values (Torc
// loops forever on "0:inf" or "1:2:1e-20") is an error instead of a hang or an out-of-memory
// crash. Errors name the parameter and quote `text` as given, e.g.
// `parameter "lr": "0:1:0.25" is an integer range with a non-integer step "0.25"`.
// Integer ranges stop at their end even where Torc's i64 arithmetic would overflow. A value
// "@path" (newer Torc's file-backed list) is refused by name.
result<parsed_parameter> parse_parameter_values(std::string_view text, std::string_view name);

}  // namespace torcrun::core::spec
