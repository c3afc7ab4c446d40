// A workflow's summary as the client commands read it over the REST API: name, user, run id,
// whether it is complete or canceled, and how many jobs are in each status. The counts come
// from the listing's `total_count` per status filter, so a workflow of any size costs a dozen
// small requests. `torcrun status` prints it; `torcrun workflows` reads one per workflow.
#pragma once

#include "json_fields.hpp"
#include "torc_client.hpp"
#include "torcrun/common/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace torcrun::apps {

// {"id", "name", "user", "run_id", "is_complete", "is_canceled", "jobs": {STATUS: n, ...,
// "total": n}}, the statuses in order, and "ready_by_label" (ready_labels.hpp) when a ready job
// has a label. Errors: the failed request's message.
core::result<boost::json::object> workflow_summary(torc_client& client, std::int64_t wf);

}  // namespace torcrun::apps
