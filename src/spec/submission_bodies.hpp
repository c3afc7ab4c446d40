// The JSON bodies of a submission's calls (private to src/spec): Torc's wire field names, absent
// optional fields left out, names swapped for the ids the server returned.
#pragma once

#include "torcrun/spec/submission.hpp"

#include <boost/json/object.hpp>

#include <cstdint>

namespace torcrun::api::detail {

namespace spec = core::spec;

using api::workflow_body;
boost::json::object file_body(std::int64_t wf, spec::expanded_file const& f);
boost::json::object user_data_body(std::int64_t wf, spec::expanded_user_data const& u);
boost::json::object requirements_body(std::int64_t wf, spec::resource_requirements_spec const& r);
boost::json::object scheduler_body(std::int64_t wf, spec::slurm_scheduler_spec const& s);
boost::json::object handler_body(std::int64_t wf, spec::planned_failure_handler const& h);

// The ids a job refers to, by kind.
struct job_refs {
    name_ids const& files;
    name_ids const& user_data;
    name_ids const& requirements;
    name_ids const& schedulers;
    name_ids const& handlers;
    name_ids const& jobs;
};
boost::json::object job_body(std::int64_t wf, spec::expanded_job const& job, job_refs const& ids);

boost::json::object action_body(std::int64_t wf, spec::planned_action const& a,
                                name_ids const& schedulers, name_ids const& jobs);

boost::json::object dataset_body(spec::planned_dataset const& d, name_ids const& jobs);

}  // namespace torcrun::api::detail
