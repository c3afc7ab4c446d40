// Path matching for the route table. Segments are compared literally except placeholders; when
// several patterns fit a path, the one with more literal segments wins, so a fixed name beats an
// id in the same position.
#include "torcrun/server/router.hpp"

#include "torcrun/server/model_json.hpp"

#include <algorithm>
#include <charconv>

namespace torcrun::api {
namespace {

// A path's segments, as views into it: a request's path is split once per request, a pattern's
// once at start-up (kept as strings in its route).
std::vector<std::string_view> split(std::string_view path)
{
    std::vector<std::string_view> out;
    if (path.empty() || path.front() != '/') return out;
    std::size_t start = 1;
    while (true) {
        auto const slash = path.find('/', start);
        out.emplace_back(path.substr(start, slash - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

bool is_placeholder(std::string_view segment)
{
    return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

bool is_text_placeholder(std::string_view segment)
{
    return is_placeholder(segment) && segment.ends_with(":string}");
}

std::string_view placeholder_name(std::string_view segment)
{
    segment = segment.substr(1, segment.size() - 2);
    return segment.substr(0, segment.find(':'));
}

// -1 when the shapes differ, else the number of literal segments that matched.
int fit(std::vector<std::string> const& pattern, std::vector<std::string_view> const& path)
{
    if (pattern.size() != path.size()) return -1;
    int literals = 0;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (is_placeholder(pattern[i])) {
            if (path[i].empty()) return -1;
        } else if (pattern[i] == path[i]) {
            ++literals;
        } else {
            return -1;
        }
    }
    return literals;
}

bool is_id(std::string_view text)
{
    std::int64_t value = 0;
    auto const r = std::from_chars(text.data(), text.data() + text.size(), value);
    return r.ec == std::errc{} && r.ptr == text.data() + text.size() && value >= 0 &&
           text.front() != '-';
}

}  // namespace

std::int64_t path_params::id(std::string_view name) const
{
    for (auto const& [key, value] : values_) {
        if (key != name) continue;
        std::int64_t out = 0;
        std::from_chars(value.data(), value.data() + value.size(), out);
        return out;
    }
    return 0;
}

std::string_view path_params::text(std::string_view name) const
{
    for (auto const& [key, value] : values_) {
        if (key == name) return value;
    }
    return {};
}

void router::add(std::string_view method, std::string_view pattern, access_rule access,
                 route_handler handler)
{
    for (auto& r : routes_) {
        if (r.method == method && r.pattern == pattern) {
            r.access = access;
            r.handler = std::move(handler);
            return;
        }
    }
    auto const segments = split(pattern);
    routes_.push_back({std::string(method), std::string(pattern),
                       std::vector<std::string>(segments.begin(), segments.end()), access,
                       std::move(handler)});
}

api_result<router::match> router::find(std::string_view method, std::string_view path) const
{
    auto const segments = split(path);
    // Each route's fit once (the second pass below reads them back).
    thread_local std::vector<int> fits;
    fits.clear();
    int best = -1;
    for (auto const& r : routes_)
        best = std::max(best, fits.emplace_back(fit(r.segments, segments)));
    if (best < 0) return not_found("path: \"" + std::string(path) + "\" is not an endpoint");

    std::vector<std::string> allowed;
    for (std::size_t at = 0; at < routes_.size(); ++at) {
        auto const& r = routes_[at];
        if (fits[at] != best) continue;
        if (r.method != method) {
            allowed.push_back(r.method);
            continue;
        }
        match m{&r.handler, {}, r.access};
        for (std::size_t i = 0; i < segments.size(); ++i) {
            if (!is_placeholder(r.segments[i])) continue;
            auto const name = placeholder_name(r.segments[i]);
            if (!is_text_placeholder(r.segments[i]) && !is_id(segments[i])) {
                return bad_request("path: \"" + std::string(segments[i]) + "\" is not a valid " +
                                   std::string(name) + " (expected a non-negative integer)");
            }
            m.params.add(name, std::string(segments[i]));
        }
        return m;
    }
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    std::string list;
    for (auto const& a : allowed) list += (list.empty() ? "" : ", ") + a;
    return api_error{405, "method: " + std::string(method) + " is not allowed on \"" +
                              std::string(path) + "\" (allowed: " + list + ")"};
}

outcome router::dispatch(request const& req) const
{
    auto m = find(req.method, req.path);
    if (!m) return error_response(m.error());
    return (*m->handler)(req, m->params);
}

response json_response(unsigned status, std::string body)
{
    return response{status, std::move(body), "application/json"};
}

response error_response(api_error const& e)
{
    return json_response(e.status, error_body(e.message));
}

void throw_exception_from_error(api_error const& e, boost::source_location const&)
{
    throw std::runtime_error(e.message);
}

}  // namespace torcrun::api
