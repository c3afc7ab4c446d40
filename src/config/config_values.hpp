// Reading configuration values (private to src/config): checking a file value or override
// text against its key's rule, walking a whole document with located errors, and the generic
// parse and override steps every configuration's table shares.
#pragma once

#include "config_table.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/config/config.hpp"
#include "torcrun/config/config_schema.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/json_reader.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <optional>
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

// Where a rule between keys is blamed: the last override that set either key (the blamed one
// first), else the blamed key in the file, else the file.
std::string blame_location(json_document const& doc, std::span<config_override const> overrides,
                           cross_problem const& problem);

template <class Config>
result<void> apply_override(std::span<key_spec<Config> const> table, Config& config,
                            std::string_view path, std::string_view text, std::string_view origin);

// parse_worker_config recording each key's source (config_schema.cpp holds the table).
result<worker_config> parse_worker_config_recording(
    std::string_view text, std::string_view origin, std::span<config_override const> overrides,
    std::map<std::string, std::string, std::less<>>& sources);

// The candidate within "did you mean" distance of `name`, if any.
std::optional<std::string> closest_name(std::vector<std::string> const& candidates,
                                        std::string_view name);

// What a key's value came from, for `sources`: "file PATH", "--set", "flag --NAME",
// "environment TORC_API_URL" (an override whose origin is not an option).
std::string file_source(std::string_view origin);
std::string override_source(config_override const& o);

// `sources`, when given, gets the source of every key a file or an override set.
template <class Config>
result<Config> parse_config(std::span<key_spec<Config> const> table,
                            std::vector<cross_problem> (*cross_check)(Config const&),
                            std::string_view text, std::string_view origin,
                            std::span<config_override const> overrides,
                            std::map<std::string, std::string, std::less<>>* sources = nullptr)
{
    auto doc = read_json(text, origin);
    if (!doc) return doc.error();
    Config config;
    auto errors = check_document(*doc, rules_of(table),
                                 [&](std::size_t i, boost::json::value const& v) {
                                     table[i].store(config, v);
                                     if (sources)
                                         (*sources)[std::string(table[i].rule.path)] =
                                             file_source(origin);
                                 });
    for (auto const& o : overrides) {
        auto applied = apply_override(table, config, o.key_path, o.text, o.origin);
        if (!applied) errors.push_back(applied.error().message);
        else if (sources) (*sources)[o.key_path] = override_source(o);
    }
    if (errors.empty()) {
        for (auto const& problem : cross_check(config)) {
            errors.push_back(cat(blame_location(*doc, overrides, problem), ": ",
                                 problem.path, ": ", problem.detail));
        }
    }
    if (!errors.empty()) return error{join_lines(errors)};
    return config;
}

template <class Config>
result<void> apply_override(std::span<key_spec<Config> const> table, Config& config,
                            std::string_view path, std::string_view text, std::string_view origin)
{
    for (auto const& spec : table) {
        if (spec.rule.path != path) continue;
        auto checked = value_from_text(spec.rule.rule, text);
        if (checked) checked = check_value(spec.rule.rule, *checked);
        if (!checked) {
            return error{cat(origin, checked.error().label_suffix, ": ", checked.error().detail)};
        }
        spec.store(config, *checked);
        return {};
    }
    return error{unknown_override_key(rules_of(table), path, origin)};
}

template <class Config>
result<void> check_with(std::vector<cross_problem> (*cross_check)(Config const&),
                        Config const& config)
{
    std::vector<std::string> errors;
    for (auto const& problem : cross_check(config)) {
        errors.push_back(cat(problem.path, ": ", problem.detail));
    }
    if (!errors.empty()) return error{join_lines(errors)};
    return {};
}

}  // namespace torcrun::core::detail
