// `torcrun watch WF` and `torcrun submit SPEC --auto-schedule`: poll a workflow until it is
// complete; with --auto-schedule each poll runs a pass of its allocator (allocation_loop), with
// --recover a complete workflow's jobs that ran out of memory or time run again
// (failed_job_recovery). Torc's option names (`torc watch`), with the differences in
// docs/TORC-COMPATIBILITY.md.
#pragma once

#include "torc_client.hpp"

#include "torcrun/cli/allocation_plan.hpp"
#include "torcrun/cli/auto_schedule.hpp"
#include "torcrun/cli/job_recovery.hpp"
#include "torcrun/config/config.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace torcrun::apps {

struct watch_settings {
    std::int64_t poll_seconds = 60;
    bool auto_schedule = false;
    core::auto_schedule_policy policy;
    std::optional<std::string> account;  // else slurm_defaults, else the workflow's schedulers
    std::optional<std::string> qos;
    core::allocation_settings allocation;  // where the allocations' workers report and write
    core::worker_config config;
    std::string prefix = "torcrun watch";  // of every line on stderr
    // --recover: once the workflow is complete, the jobs that ran out of memory or time run
    // again with more (core::decide_recovery), and the watch goes on.
    bool recover = false;
    core::recovery_policy recovery;
};

// Torc's `watch` options this command knows (--poll-interval, --auto-schedule, ...) and the
// allocator's own (--partition, --account, --qos, --max-queued, --max-nodes, --output-dir,
// --config, --torcrun).
boost::program_options::options_description watch_options(bool for_submit);

// The settings of the parsed options; `url` and `tls_ca_file` are the client's. Errors name the
// option: `--auto-schedule-threshold: 0 must be at least 1`.
core::result<watch_settings> watch_settings_from(boost::program_options::variables_map const& vm,
                                                 io::client_settings const& client,
                                                 std::string prefix);

// Polls until the workflow is complete (with --recover: and no failed job is run again):
// 0 when every job completed, 1 when some did not, or
// when the allocator can make nothing run (every waiting job is one no partition holds, none
// is running and no allocation is live), or on a server error that outlasts the retries.
int watch_workflow(torc_client& client, std::int64_t wf, watch_settings settings);

}  // namespace torcrun::apps
