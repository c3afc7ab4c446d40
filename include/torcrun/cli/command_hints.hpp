// Hints for mistyped command lines: the command meant by an unknown one ("stauts" -> "status"),
// and for an unknown option either the closest option of the command or, for an option of Torc's
// own CLI, the torcrun option that does the same ("--num-cpus" -> "--set resources.cpus=N").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace torcrun::core {

// The name in `names` closest to `typed`: at most one edit per three letters typed (at least
// one, and fewer than it has letters), or else the one name `typed` is a prefix of. The first
// wins ties.
std::optional<std::string_view> closest_command(std::string_view typed,
                                                std::span<std::string_view const> names);

// " (did you mean --poll-interval?)", " (torcrun's equivalent of Torc's --num-cpus: --set
// resources.cpus=N)" or "" for `option` as the parser names it ("--num-cpus", "-o"), given
// the long names of the command's options ("poll-interval").
std::string unknown_option_hint(std::string_view option,
                                std::span<std::string const> long_names);

}  // namespace torcrun::core
