// The steps of expand_workflow (private to src/spec): template expansion (§4.4-§4.5),
// `${files.*}`/`${user_data.*}` substitution (§4.6), name and regex resolution with the merge
// of same-named expansions (§4.7, §4.10 item 6), and the graph checks. Section numbers in this
// file are those of docs/TORC-COMPATIBILITY.md.
#pragma once

#include "torcrun/spec/parameter_combinations.hpp"
#include "torcrun/spec/spec_expansion.hpp"

#include <cstddef>
#include <string>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torcrun::core::spec::detail {

// One expansion of a job template: its templated fields substituted (§4.5), `params` unused.
struct job_instance {
    std::size_t source = 0;
    std::string written;  // the template's name
    job_spec job;
};

// Warnings in first-seen order without repeats (one per template, not per expansion).
struct warning_list {
    std::vector<std::string> items;
    std::unordered_set<std::string> seen;
    // False for a spec read by newer Torc's rules: its substitution is torcrun's, so templates
    // are not compared with Torc 0.10's (§4.5, §4.10 item 7).
    bool compare_with_0_10 = true;
    void add(std::string text);
};

// `jobs[3] "train_{i}"`.
std::string entry_label(std::string_view list, std::size_t index, std::string_view name);

// `where: jobs[3] "train_{i}" as "train_7": ` (the " as" part only when the names differ).
std::string instance_prefix(std::string_view where, std::string_view list, std::size_t index,
                            std::string_view written, std::string_view expanded);

// `"x"`, or `"x_{i}" (here "x_7")` when expansion changed it.
std::string written_and_expanded(std::string_view written, std::string_view expanded);

// The combinations a template expands over (§4.4): its parameters_file table's rows, or its
// parameters combined; messages are prefixed with `label`.
result<std::vector<combination>>
template_combinations(template_parameters const& params, workflow_spec const& spec,
                      std::string_view where, std::string const& label, warning_list& warnings);

// The expansions of files, user data and jobs, each counted over all templates before any is
// built: past its limit, an error naming the template that crosses it, with the counts.
result<void> check_totals(workflow_spec const& spec, expansion_limits const& limits);

result<std::vector<expanded_file>> expand_files(workflow_spec const& spec, warning_list& warnings);
result<std::vector<expanded_user_data>> expand_user_data(workflow_spec const& spec,
                                                         warning_list& warnings);
result<std::vector<job_instance>> expand_job_templates(workflow_spec const& spec,
                                                       warning_list& warnings);

// What `${files.*}` and `${user_data.*}` stand for: a file's path; user data's compact JSON
// (serde_json, keys sorted), or nullopt when it has no `data`.
struct variable_sources {
    std::unordered_map<std::string, std::string> file_paths;
    std::unordered_map<std::string, std::optional<std::string>> user_data_text;
    std::unordered_map<std::string, std::string> dataset_paths;
};

variable_sources make_variable_sources(std::vector<expanded_file> const& files,
                                       std::vector<expanded_user_data> const& user_data);

// §4.6 with §4.10 items 10 and 11, on the instance's command and invocation_script.
void substitute_variables(job_instance& instance, variable_sources const& sources,
                          warning_list& warnings);

// §4.7: checks references, applies regexes, then merges instances by name. The explicit edges
// of the expansions linked so far past `max_edges` are an error naming the expansion.
result<std::vector<expanded_job>> link_jobs(std::vector<job_instance> instances,
                                            workflow_spec const& spec,
                                            std::vector<expanded_file> const& files,
                                            std::vector<expanded_user_data> const& user_data,
                                            std::size_t max_edges, warning_list& warnings);

// Explicit plus implied edges past `max_edges` are an error naming the job whose inputs crossed
// the limit; a cycle through explicit or implied edges is an error naming the jobs on it.
// Every dataset a job names is a `datasets` entry, and none is both its input and output.
result<void> check_dataset_names(std::vector<expanded_job> const& jobs, workflow_spec const& spec);

result<void> check_graph(expanded_workflow const& workflow, workflow_spec const& spec,
                         std::size_t max_edges);

}  // namespace torcrun::core::spec::detail
