// The per-entry parsers behind parse_spec (private to src/spec). Each reads one list of
// the spec, reports through the shared parse_state, and returns what it read so far.
#pragma once

#include "field_reader.hpp"
#include "torcrun/spec/spec_model.hpp"

#include <string>
#include <vector>

namespace torcrun::core::spec::detail {

// Calls `read(reader)` for each element of the workflow's list `key`, with a reader for
// `/key/i` named `key[i] "name"`. Stops at the first failure.
template <class Read>
void for_each_entry(field_reader& workflow, std::string_view key, Read&& read)
{
    auto const* list = workflow.list(key);
    if (!list) return;
    for (std::size_t i = 0; i < list->size() && workflow.state().ok(); ++i) {
        field_reader entry(workflow.state(), (*list)[i],
                           json_pointer_append(workflow.member_pointer(key), i),
                           entry_context(key, i, (*list)[i]));
        read(entry);
    }
}

void read_jobs(field_reader& workflow, std::vector<job_spec>& out);
void read_files(field_reader& workflow, std::vector<file_spec>& out);
void read_user_data(field_reader& workflow, std::vector<user_data_spec>& out);

void read_resource_requirements(field_reader& workflow,
                                std::vector<resource_requirements_spec>& out);
void read_failure_handlers(field_reader& workflow, std::vector<failure_handler_spec>& out);
void read_slurm_schedulers(field_reader& workflow, std::vector<slurm_scheduler_spec>& out);
void read_slurm_defaults(field_reader& workflow, std::optional<boost::json::object>& out);
void read_resource_monitor(field_reader& workflow, std::optional<resource_monitor_spec>& out,
                           std::vector<std::string>& warnings);
// Needs the schedulers already read: a Slurm `schedule_nodes` action must name one.
void read_actions(field_reader& workflow, std::vector<slurm_scheduler_spec> const& schedulers,
                  std::vector<action_spec>& out, std::vector<std::string>& warnings);

}  // namespace torcrun::core::spec::detail
