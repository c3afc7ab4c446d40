// Streamed creation's sending side (api::submission, docs/TORC-COMPATIBILITY.md §5 "Streamed
// creation"): while the main thread sends job batch k and waits for its answer, a second thread
// builds the bodies of the batches after it (at most `ahead` of them), so the client's encoding
// overlaps the server's inserts. Batches still go one at a time and in order on the one
// connection: batch k + 1 names jobs of batch k, which must be written first.
//
// A batch whose reply never came (the connection closed, a timeout, a proxy's 502/503/504, a
// server restarting) is sent again after a pause, for up to `retry_for`: the server answers a
// batch it already wrote as written ("created": false) and writes nothing twice. Any other
// failure ends the stream with the call's message.
#pragma once

#include "torc_client.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/spec/submission.hpp"

#include <chrono>
#include <cstddef>

namespace torcrun::apps {

struct stream_options {
    std::size_t ahead = 3;                     // bodies built before they are sent
    std::chrono::seconds retry_for{120};       // per batch, from its first failure
};

// Sends every remaining job batch of `sub` (sub.streaming_batches() is true) and feeds each
// answer to sub.accept(); returns when the batches are done or on the first failure.
core::result<void> send_batches_streamed(torc_client& client, api::submission& sub,
                                         stream_options const& options = {});

}  // namespace torcrun::apps
