// The records of a CSV text (private to src/spec), for newer Torc's `parameters_file` tables
// (docs/TORC-COMPATIBILITY.md §4.4). Torc reads them with Rust's csv crate at its defaults, and
// this reader keeps those: comma-separated, `"` quotes with `""` inside them, LF, CR or CRLF
// line ends (also inside quotes, as text), blank lines skipped, a UTF-8 byte-order mark at the
// start dropped, cells not trimmed, a quote inside an unquoted cell or after a closing quote
// taken as text, an unterminated quote running to the end.
//
// Written here rather than taken from a library: Debian 12's only CSV package for C or C++ is
// libcsv (libcsv-dev 3.0.3, LGPL-2.1, a callback-driven C parser). It would add a shared
// library and a second license to the build for what is a 60-line state machine, and it does
// not tell on which line a record starts, which every message about a table row must name.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core::spec::detail {

struct csv_record {
    std::size_t line = 0;  // where the record starts, from 1
    std::vector<std::string> fields;
};

// All records of `text`: the header, then the rows. More than `max_rows` rows is an error
// naming `origin`, the line and the limit, before more memory is taken.
result<std::vector<csv_record>> read_csv_records(std::string_view text, std::string_view origin,
                                                 std::size_t max_rows);

}  // namespace torcrun::core::spec::detail
