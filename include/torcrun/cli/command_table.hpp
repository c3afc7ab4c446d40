// The subcommands of the torcrun binary, in the order `torcrun --help` lists them: the one table
// main.cpp dispatches on and `torcrun completion` describes.
#pragma once

#include "torcrun/cli/commands.hpp"

#include <span>
#include <string_view>

namespace torcrun::apps {

struct subcommand {
    std::string_view name;
    int (*run)(arguments const&);
    std::string_view summary;
};

std::span<subcommand const> subcommands();

}  // namespace torcrun::apps
