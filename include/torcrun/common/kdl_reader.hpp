// A reader of KDL 2.0.0 documents (https://kdl.dev), the language of Torc's `.kdl` workflow specs,
// which remembers where every node, entry and value came from so errors can say `file:line:col`.
//
// Our own, beside the JSON5 reader: Debian 12 packages no KDL library for C or C++ (its `kdl`
// packages are Orocos' kinematics library), and a library from elsewhere is not a dependency
// torcrun may take. Torc reads KDL with the Rust `kdl` crate 6.5 without its `v1` feature, so
// KDL 2.0 alone: `#true`/`#false`/`#null`/`#inf`/`#-inf`/`#nan`, bare identifiers as strings,
// raw strings `#"…"#`, multi-line `"""` strings (dedented by their closing line), `\s` and
// whitespace escapes, slashdash `/-` on nodes, entries and children blocks, `\` line
// continuations, nested `/* */` comments. A KDL 1 document is an error where it differs (bare
// `true`, `r"…"` raw strings), with a hint at the KDL 2 form.
//
// Values are typed as the crate types them: an integer without `.` or exponent (decimal, 0x,
// 0o, 0b, with `_` separators) is an integer, which torcrun bounds to 64 bits; anything else
// numeric is a double. Type annotations `(t)` are read and dropped (Torc ignores them).
// Columns count Unicode code points from 1; CRLF, CR, LF, VT, NEL, FF, LS and PS end a line.
// Checked against the language's own test suite (kdl-org/kdl `tests/test_cases` at f238372, by
// hand, not in this repository): 334 of its 336 documents are read or refused as expected, the
// other two hold integers beyond 64 bits.
// Children blocks nested deeper than core::json_max_depth are an error.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/json_reader.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace torcrun::core {

struct kdl_value {
    std::variant<std::nullptr_t, bool, std::int64_t, double, std::string> data;
    source_position where;

    std::string const* as_string() const noexcept { return std::get_if<std::string>(&data); }
    std::int64_t const* as_integer() const noexcept { return std::get_if<std::int64_t>(&data); }
    bool const* as_bool() const noexcept { return std::get_if<bool>(&data); }
};

// An argument (no name) or a property (`name=value`), in the order written.
struct kdl_entry {
    std::optional<std::string> name;
    source_position where;  // the property's name, or the argument's value
    kdl_value value;
};

struct kdl_node {
    std::string name;
    source_position where;  // the node's name
    std::vector<kdl_entry> entries;
    std::optional<std::vector<kdl_node>> children;  // absent without a `{ }` block

    // The last property called `key` (KDL: the rightmost wins), or null.
    kdl_value const* property(std::string_view key) const noexcept;
};

struct kdl_document {
    std::string origin;
    std::vector<kdl_node> nodes;
};

// "description of what is here" for messages: `the string "4"`, `the integer 4`, `#true`.
std::string describe(kdl_value const& value);

// Parses `text`. `origin` (usually the file name) starts every error message:
// `spec.kdl:3:14: a quoted string cannot span lines; write a multi-line string with """`.
result<kdl_document> read_kdl(std::string_view text, std::string_view origin);

}  // namespace torcrun::core
