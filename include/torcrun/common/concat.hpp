// String concatenation for messages, and join. Besides being one allocation, cat it avoids
// `"literal" + std::string&&`, on which GCC 12 at -O3 reports a false -Wrestrict (PR 105651).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// The items with `separator` between them: join({"0", "3"}, ",") is "0,3".
inline std::string join(std::vector<std::string> const& items, std::string_view separator)
{
    std::string out;
    for (auto const& item : items) {
        if (!out.empty()) out += separator;
        out += item;
    }
    return out;
}

}  // namespace torcrun::core

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
