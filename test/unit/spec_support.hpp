// Helpers shared by the workflow-spec test files: read, expand and plan a spec given as text,
// and describe results as short strings so that table rows can state what they expect.
#pragma once

#include "torcrun/core/spec/creation_plan.hpp"
#include "torcrun/core/spec/spec_expansion.hpp"
#include "torcrun/core/spec/spec_reader.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spec_test {

namespace spec = torcrun::core::spec;
using strings = std::vector<std::string>;
template <class T>
using result = torcrun::core::result<T>;

// The error message, or "ok".
template <class T>
std::string message_of(result<T> const& r)
{
    return r ? std::string("ok") : r.error().message;
}

inline result<spec::workflow_spec> read(std::string_view text, std::string_view name = "t.json5")
{
    return spec::read_spec(text, name);
}

inline result<spec::expanded_workflow> expand(std::string_view text,
                                              std::string_view name = "t.json5")
{
    auto parsed = read(text, name);
    if (!parsed) return parsed.error();
    return spec::expand_workflow(*parsed);
}

inline result<spec::creation_plan> plan(std::string_view text, spec::plan_options options = {},
                                        std::string_view name = "t.json5")
{
    auto parsed = read(text, name);
    if (!parsed) return parsed.error();
    return spec::plan_spec(*parsed, options);
}

inline std::string join(strings const& items, std::string_view separator = ",")
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out.append(i ? separator : "").append(items[i]);
    return out;
}

inline std::string or_none(std::optional<std::string> const& v)
{
    return v ? *v : "none";
}

// "job>dep" per edge.
inline strings describe(std::vector<spec::job_edge> const& edges)
{
    strings out;
    for (auto const& e : edges) out.push_back(e.job + ">" + e.depends_on);
    return out;
}

inline strings job_names(std::vector<spec::expanded_job> const& jobs)
{
    strings out;
    for (auto const& j : jobs) out.push_back(j.name);
    return out;
}

}  // namespace spec_test
