// How `torcrun spec` shows a creation plan (private to src/cli): a readable summary, or one
// JSON document with every record, the bulk_jobs batches, both kinds of edges and the warnings.
#pragma once

#include "torcrun/spec/creation_plan.hpp"

#include <boost/json/value.hpp>

#include <ostream>

namespace torcrun::apps {

void print_plan_summary(std::ostream& out, core::spec::creation_plan const& plan);

boost::json::value plan_to_json(core::spec::creation_plan const& plan);

}  // namespace torcrun::apps
