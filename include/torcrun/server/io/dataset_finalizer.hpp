// Dataset finalization on the server (docs/TORC-COMPATIBILITY.md §5, "Datasets"). Newer Torc has
// the job runner that completed the last producer hash the directory; torcrun's server does it,
// so a worker killed at any moment cannot leave a claim behind: a dataset is `finalizing` only
// while the server that claimed it runs, and a server that starts again hashes every
// `finalizing` dataset afresh (the in-memory work died with the old process). The hash, counts
// and the consumers' release are written in one transaction, and only for the claim (its
// generation) the hash was computed for.
//
// The work is cut into steps (at most 512 directory entries walked or 4 MiB read per step) run
// from the reactor, so a large dataset never stalls requests. Relative dataset paths are read from
// the server's working directory (for `torcrun run` the directory it was started in).
#pragma once

#include "torcrun/common/io/logger.hpp"
#include "torcrun/server/io/server_api.hpp"

#include <chrono>
#include <memory>

namespace boost::asio {
class io_context;
}

namespace torcrun::io {

// POST/GET /workflows/{id}/datasets, GET /datasets/{id} (server_api's constructor adds them).
void add_dataset_routes(server_api& api);

class dataset_finalizer {
public:
    dataset_finalizer(server_api& api, logger log);
    ~dataset_finalizer();
    dataset_finalizer(dataset_finalizer const&) = delete;
    dataset_finalizer& operator=(dataset_finalizer const&) = delete;

    // One bounded piece of work; true while a dataset is being hashed (call again soon).
    bool step();

private:
    struct work;
    bool begin_next();
    void finish();
    void fail(std::string const& message);
    server_api& api_;
    logger log_;
    std::unique_ptr<work> current_;
};

// Runs a dataset_finalizer on `ioc`: a step every `idle` while nothing is being hashed, one step
// per reactor turn while something is. stop() ends it so run() can return.
class dataset_pump {
public:
    dataset_pump(boost::asio::io_context& ioc, server_api& api, logger log,
                 std::chrono::milliseconds idle = std::chrono::milliseconds(200));
    ~dataset_pump();
    void start();
    void stop();

private:
    struct state;
    std::shared_ptr<state> state_;
};

}  // namespace torcrun::io
