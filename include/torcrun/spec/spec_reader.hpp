// Reading a workflow spec file into the typed model (docs/TORC-COMPATIBILITY.md §4.1-§4.3). Every
// format becomes one JSON value first (JSON and JSON5 through core::read_json, YAML through
// yaml-cpp with scalars typed as serde_yaml 0.9 types them, KDL through core::read_kdl and Torc's
// node-to-field mapping), so all formats follow the same field rules.
// Errors start with "file:line:col" and name the entry and field:
// `spec.json5:14:7: jobs[3] "train_{i}": field "comand" is unknown (did you mean "command"?)`.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/json_reader.hpp"
#include "torcrun/spec/parameter_table.hpp"
#include "torcrun/spec/spec_model.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torcrun::core::spec {

enum class spec_format { json, json5, yaml, kdl };

// By extension, case-insensitively (§4.1): .json, .json5, .yaml/.yml, .kdl. nullopt for any
// other name: the reader then tries JSON5 (which reads all JSON), YAML and then KDL, as Torc does.
result<std::optional<spec_format>> format_of(std::string_view file_name);

// The parsed document and where each value came from, addressed by JSON pointer.
class spec_document {
public:
    // Where each value of a YAML or KDL document came from, by JSON pointer.
    struct yaml_position {
        source_position value;
        std::optional<source_position> key;  // members only
    };
    using yaml_positions = std::unordered_map<std::string, yaml_position>;

    spec_document(json_document document, spec_format format);
    spec_document(boost::json::value root, std::string origin, yaml_positions positions,
                  spec_format format = spec_format::yaml);

    boost::json::value const& root() const noexcept;
    std::string const& origin() const noexcept { return origin_; }
    spec_format format() const noexcept { return format_; }

    // "origin:line:col" of the value at `pointer` (or of its key), or the origin alone.
    std::string location(std::string_view pointer, bool at_key = false) const;

    // What the format's reader dropped as Torc drops it (KDL nodes Torc does not read), one line
    // each with its file:line:col; parse_spec puts them first among the spec's warnings.
    std::vector<std::string> const& warnings() const noexcept { return warnings_; }
    void add_warning(std::string warning) { warnings_.push_back(std::move(warning)); }

private:
    std::optional<json_document> json_;
    boost::json::value yaml_root_;
    yaml_positions yaml_positions_;
    std::string origin_;
    spec_format format_;
    std::vector<std::string> warnings_;
};

// Parses `text` by the format `file_name` implies. `.json` is strict RFC 8259 as in Torc
// (serde_json): JSON5 syntax there is an error that suggests the .json5 name.
result<spec_document> read_spec_document(std::string_view text, std::string_view file_name);

// YAML alone: one document, plain scalars typed by serde_yaml 0.9's rules (`~`, `null` and
// empty are null; only `true`/`false` are booleans; 0x/0o/0b and decimal integers, with a
// leading zero making a string; finite floats, `.inf`/`.nan` becoming null as in
// serde_json), quoted and block scalars always strings, anchors and aliases resolved.
result<spec_document> read_yaml_document(std::string_view text, std::string_view origin);

// The typed spec: unknown fields, wrong types, missing required fields, values out of range,
// duplicate names of resource requirements, schedulers and failure handlers, the reserved
// name "default", and forbidden slurm_defaults keys are errors. Newer Torc's `variables` are
// substituted first (docs/TORC-COMPATIBILITY.md §4.5). The `parameters_file` tables the spec
// names are read through `loader` (without one, such a spec is refused) and kept in
// workflow_spec::tables.
result<workflow_spec> parse_spec(spec_document const& document, table_loader loader = {});

// KDL alone (KDL 2.0, as Torc's `kdl` crate 6.5 reads it), mapped to JSON node by node as
// Torc's `kdl_to_json_value` maps it (docs/TORC-COMPATIBILITY.md §4.1, "KDL"): what Torc drops
// (unknown nodes, values of the wrong type, entries past the first) is dropped with a warning.
result<spec_document> read_kdl_document(std::string_view text, std::string_view origin);

// read_spec_document + parse_spec.
result<workflow_spec> read_spec(std::string_view text, std::string_view file_name,
                                table_loader loader = {});

}  // namespace torcrun::core::spec
