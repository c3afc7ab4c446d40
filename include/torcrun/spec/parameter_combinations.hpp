// Which parameters a job or file template uses and the combinations it expands over
// (docs/TORC-COMPATIBILITY.md §4.4). Torc iterates a HashMap, so its nesting order is random;
// torcrun uses declaration order with the first parameter outermost. The set of combinations is the
// same.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/spec/parameter_values.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::core::spec {

// Parameter name -> value string, in declaration order (a JSON object's keys).
using raw_parameters = std::vector<std::pair<std::string, std::string>>;

struct parameter_selection {
    // nullopt: the entry is not parameterized (copied once, `{x}` stays literal). An empty
    // vector (own `parameters: {}`) is parameterized with one empty combination.
    std::optional<raw_parameters> parameters;
    std::vector<std::string> warnings;
};

// Own `parameters` win, even `{}`, and `use_parameters` beside them is ignored (warned).
// Otherwise `use_parameters` names are taken from `pool` in the order listed, repeats once;
// names missing from the pool are skipped with a warning each (Torc skips them silently);
// if none is found the entry is unparameterized. Messages carry no entry name: the caller
// prefixes it.
parameter_selection select_parameters(std::optional<raw_parameters> const& own,
                                      std::optional<std::vector<std::string>> const& use,
                                      raw_parameters const& pool);

struct named_values {
    std::string name;
    std::vector<parameter_value> values;
};

struct named_value {
    std::string name;
    parameter_value value;

    bool operator==(named_value const&) const = default;
};

// One expanded entry's bindings, in declaration order.
using combination = std::vector<named_value>;

enum class parameter_mode { product, zip };

// nullopt (absent) is product. Anything but "product" or "zip" is an error (§4.10 item 14;
// Torc silently treats it as product): `parameter_mode: "Zip" is neither "product" nor "zip"`.
result<parameter_mode> parse_parameter_mode(std::optional<std::string_view> mode);

// More than max_combinations is an error rather than an attempt to build them.
// product: Cartesian product, first parameter outermost. zip: the i-th values together; all
// counts must match (Torc's message). A parameter with zero values gives zero combinations;
// no parameters at all give one empty combination.
result<std::vector<combination>> combine_parameters(std::vector<named_values> const& parameters,
                                                    std::optional<std::string_view> mode);

// How many combinations combine_parameters gives, with its errors, without building them.
result<std::size_t> count_combinations(std::vector<named_values> const& parameters,
                                       std::optional<std::string_view> mode);

}  // namespace torcrun::core::spec
