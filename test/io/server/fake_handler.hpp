// A request handler for the server tests: records every request and answers by path.
//   /echo              200, the request as JSON
//   /claim/{wf}        a long-poll claim: claims when {wf} is ready; otherwise waits
//                      `seconds` (query) while may_wait, then answers {"claimed":false}
//   /ready/{wf}        marks {wf} ready and reports the change to the server
//   /status/{n}        status n, {"message":"status n"} (and "pad": `pad` x's when asked)
//   /throw             throws std::runtime_error("boom")
//   /wait_forever      asks to wait even when may_wait is false (a handler bug)
//   /stop              calls `on_stop` (the server's stop), then answers 200
#pragma once

#include "torcrun/server/http_types.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace torcrun::test {

class fake_handler : public api::request_handler {
public:
    std::vector<api::request> seen;
    std::set<std::int64_t> ready;
    std::function<void()> on_stop;

    api::outcome handle(api::request const& req) override {
        seen.push_back(req);
        std::string_view path = req.path;
        if (path == "/echo") return json(200, echo(req));
        if (path.starts_with("/claim/")) return claim(req, std::stoll(std::string(path.substr(7))));
        if (path.starts_with("/ready/")) {
            auto wf = std::stoll(std::string(path.substr(7)));
            ready.insert(wf);
            if (listener_) listener_(wf);
            return json(200, {{"ok", true}});
        }
        if (path.starts_with("/status/")) {
            auto status = static_cast<unsigned>(std::stoul(std::string(path.substr(8))));
            boost::json::object body{{"message", "status " + std::to_string(status)}};
            if (auto pad = req.query.find("pad"); pad != req.query.end())
                body["pad"] = std::string(std::stoul(pad->second), 'x');
            return json(status, body);
        }
        if (path == "/throw") throw std::runtime_error("boom");
        if (path == "/wait_forever") return api::wait_for_workflow{1, 0.05};
        if (path == "/stop") {
            if (on_stop) on_stop();
            return json(200, {{"stopping", true}});
        }
        return json(404, {{"message", "fake: no route"}});
    }

    void set_change_listener(std::function<void(std::int64_t)> listener) override {
        listener_ = std::move(listener);
    }

private:
    std::function<void(std::int64_t)> listener_;

    static api::response json(unsigned status, boost::json::object body) {
        return api::response{status, boost::json::serialize(body)};
    }

    static boost::json::object echo(api::request const& req) {
        boost::json::array query;
        for (auto const& [k, v] : req.query)
            query.push_back(boost::json::array{k.c_str(), v.c_str()});
        boost::json::object out{{"method", req.method}, {"path", req.path}, {"query", query},
                                {"body", req.body}, {"may_wait", req.may_wait}};
        out["user"] = req.user ? boost::json::value(*req.user) : boost::json::value(nullptr);
        return out;
    }

    api::outcome claim(api::request const& req, std::int64_t wf) {
        if (ready.erase(wf) > 0) return json(200, {{"claimed", true}});
        if (!req.may_wait) return json(200, {{"claimed", false}});
        double seconds = 0;
        if (auto it = req.query.find("seconds"); it != req.query.end())
            seconds = std::stod(it->second);
        return api::wait_for_workflow{wf, seconds};
    }
};

}  // namespace torcrun::test
