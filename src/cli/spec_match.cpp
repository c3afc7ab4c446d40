// See spec_match.hpp.
#include "torcrun/cli/spec_match.hpp"

#include <map>
#include <vector>

namespace torcrun::core {

namespace {

// name -> the commands of the jobs of that name, in order.
using by_name = std::map<std::string, std::vector<std::string>>;

std::string quoted(std::string const& s) { return "\"" + s + "\""; }

}  // namespace

std::optional<std::string> spec_difference(spec::creation_plan const& plan,
                                           std::string const& stored_name,
                                           std::span<stored_job const> stored,
                                           std::string const& where)
{
    if (plan.workflow.name != stored_name)
        return "the spec's workflow is " + quoted(plan.workflow.name) + ", " + where +
               " holds " + quoted(stored_name);
    by_name wanted, held;
    for (auto const& j : plan.jobs) {
        for (std::size_t i = 0; i < j.copies; ++i) wanted[j.name].push_back(j.command);
    }
    for (auto const& j : stored) held[j.name].push_back(j.command);
    for (auto const& [name, commands] : wanted) {
        auto const it = held.find(name);
        if (it == held.end())
            return "job " + quoted(name) + " is in the spec but not in " + where;
        if (it->second.size() != commands.size())
            return "job " + quoted(name) + ": the spec makes " + std::to_string(commands.size()) +
                   " jobs of that name, " + where + " holds " + std::to_string(it->second.size());
        for (std::size_t i = 0; i < commands.size(); ++i) {
            if (commands[i] != it->second[i])
                return "job " + quoted(name) + ": the spec runs " + quoted(commands[i]) + ", " +
                       where + " ran " + quoted(it->second[i]);
        }
    }
    for (auto const& [name, commands] : held) {
        if (!wanted.count(name))
            return "job " + quoted(name) + " is in " + where + " but not in the spec";
    }
    return std::nullopt;
}

}  // namespace torcrun::core
