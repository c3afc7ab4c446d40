// The server's view of one HTTP exchange, independent of Beast: the io shell turns a Beast
// request into `api::request`, calls the handler, and writes `api::response` back. Routing and
// every endpoint are tested on these values without sockets.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>

namespace torcrun::api {

// Path relative to the base path `/torc-service/v1` (e.g. "/workflows/3/is_complete"), query
// parameters decoded (repeatable keys keep every value, in order), body as received.
struct request {
    std::string method;  // "GET", "POST", "PUT", "PATCH", "DELETE"
    std::string path;
    std::multimap<std::string, std::string> query;
    std::string body;
    std::optional<std::string> user;  // the authenticated user name, when auth is on
    // True on the first attempt of a long-poll claim; false when the wait has run out (the
    // handler must then answer, with an empty claim if nothing is claimable).
    bool may_wait = true;
    // Set by access control for GET /workflows: only the workflows this user owns or shares
    // through a group; nullopt = every workflow.
    std::optional<std::string> visible_to = std::nullopt;
    // Set by access control for POST /workflows: the owner recorded, the authenticated user,
    // in place of the body's `user`.
    std::optional<std::string> owner = std::nullopt;
};

struct response {
    unsigned status = 200;
    std::string body;  // JSON text, unless content_type says otherwise
    std::string content_type = "application/json";
};

// A long-poll claim found nothing claimable: park the request until `workflow_id` changes
// (jobs became ready, workflow canceled) or `seconds` pass, then call the handler again.
struct wait_for_workflow {
    std::int64_t workflow_id = 0;
    double seconds = 0;
};

// `GET /workflows/{id}/events/stream` for a workflow that exists: the HTTP server answers with a
// server-sent-event stream and writes to it every frame the handler's event listener reports for
// `workflow_id`, until the client goes or the server stops.
struct event_stream {
    std::int64_t workflow_id = 0;
};

using outcome = std::variant<response, wait_for_workflow, event_stream>;

// What the HTTP server calls. `handle` runs on the reactor thread and must not block for long
// (short SQLite statements only). `set_change_listener` lets the server learn which workflows
// changed, to wake parked long-poll requests.
class request_handler {
public:
    virtual ~request_handler() = default;
    virtual outcome handle(request const& req) = 0;
    virtual void set_change_listener(std::function<void(std::int64_t workflow_id)> listener) = 0;
    // Reports each server-sent-event frame (complete text, "event: ...\ndata: ...\n\n") of a
    // workflow once the change that caused it has committed. Handlers without events ignore it.
    virtual void set_event_listener(
        std::function<void(std::int64_t workflow_id, std::string const& frame)> /*listener*/) {}

    // Group commit, for a handler that supports it (the defaults: none, handle_grouped() is
    // handle(), which commits before it returns). Once a commit listener is set,
    // handle_grouped() may leave its writes in a transaction shared with the requests after it:
    // open_group() then names that group (0: nothing uncommitted), the answer must not be sent
    // before the group commits, and commit_group() commits it and reports it to the listener:
    // its id and, when the commit failed (nothing of the group was written), why. handle()
    // commits an open group before it runs.
    using commit_listener =
        std::function<void(std::uint64_t group, std::optional<std::string> const& failure)>;
    virtual outcome handle_grouped(request const& req) { return handle(req); }
    virtual void set_commit_listener(commit_listener /*listener*/) {}
    virtual std::uint64_t open_group() const { return 0; }
    virtual void commit_group() {}
};

}  // namespace torcrun::api
