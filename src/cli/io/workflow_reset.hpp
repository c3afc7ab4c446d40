// A workflow made ready to run again, shared by `torcrun rerun` and `torcrun run --resume`, with
// the calls Torc's `torc workflows reset-status --reinitialize` makes: reset_status (refused while
// jobs are pending or running), the jobs reset to uninitialized (reset_job_status, all or
// failed_only, or each named job through manage_status_change, which resets its dependents too),
// the run id raised by one (PUT /workflows/{id}/status, as Torc v0.10's client bumps it; a Torc
// 0.23 server raises it in reset_status itself, and then no PUT is sent), then
// initialize_jobs with only_uninitialized. The new run id gives every attempt of the rerun a log
// directory of its own (`r<run>_a<attempt>`), so no earlier log is overwritten.
#pragma once

#include "torc_client.hpp"
#include "torcrun/common/error.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace torcrun::apps {

struct reset_request {
    enum class which {
        all,     // every job (Torc's reset-status)
        failed,  // failed, canceled, terminated, pending_failed and their dependents
        named,   // `job_ids` and their dependents
    };
    which jobs = which::all;
    std::vector<std::int64_t> job_ids;
    // The workflow's compute nodes still marked active belong to a run that is gone (a `torcrun
    // run` killed with its server): deactivate them, which hands their jobs back. Otherwise an
    // active node is a worker that joined the current run: it could not take part in the next
    // (a worker keeps the run id it started with), so the reset is refused naming it.
    bool release_stale_nodes = false;
};

struct reset_outcome {
    std::int64_t run_id = 0;
    std::vector<std::string> to_run;  // the jobs ready or blocked afterwards, by name
};

// Errors name the call (`POST /workflows/1/reset_status: HTTP 422: reset_status: ...`), or:
// `workflow 1 has active compute nodes (3 on n1, pid 77): workers that joined run 0 cannot take
// part in run 1; stop them, or wait for them to exit, then rerun`.
// The ids of the jobs `names` name (core::jobs_named): an error of the names is `bad_names`, one
// of the server is not.
struct named_ids {
    std::vector<std::int64_t> ids;
    bool bad_names = false;
    std::string error;  // empty on success
};
named_ids ids_of_names(torc_client& client, std::int64_t workflow_id,
                       std::vector<std::string> const& names);

core::result<reset_outcome> reset_for_rerun(torc_client& client, std::int64_t workflow_id,
                                            reset_request const& request);

}  // namespace torcrun::apps
