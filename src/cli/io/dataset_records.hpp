// A workflow's datasets as its server lists them (GET /workflows/{id}/datasets, a torcrun
// server's endpoint): empty from a server without the endpoint (Torc's answer 404 there), so
// `status` and `jobs` work against any server.
#pragma once

#include "torc_client.hpp"

#include <boost/json/array.hpp>

namespace torcrun::apps {

core::result<boost::json::array> workflow_datasets(torc_client& client, std::int64_t wf);

}  // namespace torcrun::apps
