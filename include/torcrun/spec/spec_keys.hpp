// The spec keys torcrun reads: for each kind of object a workflow spec holds, the keys it
// accepts, each with a one-line meaning and how torcrun treats it. The spec reader checks every
// object's keys against this table (an object's key list exists nowhere else), and
// `torcrun spec --keys` prints it, so the reference page docs/reference/spec-keys.md cannot drift
// from the reader.
#pragma once

#include <boost/json/value.hpp>

#include <span>
#include <string>
#include <string_view>

namespace torcrun::core::spec {

// How torcrun treats a key it accepts.
enum class key_support {
    reads,    // read and acted on as Torc does
    differs,  // read, with a difference from Torc that the key's note states
    ignored,  // accepted and carried to the server, no effect in torcrun; the reader warns
    refused,  // a Torc key torcrun refuses by name, saying why (never reported as unknown)
};

// What the reader does with a key outside an object's list.
enum class other_keys {
    refused,  // an error at the key's file:line:col, with the nearest known key
    warned,   // a warning naming the key, as Torc ignores it (resource_monitor)
    free,     // any key is taken as written (slurm_defaults: sbatch options)
};

enum class spec_object_kind {
    workflow,
    job,
    file,
    user_data,
    dataset,
    resource_requirements,
    failure_handler,
    failure_handler_rule,
    slurm_scheduler,
    slurm_defaults,
    resource_monitor,
    resource_monitor_jobs,
    resource_monitor_compute_node,
    action,
    execution_config,
    stdio,
    dynamic_jobs,
};

struct spec_key {
    std::string_view name;
    key_support support;
    std::string_view meaning;  // one line: what the value is and does
    std::string_view note;     // the difference, what is ignored or why refused; may be empty
};

struct spec_object {
    spec_object_kind kind;
    std::string_view path;     // where it sits in a spec: "jobs[]", "execution_config.stdio"
    std::string_view meaning;  // one line
    other_keys others;
    std::span<spec_key const> keys;

    // The key of that name, or nullptr.
    spec_key const* find(std::string_view name) const noexcept;
};

// Every object kind, in the order of the reference page.
std::span<spec_object const> spec_objects() noexcept;
spec_object const& spec_object_of(spec_object_kind kind) noexcept;

std::string_view to_string(key_support support) noexcept;
std::string_view to_string(other_keys others) noexcept;

// The reference as Markdown (one section and table per object) and as JSON
// ({"objects":[{"path","meaning","other_keys","keys":[{"name","support","meaning","note"}]}]}).
std::string render_spec_keys_markdown();
boost::json::value spec_keys_json();

}  // namespace torcrun::core::spec
