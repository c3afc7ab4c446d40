// How messages name a JSON value's kind, and quote a text.
#include "torcrun/common/json_kind.hpp"

namespace torcrun::api::detail {

std::string_view describe(boost::json::value const& v)
{
    switch (v.kind()) {
    case boost::json::kind::null:
        return "null";
    case boost::json::kind::bool_:
        return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
        return "an integer";
    case boost::json::kind::double_:
        return "a number";
    case boost::json::kind::string:
        return "a string";
    case boost::json::kind::array:
        return "an array";
    case boost::json::kind::object:
        return "an object";
    }
    return "a value";
}

std::string quoted(std::string_view text) { return '"' + std::string(text) + '"'; }

}  // namespace torcrun::api::detail
