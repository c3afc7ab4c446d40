// Reading fields of the server's JSON answers in the client commands: absent fields and fields
// of another kind read as nothing, so each command decides what a missing field means.
#pragma once

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace torcrun::apps {

// The field `key` of an object, or null.
inline boost::json::value const* field(boost::json::value const& v, std::string_view key)
{
    auto const* o = v.if_object();
    return o ? o->if_contains(key) : nullptr;
}

// A string's text, other values serialized, null and absent as "".
inline std::string text_of(boost::json::value const* v)
{
    if (!v || v->is_null()) return "";
    if (v->is_string()) return std::string(v->as_string());
    return boost::json::serialize(*v);
}

// The integer field `key`, or `fallback`.
inline std::int64_t integer_of(boost::json::value const& v, std::string_view key,
                               std::int64_t fallback = 0)
{
    auto const* f = field(v, key);
    return f && f->is_int64() ? f->as_int64() : fallback;
}

}  // namespace torcrun::apps
