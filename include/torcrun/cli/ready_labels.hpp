// The ready jobs of a workflow counted by label (torcrun extension, docs/TORC-COMPATIBILITY.md
// §5 "Job labels"), for `torcrun status`: a labelled job waits for a worker started with its
// label, so a label no worker serves shows here as ready jobs that stay ready.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <span>
#include <string>

namespace torcrun::apps {

// {"LABEL": n, ..., "": n} (the empty key: jobs without a label) over the given jobs' `label`
// fields, labels in name order; nullopt when none of them has a label (nothing to tell apart).
std::optional<boost::json::object> ready_labels(std::span<boost::json::value const> jobs);

// The lines `torcrun status` prints under "ready: N": `    label "gpu": 2`, then `    no
// label: 1` (when any).
std::string ready_label_lines(boost::json::object const& counts);

}  // namespace torcrun::apps
