// Message building shared by the spec sources (private to src/spec). Messages are built
// by appending: GCC 12 at -O3 reports a false -Wrestrict on `"literal" + std::string&&`
// (GCC PR 105329), and -Werror turns it into a build failure.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace torcrun::core::spec {

inline std::string concat(std::initializer_list<std::string_view> parts)
{
    std::string out;
    for (auto part : parts) out.append(part);
    return out;
}

inline std::string quoted(std::string_view text) { return concat({"\"", text, "\""}); }

}  // namespace torcrun::core::spec
