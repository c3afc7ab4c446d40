// A reader for JSON and the JSON5 that Torc's example specs use, which remembers where every value
// and every object key came from, so configuration and spec errors can say `file:line:col`.
// Boost.JSON cannot report value positions nor read unquoted keys; the values it builds are still
// plain boost::json values.
//
// Accepted beyond strict JSON: `//` and `/* */` comments, trailing commas, identifier keys
// (ASCII letters, digits, `_`, `$` and any non-ASCII character), single-quoted strings, the
// JSON5 escapes (`\'`, `\v`, `\0`, `\xHH`, line continuations, any other character escaping to
// itself), hexadecimal integers, a leading `+`, a leading or trailing decimal point, Infinity
// and NaN, and the JSON5 white space (no-break space, BOM, U+2028/9 and the Zs spaces).
// Integers that fit become int64 (or uint64 above INT64_MAX); every other number is a double.
// Columns count Unicode code points from 1; only LF, CR and CRLF end a line.
#pragma once

#include "torcrun/common/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// Containers nested deeper than this are rejected instead of exhausting the stack.
inline constexpr std::size_t json_max_depth = 256;

struct source_position {
    std::uint32_t line = 0;
    std::uint32_t column = 0;

    bool operator==(source_position const&) const = default;
};

// A parsed document plus the positions of its values and keys, addressed by JSON pointer
// (RFC 6901: "" is the root, "/poll/interval_seconds", "/jobs/3/name").
class json_document {
public:
    boost::json::value const& root() const noexcept { return root_; }
    std::string const& origin() const noexcept { return origin_; }

    // Where the value at `pointer` starts, or nullopt when nothing is there.
    std::optional<source_position> value_position(std::string_view pointer) const;
    // Where the key naming the member at `pointer` starts; nullopt for the root, array
    // elements and missing members.
    std::optional<source_position> key_position(std::string_view pointer) const;

    // "origin:line:col" of the value (or of its key when `at_key`), or just the origin when
    // the pointer names nothing.
    std::string location(std::string_view pointer, bool at_key = false) const;

private:
    friend class json_parser;

    struct node_record {
        source_position value;
        source_position key;
        std::uint32_t first_child = 0;  // index into children_ (containers only)
    };

    std::optional<std::size_t> find_node(std::string_view pointer) const;

    boost::json::value root_;
    std::string origin_;
    std::vector<node_record> nodes_;               // one per value, in document order
    std::vector<std::uint32_t> children_;  // each container's child node indices, contiguous
};

// Parses `text`. `origin` (usually the file name) starts every error message:
// `worker.json:3:14: expected ',' or '}' after an object member, found a string`.
result<json_document> read_json(std::string_view text, std::string_view origin);

// `pointer` extended by one object key or array index, with `~` and `/` escaped.
std::string json_pointer_append(std::string_view pointer, std::string_view key);
std::string json_pointer_append(std::string_view pointer, std::size_t index);

}  // namespace torcrun::core
