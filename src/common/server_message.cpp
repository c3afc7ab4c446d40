// The text of a Torc error answer, for client messages: torcrun's server and Torc's put it in
// different places (api_error.hpp), and a proxy in between may answer with plain text.
#include "torcrun/common/server_message.hpp"

#include <boost/json/parse.hpp>

namespace torcrun::api {

namespace json = boost::json;

std::string server_message(std::string_view body)
{
    boost::system::error_code ec;
    auto const v = json::parse(body, ec);
    if (!ec && v.is_object()) {
        auto const& o = v.as_object();
        if (auto const* m = o.if_contains("message"); m && m->is_string())
            return std::string(m->as_string());
        if (auto const* e = o.if_contains("error"); e && e->is_object()) {
            if (auto const* m = e->as_object().if_contains("message"); m && m->is_string())
                return std::string(m->as_string());
        }
    }
    auto const first = body.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    auto const last = body.find_last_not_of(" \t\r\n");
    auto trimmed = body.substr(first, last - first + 1);
    constexpr std::size_t shown = 300;
    if (trimmed.size() <= shown) return std::string(trimmed);
    return std::string(trimmed.substr(0, shown)) + "...";
}

}  // namespace torcrun::api
