// Strict reading of one spec object into typed fields (private to src/spec), with the rules of
// docs/TORC-COMPATIBILITY.md §4.1: unknown keys are errors, `null` means absent, integers must be
// JSON integers in range, booleans JSON booleans. The first problem is kept in the shared
// parse_state and later reads return defaults, so a parser reads as a plain list of fields and
// checks for an error once at the end.
#pragma once

#include "spec_tables.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/spec/parameter_combinations.hpp"
#include "torcrun/spec/spec_keys.hpp"
#include "torcrun/spec/spec_reader.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core::spec::detail {

inline constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();

struct parse_state {
    spec_document const& document;
    std::optional<error> first;
    spec_tables* tables = nullptr;              // where parameters_file tables are read
    std::optional<std::string> workflow_table;  // the workflow's parameters_file, as written

    bool ok() const noexcept { return !first; }
    // Keeps the first failure: "location: context: detail".
    void fail(std::string_view pointer, bool at_key, std::string_view context,
              std::string_view detail);
};

// JSON5's NaN and Infinity cannot live in serde_json's value, so Torc sees them as null.
bool is_absent(boost::json::value const* value) noexcept;

// A copy with NaN and Infinity replaced by null, as serde_json would hold it.
boost::json::value normalized(boost::json::value const& value);

class field_reader {
public:
    // `context` names the object in messages: "workflow", `jobs[3] "train_{i}"`.
    field_reader(parse_state& state, boost::json::value const& value, std::string pointer,
                 std::string context);

    // Checks that the value is an object and, for a kind whose other keys are refused, that it
    // has no key outside the kind's row of the key table (spec_keys.hpp): the table is the one
    // list of the keys a spec object may hold.
    bool begin(spec_object_kind kind);
    // Checks only that the value is an object (for maps of names: job_stdio_overrides).
    bool begin_any();

    std::string const& pointer() const noexcept { return pointer_; }
    std::string const& context() const noexcept { return context_; }
    std::string where() const { return state_.document.location(pointer_); }
    parse_state& state() noexcept { return state_; }

    // The member's value, or nullptr when absent or null.
    boost::json::value const* get(std::string_view key) const;
    std::string member_pointer(std::string_view key) const;
    void fail(std::string_view key, std::string_view detail, bool at_key = false);

    std::string string(std::string_view key);  // required
    std::optional<std::string> optional_string(std::string_view key);
    std::string string_or(std::string_view key, std::string fallback);
    bool boolean(std::string_view key, bool fallback);
    std::optional<bool> optional_boolean(std::string_view key);
    std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max);  // required
    std::int64_t integer_or(std::string_view key, std::int64_t fallback, std::int64_t min,
                            std::int64_t max);
    std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t min,
                                                 std::int64_t max);
    std::vector<std::string> strings(std::string_view key);
    std::optional<std::vector<std::string>> optional_strings(std::string_view key);
    std::vector<std::int32_t> int32s(std::string_view key);
    // A `parameters` object: name -> value text. Strings are taken as written; other values
    // (newer Torc's native lists, numbers) as their serde_json text, which the value grammar
    // reads as Torc does (docs/TORC-COMPATIBILITY.md §4.4).
    std::optional<raw_parameters> parameters(std::string_view key);
    // An `env` object (newer Torc): names [A-Za-z_][A-Za-z0-9_]*, string values, in spec order.
    std::vector<std::pair<std::string, std::string>> env(std::string_view key);
    // A string that must be one of `choices`; its index, or nullopt (absent, or an error).
    std::optional<std::size_t> choice(std::string_view key,
                                      std::initializer_list<std::string_view> choices);
    // The member as a list, or nullptr (absent, null, or not a list: an error).
    boost::json::array const* list(std::string_view key);
    // The member as an object, or nullptr (absent, null, or not an object: an error).
    boost::json::object const* object(std::string_view key);

private:
    void type_error(std::string_view key, std::string_view expected,
                    boost::json::value const& found);
    std::optional<std::int64_t> to_integer(std::string_view key, boost::json::value const& v,
                                           std::int64_t min, std::int64_t max);

    parse_state& state_;
    boost::json::value const& value_;
    std::string pointer_;
    std::string context_;
    boost::json::object const* object_ = nullptr;
};

// "jobs[3]" plus the entry's name when it has a string one: `jobs[3] "train_{i}"`.
std::string entry_context(std::string_view list, std::size_t index,
                          boost::json::value const& entry);

// The known name closest to `key` (optimal string alignment distance at most 2, and at most
// a third of the key's length), or an empty view.
std::string_view closest_name(std::string_view key, std::span<spec_key const> known);

}  // namespace torcrun::core::spec::detail
