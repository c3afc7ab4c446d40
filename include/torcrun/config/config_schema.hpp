// The configuration schema: one table per configuration listing every key with its type,
// allowed range or choices and a one-line description. The same table validates file values
// and command-line overrides, renders the commented example file and the reference tables in
// the README, so none of them can drift from the code. Defaults come from the
// structs' member initialisers (config.hpp).
#pragma once

#include <boost/json/value.hpp>

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

enum class value_kind {
    boolean,
    integer,
    number,
    string,          // non-empty
    choice,          // one of `choices`
    memory,          // "16m" (parse_memory) or a byte count
    signal,          // "SIGTERM", "TERM" or 15 (parse_signal)
    url,             // http or https, with a host
    date_time,       // RFC 3339 with a time zone, or Unix seconds
    string_list,     // array of non-empty strings
    variable_names,  // array of environment variable names
    env_patterns,    // array of variable names or prefixes ending in '*'
    variable_map,    // object: variable name -> string
    gpu_ids,         // array of device ids, or a count n meaning "0".."n-1"
    srun_signal,     // srun --signal: [R:|B:]SIGNAL[@SECONDS]
};

struct value_rule {
    value_kind kind = value_kind::string;
    bool nullable = false;
    double min = -std::numeric_limits<double>::infinity();  // numbers, integers, memory bytes
    double max = std::numeric_limits<double>::infinity();
    std::span<std::string_view const> choices = {};
};

struct key_rule {
    std::string_view path;  // "poll.interval_seconds"
    value_rule rule;
    std::string_view description;
};

struct group_rule {
    std::string_view path;  // "poll"
    std::string_view description;
};

// A schema as documentation: the rules plus each key's default in file form.
struct schema_view {
    std::string_view name;  // "worker", "server"
    std::span<group_rule const> groups;
    std::vector<key_rule> keys;
    std::vector<boost::json::value> defaults;  // parallel to keys
};

schema_view worker_schema();
schema_view server_schema();

// "number", "string or null", "memory string or integer", ...
std::string type_name(value_rule const& rule);
// "0.01 to 3600", "at least 1", "auto, direct, slurm", "1k to 1g", or "" when anything goes.
std::string range_text(value_rule const& rule);

// The commented example file (JSON with // comments) holding every key at its default.
std::string render_example(schema_view const& schema);
// The Markdown reference table: key, type, default, range, meaning.
std::string render_reference(schema_view const& schema);

}  // namespace torcrun::core
