// The failures of `torcrun run` as they happen: a thread of its own asks the run's server every
// second, on a connection of its own, for the workflow's failed jobs and prints each new one
// once (core::format_failure: name, id, return code, log directory, the last lines of its
// stderr). A poll that fails is skipped; the next one catches up.
#pragma once

#include "torcrun/common/io/http_client.hpp"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace torcrun::apps {

class torc_client;

class failure_watch {
public:
    using printer = std::function<void(std::string const&)>;
    failure_watch(io::client_settings server, std::int64_t workflow_id, std::string output_dir,
                  printer print);
    ~failure_watch();  // stop()
    failure_watch(failure_watch const&) = delete;
    failure_watch& operator=(failure_watch const&) = delete;

    // A last poll (a job that failed since the previous one is still printed), then the thread
    // ends. Idempotent.
    void stop();

private:
    void run(io::client_settings server);
    void poll(torc_client& client);

    std::int64_t workflow_id_;
    std::string output_dir_;
    printer print_;
    std::set<std::int64_t> reported_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;  // last: started once the rest is set
};

}  // namespace torcrun::apps
