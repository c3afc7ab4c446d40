// Long polls and event frames of the HTTP server (http_server_state.hpp). The handler answers
// `wait_for_workflow` when nothing is claimable; the request then waits on a timer listed under
// its workflow until the handler reports a change there (call again, may_wait=true), the wait
// runs out or the server stops (call again, may_wait=false). Waiting costs a timer, never a
// blocked thread. A client that closed its connection meanwhile is not called for again: a
// claim would hand it jobs it never reads. An answer whose request the handler left in an open
// request group waits for that group's commit (group_commits.hpp), posted once per group.
#include "http_server_state.hpp"

#include "torcrun/common/concat.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>

namespace torcrun::io {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace server_detail {

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

std::variant<server_reply, api::wait_for_workflow, api::event_stream> call_handler(
    server_state& st, api::request const& req) {
    try {
        auto out = st.handler.handle_grouped(req);
        if (auto* res = std::get_if<api::response>(&out)) return server_reply{std::move(*res)};
        if (auto* es = std::get_if<api::event_stream>(&out)) return *es;
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

// The peer of a parked request closed its side or reset the connection (a client still there,
// or one that already sent its next request, is not gone). Over TLS a closing client's bytes
// (its close_notify) come before the end of the stream, so there the half-close itself decides.
bool peer_gone(tcp::socket& socket, bool tls) {
    if (tls) {
        pollfd p{socket.native_handle(), POLLRDHUP, 0};
        if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) return true;
    }
    char byte = 0;
    auto const n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return false;
    if (n == 0) return true;
    return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace

net::awaitable<served> serve(std::shared_ptr<server_state> st, api::request req,
                             tcp::socket& peer) {
    std::optional<steady::time_point> deadline;  // from the first wait; wakes do not extend it
    for (;;) {
        auto out = call_handler(*st, req);
        auto const group = st->handler.open_group();
        st->commits.schedule(st);
        if (group != 0 && !std::holds_alternative<api::wait_for_workflow>(out)) {
            if (auto failure = co_await st->commits.committed(group))
                co_return json_error(503, detail::cat(req.method, " ", req.path, ": ", *failure));
        }
        if (auto* reply = std::get_if<server_reply>(&out)) co_return std::move(*reply);
        if (auto* es = std::get_if<api::event_stream>(&out)) co_return *es;
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
            if (peer_gone(peer, st->settings.tls != nullptr)) {
                st->log.write(log_level::debug, "http", "client gone while parked",
                              {{"method", req.method}, {"path", req.path}});
                co_return json_error(400, detail::cat(req.method, " ", req.path,
                                                      ": the client closed the connection"));
            }
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
    boost::system::error_code ignored;
    for (auto& [workflow_id, c] : st.streams) {
        c->timer->cancel();
        c->socket->cancel(ignored);  // a write stuck on a client that does not read
    }
}

// Queues `frame` for every stream of the workflow; a client already `stream_buffer_bytes` behind
// is dropped instead, so a reader that never reads costs a bounded amount of memory.
void publish_frame(server_state& st, std::int64_t workflow_id, std::string const& frame) {
    auto [first, last] = st.streams.equal_range(workflow_id);
    for (auto it = first; it != last; ++it) {
        auto& c = *it->second;
        if (c.dropped || c.peer_closed) continue;
        // One frame always fits an empty queue, so a frame larger than the bound does not drop a
        // client that keeps up; the queue stays within the bound plus one frame.
        if (!c.queue.empty() && c.queued_bytes + frame.size() > st.settings.stream_buffer_bytes) {
            c.dropped = true;
            c.queue.clear();
            c.queued_bytes = 0;
            boost::system::error_code ignored;
            c.socket->cancel(ignored);
        } else {
            c.queue.push_back(frame);
            c.queued_bytes += frame.size();
        }
        c.timer->cancel();
    }
}

}  // namespace server_detail

}  // namespace torcrun::io
