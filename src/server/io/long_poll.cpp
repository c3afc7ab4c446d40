// Long-poll claims on the server side: the handler answers `wait_for_workflow` when nothing is
// claimable; the request then waits on a timer listed under its workflow until the handler
// reports a change there (call again, may_wait=true), the wait runs out or the server stops
// (call again, may_wait=false). Waiting costs a timer, never a blocked thread.
#include "torcrun/common/concat.hpp"
#include "server_state.hpp"
#include "torcrun/common/io/net.hpp"

#include <chrono>

namespace torcrun::io::server_detail {

namespace net = boost::asio;
using steady = std::chrono::steady_clock;

namespace {

// A parked request, listed under its workflow exactly while its frame lives.
class parking {
public:
    parking(server_state& st, std::int64_t workflow_id, waiter& w)
        : st_(st), it_(st.waiters.emplace(workflow_id, &w)) {}
    ~parking() { st_.waiters.erase(it_); }
    parking(parking const&) = delete;
    parking& operator=(parking const&) = delete;

private:
    server_state& st_;
    std::unordered_multimap<std::int64_t, waiter*>::iterator it_;
};

steady::duration wait_duration(double seconds) {
    if (!(seconds > 0)) return steady::duration::zero();  // also NaN
    double const capped = seconds < 3600 ? seconds : 3600;
    return std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(capped));
}

std::variant<server_reply, api::wait_for_workflow> call_handler(server_state& st,
                                                                api::request const& req) {
    try {
        auto out = st.handler.handle(req);
        if (auto* res = std::get_if<api::response>(&out)) return server_reply{std::move(*res)};
        return std::get<api::wait_for_workflow>(out);
    } catch (std::exception const& e) {
        st.log.write(log_level::err, "http", "handler failed",
                     {{"method", req.method}, {"path", req.path}, {"error", e.what()}});
        return json_error(500, detail::cat("internal error: ", req.method, " ", req.path,
                                           " failed in the server; see its log"));
    }
}

net::awaitable<wake> park(std::shared_ptr<server_state> st, std::int64_t workflow_id,
                          steady::time_point deadline) {
    net::steady_timer timer(st->ioc, deadline);
    waiter w{&timer, std::nullopt};
    parking const listed(*st, workflow_id, w);
    [[maybe_unused]] auto [ec] = co_await timer.async_wait(use_nothrow);
    co_return w.reason.value_or(wake::timeout);
}

}  // namespace

net::awaitable<server_reply> serve(std::shared_ptr<server_state> st, api::request req) {
    std::optional<steady::time_point> deadline;  // from the first wait; wakes do not extend it
    for (;;) {
        auto out = call_handler(*st, req);
        if (auto* reply = std::get_if<server_reply>(&out)) co_return std::move(*reply);
        auto const wait = std::get<api::wait_for_workflow>(out);
        if (!req.may_wait) {
            st->log.write(log_level::err, "http", "handler asked to wait after the wait ran out",
                          {{"method", req.method}, {"path", req.path}});
            co_return json_error(500, detail::cat("internal error: ", req.method, " ", req.path,
                                                  " asked to wait again after its wait ran out"));
        }
        if (!deadline) deadline = steady::now() + wait_duration(wait.seconds);
        if (!st->stopping) {
            wake const why = co_await park(st, wait.workflow_id, *deadline);
            if (why == wake::changed) continue;
        }
        req.may_wait = false;
    }
}

void wake_workflow(server_state& st, std::int64_t workflow_id) {
    auto [first, last] = st.waiters.equal_range(workflow_id);
    for (auto it = first; it != last; ++it) {
        if (!it->second->reason) it->second->reason = wake::changed;
        it->second->timer->cancel();
    }
}

void wake_all_for_stop(server_state& st) {
    for (auto& [workflow_id, w] : st.waiters) {
        w->reason = wake::stopping;
        w->timer->cancel();
    }
}

}  // namespace torcrun::io::server_detail
