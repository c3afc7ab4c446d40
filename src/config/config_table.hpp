// The configuration schema's typed table (private to src/config): one key_spec per key ties its
// rule to its member, so a row cannot point at the wrong field. A key's member is named by a
// chain of member pointers (`&worker_config::poll, &poll_settings::interval_seconds`), and the
// member's type picks the conversion to and from the normalized value, so rows need no
// hand-written accessors. Values pass through three forms:
//   file form   what a file or to_json says: "16m", "SIGTERM", "auto", "2025-06-30T17:00:00Z";
//   normalized  what check_value returns: bytes, signal number, choice index, Unix seconds;
//   member      the struct field.
#pragma once

#include "torcrun/config/config_schema.hpp"

#include <boost/json/value.hpp>

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace torcrun::core::detail {

// Choice names, in the order of the enums they stand for.
inline constexpr std::string_view run_mode_names[] = {"auto", "direct", "slurm"};
inline constexpr std::string_view log_severity_names[] = {"error", "warning", "info", "debug"};
inline constexpr std::string_view lost_job_policy_names[] = {"ready", "failed"};
inline constexpr std::string_view lost_lease_policy_names[] = {"stop", "finish"};
inline constexpr std::string_view extension_use_names[] = {"auto", "true", "false"};
inline constexpr std::string_view stdio_mode_names[] = {"separate", "combined", "no_stdout",
                                                        "no_stderr", "none"};
inline constexpr std::string_view attempt_directory_use_names[] = {"on_failure", "always"};

inline void assign(bool& m, boost::json::value const& v) { m = v.as_bool(); }
inline void assign(double& m, boost::json::value const& v) { m = v.to_number<double>(); }
inline void assign(std::string& m, boost::json::value const& v) { m = v.as_string(); }
template <class I>
    requires std::integral<I> && (!std::same_as<I, bool>)
void assign(I& m, boost::json::value const& v)
{
    m = v.is_uint64() ? static_cast<I>(v.get_uint64()) : static_cast<I>(v.as_int64());
}
template <class E>
    requires std::is_enum_v<E>
void assign(E& m, boost::json::value const& v)
{
    m = static_cast<E>(v.as_int64());
}
void assign(std::vector<std::string>& m, boost::json::value const& v);
void assign(std::map<std::string, std::string>& m, boost::json::value const& v);
template <class T>
void assign(std::optional<T>& m, boost::json::value const& v)
{
    if (v.is_null()) return m.reset();
    T t{};
    assign(t, v);
    m = std::move(t);
}

inline boost::json::value normalize(bool m) { return m; }
inline boost::json::value normalize(double m) { return m; }
inline boost::json::value normalize(std::string const& m) { return boost::json::string(m); }
template <class I>
    requires std::integral<I> && (!std::same_as<I, bool>)
boost::json::value normalize(I m)
{
    if constexpr (std::is_unsigned_v<I>) return static_cast<std::uint64_t>(m);
    else return static_cast<std::int64_t>(m);
}
template <class E>
    requires std::is_enum_v<E>
boost::json::value normalize(E m)
{
    return static_cast<std::int64_t>(m);
}
boost::json::value normalize(std::vector<std::string> const& m);
boost::json::value normalize(std::map<std::string, std::string> const& m);
template <class T>
boost::json::value normalize(std::optional<T> const& m)
{
    return m ? normalize(*m) : boost::json::value(nullptr);
}

template <auto... Members>
struct field {
    template <class C>
    static void store(C& c, boost::json::value const& v)
    {
        assign((c .* ... .* Members), v);
    }
    template <class C>
    static boost::json::value load(C const& c)
    {
        return normalize((c .* ... .* Members));
    }
};

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

// A normalized value in file form (config_render.cpp), and nesting it under its dotted path.
boost::json::value file_form(value_rule const& rule, boost::json::value const& normalized);
void put_path(boost::json::object& root, std::string_view path, boost::json::value value);

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
