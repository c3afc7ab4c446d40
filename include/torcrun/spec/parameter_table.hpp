// A `parameters_file` table of newer Torc (docs/TORC-COMPATIBILITY.md §4.4): each CSV row, each
// object of a JSON array and each non-blank JSONL line is one combination, its columns or keys
// the names bound. CSV cells are typed as Torc types them (integer, else float, else string, by
// Rust's parsing); JSON numbers keep their type and other non-strings become their serde_json
// text. The reader is pure: the table's text comes from the caller through a table_loader.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/spec/parameter_combinations.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core::spec {

// The text of the table at `path`, the spec's `parameters_file` as written (after `variables`).
// Torc reads it relative to the working directory, and so does torcrun's CLI (src/cli/io). An
// error's message is used as given: "PATH: cannot read: REASON".
using table_loader = std::function<result<std::string>(std::string const& path)>;

struct parameter_table {
    std::vector<std::string> columns;  // every name, in first-seen order
    std::vector<combination> rows;     // a JSON row binds only the keys it has
};

// Parses `text` by the extension of `path`, case-insensitively: `.csv`, `.json` (an array of
// objects), `.jsonl` or `.ndjson`. Errors name the file and the row's line, e.g.
// `sweep.csv:3: row 2 has 3 cells, the header has 4`. An empty table is an error (as in Torc);
// so are more than max_combinations rows and a text longer than max_parameter_table_bytes.
result<parameter_table> parse_parameter_table(std::string_view text, std::string_view path);

}  // namespace torcrun::core::spec
