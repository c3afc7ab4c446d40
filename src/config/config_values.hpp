// The configuration schema engine (private to src/config), untyped part. Values pass through
// three forms:
//   file form   what a file or to_json says: "16m", "SIGTERM", "auto", "2025-06-30T17:00:00Z";
//   normalized  what check_value returns: bytes, signal number, choice index, Unix seconds;
//   member      the struct field (config_fields.hpp).
// This part checks file values and override text against a rule and walks whole documents.
#pragma once

#include "torcrun/common/concat.hpp"

#include "torcrun/config/config_schema.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/json_reader.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core::detail {

// What is wrong with a value, and where inside it (an array element or an object member,
// relative to the key): pointer "/2" with label "[2]", or pointer "/FOO" with label ".FOO".
struct value_problem {
    std::string detail;
    std::string pointer_suffix;
    std::string label_suffix;
    bool at_key = false;
};
using checked_value = boost::system::result<boost::json::value, value_problem>;

inline value_problem problem(std::string detail) { return {std::move(detail), {}, {}, false}; }

checked_value check_value(value_rule const& rule, boost::json::value const& file_value);
checked_value value_from_text(value_rule const& rule, std::string_view text);
boost::json::value file_form(value_rule const& rule, boost::json::value const& normalized);

// "a string", "an integer", ... for "expected X, found Y".
std::string describe_json(boost::json::value const& value);

using accept_fn = std::function<void(std::size_t rule_index, boost::json::value const&)>;

// Checks every member of `doc` against `rules` and hands each valid value to `accept`;
// returns the error lines (located, in file order).
std::vector<std::string> check_document(json_document const& doc,
                                        std::span<key_rule const* const> rules,
                                        accept_fn const& accept);

// `origin: unknown key "..." (did you mean "..."?)` for an override of an unknown key path.
std::string unknown_override_key(std::span<key_rule const* const> rules, std::string_view path,
                                 std::string_view origin);

// A rule between keys that failed: the key to blame, what is wrong, and the other key involved
// (blamed instead when only it was set on the command line).
struct cross_problem {
    std::string path;
    std::string detail;
    std::string other_path;
};

std::string join_lines(std::vector<std::string> const& lines);
std::string pointer_of(
    std::string_view path);  // "poll.interval_seconds" -> "/poll/interval_seconds"

// Nests a file-form value under its dotted path.
void put_path(boost::json::object& root, std::string_view path, boost::json::value value);

}  // namespace torcrun::core::detail
