// Which server a client talks to: `GET /version` read once as a core dialect
// (common/server_dialect.hpp), and the worker's server.use_extensions settled against it.
#pragma once

#include "torc_client.hpp"

#include "torcrun/common/error.hpp"
#include "torcrun/common/io/logger.hpp"
#include "torcrun/common/server_dialect.hpp"
#include "torcrun/config/config.hpp"

namespace torcrun::apps {

// The dialect of the client's server. An error answer (404: a server without /version) is an
// unknown server, not an error; an unreachable server is (failure_message's text).
core::result<api::server_dialect> read_server_dialect(torc_client& client);

// The same for a worker, over its own connection settings, retrying an unreachable server for
// server.retry_window_seconds with growing pauses, as read_workflow_record does.
core::result<api::server_dialect> read_server_dialect(core::worker_config const& config);

// config.server.extensions from server.use_extensions (auto: exactly on a torcrun server), with
// one line saying which server it is and what the worker speaks to it.
void settle_extensions(core::worker_config& config, api::server_dialect const& dialect,
                       io::logger const& log);

}  // namespace torcrun::apps
