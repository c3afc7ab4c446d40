// The distance behind every "did you mean" of torcrun's messages (configuration keys, spec keys).
#pragma once

#include <cstddef>
#include <string_view>

namespace torcrun::core {

// Damerau-Levenshtein distance in its optimal string alignment form: insertions, deletions,
// substitutions and adjacent swaps ("nmae" is one step from "name").
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace torcrun::core
