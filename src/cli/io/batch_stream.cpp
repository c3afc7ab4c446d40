// Job batches built on one thread and sent on another, through a queue of at most `ahead`
// built calls (a mutex and two condition variables: the standard library's, no pool needed for
// one producer and one consumer).
#include "batch_stream.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace torcrun::apps {

namespace {

class call_queue {
public:
    explicit call_queue(std::size_t capacity) : capacity_(capacity) {}

    // False once the consumer stopped: nothing more is wanted.
    bool push(api::client_call call)
    {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return stopped_ || calls_.size() < capacity_; });
        if (stopped_) return false;
        calls_.push_back(std::move(call));
        ready_.notify_one();
        return true;
    }

    api::client_call pop()
    {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !calls_.empty(); });
        auto call = std::move(calls_.front());
        calls_.pop_front();
        room_.notify_one();
        return call;
    }

    void stop()
    {
        std::lock_guard lock(mutex_);
        stopped_ = true;
        room_.notify_all();
    }

private:
    std::size_t capacity_;
    std::mutex mutex_;
    std::condition_variable room_, ready_;
    std::deque<api::client_call> calls_;
    bool stopped_ = false;
};

// One batch sent until answered: transient failures sent again for up to `retry_for`.
core::result<std::string> send_once_answered(torc_client& client, api::client_call const& call,
                                             std::chrono::seconds retry_for)
{
    std::optional<std::chrono::steady_clock::time_point> give_up;
    for (int attempt = 1;; ++attempt) {
        auto reply = client.exchange(call.method, call.path, call.body);
        if (reply)
            return core::result<std::string>(boost::system::in_place_value, std::move(reply->body));
        auto const& e = reply.error();
        auto const now = std::chrono::steady_clock::now();
        if (!give_up) give_up = now + retry_for;
        if (!e.transient() || now >= *give_up)
            return core::error{call.what + ": " +
                               failure_message(call.method, call.path, e, client.url())};
        pause_before_retry(attempt, *give_up);
    }
}

}  // namespace

core::result<void> send_batches_streamed(torc_client& client, api::submission& sub,
                                         stream_options const& options)
{
    std::size_t const first = sub.batch_index();
    std::size_t const count = sub.batch_count();
    call_queue queue(std::max<std::size_t>(1, options.ahead));
    // job_batch() reads only the plan and the reserved ids, which accept() leaves alone now.
    std::jthread builder([&] {
        for (std::size_t k = first; k < count; ++k)
            if (!queue.push(sub.job_batch(k))) return;
    });
    for (std::size_t k = first; k < count; ++k) {
        auto const call = queue.pop();
        auto answer = send_once_answered(client, call, options.retry_for);
        auto accepted = answer ? sub.accept(*answer) : core::result<void>(answer.error());
        if (!accepted) {
            queue.stop();
            return accepted.error();
        }
    }
    return {};
}

}  // namespace torcrun::apps
