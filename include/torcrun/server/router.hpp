// Method + path -> handler, one table. A pattern is a path relative to the base path with
// `{name}` for an integer segment (an id) and `{name:string}` for any non-empty segment
// (`/jobs/{id}/complete_job/{status:string}/{run_id}`). Dispatch answers the routing errors
// itself, all as JSON: 404 for a path no pattern matches, 405 for a matched path without that
// method, 400 for an id segment that is not a non-negative integer.
#pragma once

#include "torcrun/server/access_rule.hpp"
#include "torcrun/server/api_error.hpp"
#include "torcrun/server/http_types.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torcrun::api {

class path_params {
public:
    void add(std::string_view name, std::string value)
    {
        values_.emplace_back(std::string(name), std::move(value));
    }
    // The value of an integer parameter (checked by the router); 0 when there is no such name.
    std::int64_t id(std::string_view name) const;
    std::string_view text(std::string_view name) const;

private:
    std::vector<std::pair<std::string, std::string>> values_;
};

using route_handler = std::function<outcome(request const&, path_params const&)>;

class router {
public:
    // A second route for the same method and pattern replaces the first, so a later layer can
    // take over an endpoint. `access` says how the server finds the workflow a request touches
    // (access_rule.hpp); every route must say it.
    void add(std::string_view method, std::string_view pattern, access_rule access,
             route_handler handler);

    struct match {
        route_handler const* handler = nullptr;
        path_params params;
        access_rule access;
    };
    // The route for (method, path), or the routing error that dispatch would send.
    api_result<match> find(std::string_view method, std::string_view path) const;

    outcome dispatch(request const& req) const;

    std::size_t size() const { return routes_.size(); }

private:
    struct route {
        std::string method;
        std::string pattern;
        std::vector<std::string> segments;
        access_rule access;
        route_handler handler;
    };
    std::vector<route> routes_;
};

// A JSON response; `error_response` carries error_body(message).
response json_response(unsigned status, std::string body);
response error_response(api_error const& e);

}  // namespace torcrun::api
