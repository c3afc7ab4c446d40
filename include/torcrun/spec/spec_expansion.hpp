// From the typed spec to the jobs, files and user data a workflow holds (docs/TORC-COMPATIBILITY.md
// §4.4-§4.8), with torcrun's rules where Torc 0.10's code and docs disagree (§4.10): every
// placeholder is substituted (item 7), parameterized user data is expanded like files (5), a
// template whose expansions share a name becomes one job with the union of their dependencies,
// files and user data (6), `${files.*}`/`${user_data.*}` add to the explicit lists instead of
// replacing them (11), and `${user_data.*}` works without `data` (10). Each difference from Torc
// 0.10 is reported once as a warning. Expected orders: declaration order everywhere, the first
// parameter outermost.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/spec/spec_limits.hpp"
#include "torcrun/spec/spec_model.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::core::spec {

struct expanded_file {
    std::string name;
    std::string path;
    std::size_t source = 0;  // index in workflow_spec::files
    std::optional<double> mtime;  // `st_mtime`: the spec's, not templated
};

struct expanded_user_data {
    std::string name;
    std::optional<boost::json::value> data;
    std::optional<bool> is_ephemeral;
    std::size_t source = 0;  // index in workflow_spec::user_data
};

// One job: every list holds distinct names, explicit entries first, then what regexes and
// `${...}` placeholders added.
struct expanded_job {
    std::string name;
    std::string command;
    std::optional<std::string> invocation_script;
    std::optional<std::string> resource_requirements;
    std::optional<std::string> scheduler;
    std::optional<std::string> failure_handler;
    bool cancel_on_blocking_job_failure = true;
    bool supports_termination = false;
    std::vector<std::string> depends_on;  // the explicit edges
    std::vector<std::string> input_files;
    std::vector<std::string> output_files;
    std::vector<std::string> input_user_data;
    std::vector<std::string> output_user_data;
    env_list env;  // the job's own (templated); the workflow's is separate
    std::int64_t priority = 0;
    std::optional<std::string> label;  // torcrun extension: claimed by workers of this label
    std::optional<stdio_spec> stdio;
    std::size_t source = 0;  // index in workflow_spec::jobs
    std::size_t copies = 1;  // the jobs Torc 0.10 creates under this name (§4.10 item 6)
    std::vector<std::string> input_datasets;   // listed, then `${datasets.input.*}`
    std::vector<std::string> output_datasets;  // listed, then `${datasets.output.*}`
};

struct expanded_workflow {
    std::vector<expanded_file> files;
    std::vector<expanded_user_data> user_data;
    std::vector<expanded_job> jobs;
    std::vector<std::string> warnings;  // the spec's own, then the expansion's
};

// `job` waits for `depends_on`.
struct job_edge {
    std::string job;
    std::string depends_on;

    bool operator==(job_edge const&) const = default;
};

// Expands and links everything, then checks the graph. Errors (§4.8) start with the
// entry's "file:line:col" and name it as written and as expanded, then the field:
// `spec.json5:9:5: jobs[1] "fit_{i}" as "fit_2": depends_on "gen_{i}" (here "gen_2") names no job`.
// A cycle through explicit or implied edges is an error; Torc 0.10 misses the second kind and
// leaves those jobs blocked forever. The totals of spec_limits.hpp (jobs, files, user data,
// dependency edges) are errors naming the template that crosses one and the count reached.
result<expanded_workflow> expand_workflow(workflow_spec const& spec,
                                          expansion_limits const& limits = {});

// Each job's `depends_on`, in job order (distinct pairs: expand_workflow's lists hold distinct
// names).
std::vector<job_edge> explicit_edges(expanded_workflow const& workflow);

// The edges the server adds at initialize_jobs (§4.7): every reader of a file or user data
// waits for every writer of it; distinct pairs, in reader order, then list order, then writer
// order. Explicit edges are not excluded, so the final set is the union of both kinds.
std::vector<job_edge> implied_edges(expanded_workflow const& workflow);

}  // namespace torcrun::core::spec
