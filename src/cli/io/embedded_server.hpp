// The server of `torcrun run`: the SQLite store, the Torc REST API and the HTTP server on
// 127.0.0.1 (an ephemeral port unless told one), on a thread and io_context of their own, so
// that the worker in the main thread talks to it over real HTTP exactly as it would to `torcrun
// server`. The progress numbers are read in process on that thread, the one that owns the
// database. The client commands serve a finished run's database with it too (run_directory.hpp).
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/server/workflow_progress.hpp"
#include "torcrun/common/io/logger.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace torcrun::apps {

class embedded_server {
public:
    // Opens (creates) the database, binds 127.0.0.1:`port` (0: any free port) and starts
    // serving. Errors: the store's or the HTTP server's message.
    static core::result<std::unique_ptr<embedded_server>> start(std::string const& database,
                                                                io::logger log,
                                                                std::uint16_t port = 0);
    ~embedded_server();  // stop()
    embedded_server(embedded_server const&) = delete;
    embedded_server& operator=(embedded_server const&) = delete;

    // "http://127.0.0.1:PORT/torc-service/v1"
    std::string const& url() const { return url_; }

    using counts_handler = std::function<void(core::status_counts const&)>;
    // Calls `handler` on the server thread with the workflow's job counts every `interval`,
    // starting now, until unwatch(). A read that fails is skipped.
    void watch(std::int64_t workflow_id, std::chrono::milliseconds interval,
               counts_handler handler);
    // Once it returns, the handler is not running and is never called again.
    void unwatch();
    // The counts now, read on the server thread.
    core::result<core::status_counts> counts(std::int64_t workflow_id);

    // Answers parked long polls, finishes requests in flight, then joins the thread. Idempotent.
    void stop();

    struct state;

private:
    explicit embedded_server(std::unique_ptr<state> s);
    std::unique_ptr<state> state_;
    std::string url_;
};

}  // namespace torcrun::apps
