// The bounds on what one spec may expand to (docs/TORC-COMPATIBILITY.md §4.8), all in one
// place. Past each, reading or expanding stops with an error naming the limit, where it was
// crossed and the count reached, before memory grows past it: a small file cannot make
// torcrun take gigabytes. Nesting depth is bounded by core::json_max_depth in every format.
#pragma once

#include <cstddef>

namespace torcrun::core::spec {

// Nodes (scalars, sequences, mappings) that YAML aliases may copy into one document, in all;
// a document's own nodes are bounded by its size. The "billion laughs" file (under 600 bytes)
// would copy 9^9 strings.
inline constexpr std::size_t max_yaml_alias_nodes = 1'000'000;

// The values one parameter may yield (a range or a list); Torc loops forever on "0:inf".
inline constexpr std::size_t max_parameter_values = 1'000'000;

// The size of one `parameters_file` table's text; the loader refuses a larger file unread.
inline constexpr std::size_t max_parameter_table_bytes = 64 * 1024 * 1024;

// The combinations one template may expand over (also the rows of one parameters_file table).
inline constexpr std::size_t max_combinations = 1'000'000;

// Expanded entries across all templates of a spec: jobs, files and user data, each.
inline constexpr std::size_t max_total_jobs = 1'000'000;
inline constexpr std::size_t max_total_files = 1'000'000;
inline constexpr std::size_t max_total_user_data = 1'000'000;

// Dependency edges of a spec: explicit ones (depends_on and depends_on_regexes, counted per
// expansion before same-named expansions merge) plus implied ones (reader waits for writer of
// a file or user data), each kind counted once per pair.
inline constexpr std::size_t max_total_edges = 10'000'000;

// The four totals as one value, so that a test can lower them; expand_workflow takes these
// defaults.
struct expansion_limits {
    std::size_t jobs = max_total_jobs;
    std::size_t files = max_total_files;
    std::size_t user_data = max_total_user_data;
    std::size_t edges = max_total_edges;
};

}  // namespace torcrun::core::spec
