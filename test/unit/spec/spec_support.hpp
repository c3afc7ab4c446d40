// Helpers shared by the workflow-spec test files: read, expand and plan a spec given as text,
// and describe results as short strings so that table rows can state what they expect.
#pragma once

#include "torcrun/spec/creation_plan.hpp"
#include "torcrun/spec/spec_expansion.hpp"
#include "torcrun/spec/spec_reader.hpp"

#include <boost/json/serialize.hpp>

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

// One line per file, user data, job, edge kind and warning, in that order:
// `file raw_a=/data/a.csv`, `user_data cfg={"lr":0.1}`,
// `job b: run | deps=a | in=f | out=g | uin=u | uout=v | rr=r | sched=s | fh=h | copies=3`,
// `explicit b>a`, `implied b>a`, `warning: ...`. Empty parts are left out.
inline strings describe(spec::expanded_workflow const& w)
{
    strings out;
    for (auto const& f : w.files) out.push_back("file " + f.name + "=" + f.path);
    for (auto const& u : w.user_data) {
        std::string line = "user_data " + u.name;
        if (u.data) line += "=" + boost::json::serialize(*u.data);
        out.push_back(line);
    }
    for (auto const& j : w.jobs) {
        std::string line = "job " + j.name + ": " + j.command;
        auto const part = [&](std::string_view key, std::string const& value) {
            if (!value.empty()) line.append(" | ").append(key).append("=").append(value);
        };
        part("script", j.invocation_script.value_or(""));
        part("deps", join(j.depends_on));
        part("in", join(j.input_files));
        part("out", join(j.output_files));
        part("uin", join(j.input_user_data));
        part("uout", join(j.output_user_data));
        part("rr", j.resource_requirements.value_or(""));
        part("sched", j.scheduler.value_or(""));
        part("fh", j.failure_handler.value_or(""));
        part("copies", j.copies > 1 ? std::to_string(j.copies) : "");
        out.push_back(line);
    }
    if (auto const e = describe(spec::explicit_edges(w)); !e.empty())
        out.push_back("explicit " + join(e, " "));
    if (auto const e = describe(spec::implied_edges(w)); !e.empty())
        out.push_back("implied " + join(e, " "));
    for (auto const& warning : w.warnings) out.push_back("warning: " + warning);
    return out;
}

}  // namespace spec_test
