// See command_hints.hpp. Torc's options are those of `torc run`, `torc workflows run` and the
// global ones (--password, -f/--format); each maps to the torcrun flag or key of the same effect.
#include "torcrun/cli/command_hints.hpp"

#include "torcrun/common/edit_distance.hpp"

#include <algorithm>
#include <vector>

namespace torcrun::core {

namespace {

struct torc_option {
    std::string_view torc;         // as typed
    std::string_view torcrun;      // what does it here
    std::string_view needs;        // the torcrun long option the equivalent needs ("" = none)
};

// An equivalent is offered only where the command has the option it names.
constexpr torc_option torc_options[] = {
    {"--num-cpus", "--set resources.cpus=N", "set"},
    {"--memory-gb", "--set resources.memory=Ng", "set"},
    {"--num-gpus", "--set resources.gpus=N", "set"},
    {"-p", "--poll-interval S", "poll-interval"},
    {"-o", "--output-dir DIR", "output-dir"},
    {"--password", "--password-file FILE or $TORC_PASSWORD", "password-file"},
    {"--https", "--tls-cert FILE --tls-key FILE", "tls-cert"},  // torc-server run --https
    {"-f", "--json", "json"},
    {"--format", "--json", "json"},
};

bool has(std::span<std::string const> names, std::string_view name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::optional<std::string_view> closest_command(std::string_view typed,
                                                std::span<std::string_view const> names)
{
    // One edit per three letters typed, at least one: "rn" is "run", "can" is not "run".
    std::size_t const most = std::max<std::size_t>(1, typed.size() / 3);
    std::optional<std::string_view> best;
    std::size_t best_distance = most + 1;
    for (auto const name : names) {
        std::size_t const d = edit_distance(typed, name);
        if (d < best_distance && d < typed.size()) best = name, best_distance = d;
    }
    if (best || typed.empty()) return best;
    std::vector<std::string_view> extended;
    for (auto const name : names) {
        if (name.starts_with(typed)) extended.push_back(name);
    }
    if (extended.size() == 1) return extended.front();
    return std::nullopt;
}

std::string unknown_option_hint(std::string_view option, std::span<std::string const> long_names)
{
    for (auto const& t : torc_options) {
        if (t.torc == option && has(long_names, t.needs))
            return " (torcrun's equivalent of Torc's " + std::string(option) + ": " +
                   std::string(t.torcrun) + ")";
    }
    if (!option.starts_with("--")) return "";
    std::vector<std::string_view> names(long_names.begin(), long_names.end());
    auto const near = closest_command(option.substr(2), names);
    return near ? " (did you mean --" + std::string(*near) + "?)" : "";
}

}  // namespace torcrun::core
