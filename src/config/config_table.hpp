// The typed configuration table (private to src/config): one key_spec per key ties its rule to
// its member, so a row cannot point at the wrong field, and the generic steps (parse, override,
// cross-key check, to_json, documentation view) are shared by every configuration.
#pragma once

#include "config_fields.hpp"
#include "config_values.hpp"

#include "torcrun/config/config.hpp"
#include "torcrun/config/config_schema.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/json_reader.hpp"

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core::detail {

// Rule shorthands for the tables.
inline constexpr double unbounded = std::numeric_limits<double>::infinity();
constexpr value_rule rule(value_kind kind, double min = -unbounded, double max = unbounded)
{
    return {kind, false, min, max, {}};
}
constexpr value_rule choice(std::span<std::string_view const> choices)
{
    return {value_kind::choice, false, -unbounded, unbounded, choices};
}
constexpr value_rule nullable(value_rule r)
{
    r.nullable = true;
    return r;
}

template <class Config>
struct key_spec {
    key_rule rule;
    void (*store)(Config&, boost::json::value const&);
    boost::json::value (*load)(Config const&);
};

template <class Config, auto... Members>
constexpr key_spec<Config> key(std::string_view path, value_rule rule, std::string_view what)
{
    return {{path, rule, what}, &field<Members...>::template store<Config>,
            &field<Members...>::template load<Config>};
}

template <class Config>
std::vector<key_rule const*> rules_of(std::span<key_spec<Config> const> table)
{
    std::vector<key_rule const*> rules;
    for (auto const& spec : table) rules.push_back(&spec.rule);
    return rules;
}

// Where a rule between keys is blamed: the last override that set either key (the blamed one
// first), else the blamed key in the file, else the file.
std::string blame_location(json_document const& doc, std::span<config_override const> overrides,
                           cross_problem const& problem);

template <class Config>
result<void> apply_override(std::span<key_spec<Config> const> table, Config& config,
                            std::string_view path, std::string_view text, std::string_view origin);

template <class Config>
result<Config> parse_config(std::span<key_spec<Config> const> table,
                            std::vector<cross_problem> (*cross_check)(Config const&),
                            std::string_view text, std::string_view origin,
                            std::span<config_override const> overrides)
{
    auto doc = read_json(text, origin);
    if (!doc) return doc.error();
    Config config;
    auto errors = check_document(*doc, rules_of(table),
                                 [&](std::size_t i, boost::json::value const& v) {
                                     table[i].store(config, v);
                                 });
    for (auto const& o : overrides) {
        auto applied = apply_override(table, config, o.key_path, o.text, o.origin);
        if (!applied) errors.push_back(applied.error().message);
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

template <class Config>
boost::json::value config_to_json(std::span<key_spec<Config> const> table, Config const& config)
{
    boost::json::object root;
    for (auto const& spec : table) {
        put_path(root, spec.rule.path, file_form(spec.rule.rule, spec.load(config)));
    }
    return root;
}

template <class Config>
schema_view make_view(std::string_view name, std::span<group_rule const> groups,
                      std::span<key_spec<Config> const> table)
{
    schema_view view{name, groups, {}, {}};
    Config const defaults{};
    for (auto const& spec : table) {
        view.keys.push_back(spec.rule);
        view.defaults.push_back(file_form(spec.rule.rule, spec.load(defaults)));
    }
    return view;
}

}  // namespace torcrun::core::detail
