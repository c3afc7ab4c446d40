// The worker shell's state, shared by its files: the state machine, the event queue that feeds
// it one event at a time, and the parts that carry out its actions. Held by a shared_ptr that
// every coroutine and handler of the shell keeps, so none outlives what it touches.
#pragma once

#include "end_time_lookup.hpp"
#include "worker_journal.hpp"

#include "torcrun/worker/worker_wire.hpp"
#include "torcrun/worker/worker_fsm.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/worker/io/job_runner.hpp"
#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/io/worker_shell.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

namespace torcrun::io::detail {

struct worker_shell : std::enable_shared_from_this<worker_shell> {
    worker_shell(boost::asio::io_context& ioc, worker_setup s, logger l, results_journal j);

    // Queues an event and, unless the queue is being drained already, feeds it (and whatever
    // carrying out its actions produced) to the state machine in order.
    void post(core::worker_event event);
    void carry_out(core::worker_action const& action);
    void carry_out_local(core::worker_action const& action);
    void finish(int code);  // exit_worker: stop everything, wake run_worker

    // worker_shell_requests.cpp
    void send(core::worker_action action);  // one server action, all its exchanges
    void check_outputs(core::worker::check_outputs action);
    void write_results(core::worker_action const& action);  // result.json per attempt
    void start_heartbeats();
    void look_up_end_time();

    void say(log_level level, std::string_view message,
             std::initializer_list<log_field> fields = {}) const;

    boost::asio::io_context& ioc_;
    worker_setup setup_;
    logger log_;
    core::worker_fsm fsm_;
    api::wire_context wire_;
    http_client client_;
    launcher launcher_;
    results_journal journal_;
    std::optional<job_runner> runner_;
    boost::asio::steady_timer timer_;
    std::uint64_t timer_generation_ = 0;
    boost::asio::steady_timer heartbeat_;
    boost::asio::signal_set signals_;
    boost::asio::steady_timer done_;  // never expires; cancelled when the worker may return
    std::deque<core::worker_event> queue_;
    bool feeding_ = false;
    bool heartbeats_started_ = false;
    std::optional<int> exit_code_;
};

}  // namespace torcrun::io::detail
