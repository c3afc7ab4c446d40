// Newer Torc's workflow `variables` (private to src/spec; docs/TORC-COMPATIBILITY.md §4.5):
// constants substituted as `{name}` into every string of the spec before it is read, so before
// parameter expansion, with Torc's checks (its apply_workflow_variables, read at 07313dd).
#pragma once

#include "spec_tables.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/spec/spec_reader.hpp"

#include <boost/json/value.hpp>

#include <optional>

namespace torcrun::core::spec::detail {

// The document's root with the variables substituted, or nullopt when the spec has no
// (non-empty) `variables`: then nothing is checked, as in Torc. Refused, each at its
// file:line:col: a name that is not [A-Za-z_][A-Za-z0-9_]*, a value that is not a string, a
// value holding a `{name}` reference, a variable named like a parameter (a `parameters` key
// anywhere, or a column of a readable parameters_file table), and a `{name}` anywhere that is
// neither a variable nor a parameter. Not substituted: the `variables` map, `parameters` keys,
// `use_parameters` entries, object keys, and `${...}`.
result<std::optional<boost::json::value>> apply_workflow_variables(spec_document const& document,
                                                                   spec_tables& tables);

}  // namespace torcrun::core::spec::detail
