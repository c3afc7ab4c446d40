// String concatenation for messages. Besides being one allocation, it avoids
// `"literal" + std::string&&`, on which GCC 12 at -O3 reports a false -Wrestrict (PR 105651).
#pragma once

#include <string>
#include <string_view>

namespace torcrun::core::detail {

template <class... Parts>
std::string cat(Parts const&... parts)
{
    std::string out;
    out.reserve((std::string_view(parts).size() + ... + 0));
    (out.append(std::string_view(parts)), ...);
    return out;
}

}  // namespace torcrun::core::detail

// The io shells write `detail::cat(...)` in their own namespace.
namespace torcrun::io::detail {

using core::detail::cat;

}  // namespace torcrun::io::detail
