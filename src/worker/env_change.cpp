// The change record of a job's environment: the difference from the worker's, and its text
// for environment.txt. One entry per line whatever the value holds, so the file can be read
// and diffed line by line.
#include "torcrun/worker/env_policy.hpp"

#include <algorithm>

namespace torcrun::core {

namespace {

// The sources of make_job_environment, in the order its stages apply them.
constexpr std::string_view env_sources[] = {"environment.set", "workflow env", "job env",
                                            "torcrun"};

// The group `name` is written under: its source when it is one of env_sources, else none.
std::string_view source_group(env_change const& change, std::string const& name)
{
    auto const it = change.sources.find(name);
    if (it == change.sources.end()) return {};
    for (std::string_view known : env_sources)
        if (known == it->second) return known;
    return {};
}

bool has_control(std::string_view value)
{
    return std::ranges::any_of(value, [](char c) {
        auto const u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

// Bash's $'...' form: readable, one line, and pastes back into a shell unchanged.
std::string ansi_c_quote(std::string_view value)
{
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "$'";
    for (char c : value) {
        auto const u = static_cast<unsigned char>(c);
        switch (c) {
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            case '\\': out += "\\\\"; break;
            case '\'': out += "\\'"; break;
            default:
                if (u < 0x20 || u == 0x7f) {
                    out += "\\x";
                    out += hex[u >> 4];
                    out += hex[u & 0xf];
                } else {
                    out += c;
                }
        }
    }
    out += '\'';
    return out;
}

}  // namespace

// One walk over both maps side by side (both are sorted by name): removed in `before`'s order,
// set in `after`'s, as two lookups per name would give, without the lookups (a job's whole
// environment is diffed at every start).
env_change diff_environment(env_map const& before, env_map const& after)
{
    env_change change;
    auto old = before.begin();
    auto now = after.begin();
    while (old != before.end() || now != after.end()) {
        if (now == after.end() || (old != before.end() && old->first < now->first)) {
            change.removed.push_back(old->first);
            ++old;
        } else if (old == before.end() || now->first < old->first) {
            change.set.emplace_back(now->first, now->second);
            ++now;
        } else {
            if (old->second != now->second) change.set.emplace_back(now->first, now->second);
            ++old;
            ++now;
        }
    }
    return change;
}

std::string render_env_change(env_change const& change)
{
    std::string out;
    for (auto const& name : change.removed) {
        out += "- ";
        out += name;
        out += '\n';
    }
    auto const write_set = [&](std::string_view source) {
        bool header = source.empty();
        for (auto const& [name, value] : change.set) {
            if (source_group(change, name) != source) continue;
            if (!header) (out += "# ").append(source) += '\n', header = true;
            out += "+ ";
            out += name;
            out += '=';
            out += has_control(value) ? ansi_c_quote(value) : value;
            out += '\n';
        }
    };
    write_set("");
    for (std::string_view source : env_sources) write_set(source);
    return out;
}

}  // namespace torcrun::core
