// The process environment as a value: core never reads the process environment itself; the
// shell reads it once at start-up and hands the map in.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace torcrun::core {

using env_map = std::map<std::string, std::string, std::less<>>;

// The value of `name`, or nullopt when it is unset. An empty value is returned as set-but-empty.
inline std::optional<std::string_view> lookup(env_map const& env, std::string_view name)
{
    if (auto it = env.find(name); it != env.end()) return std::string_view(it->second);
    return std::nullopt;
}

// The names a workflow or job `env` may set (newer Torc's rule): [A-Za-z_][A-Za-z0-9_]*.
inline bool is_env_name(std::string_view name)
{
    auto const letter = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    };
    if (name.empty() || !letter(name.front())) return false;
    for (char c : name.substr(1)) {
        if (!letter(c) && !(c >= '0' && c <= '9')) return false;
    }
    return true;
}

}  // namespace torcrun::core
