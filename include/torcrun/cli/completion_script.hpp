// Shell completion from the commands' own help: what `torcrun CMD --help` prints (Boost's
// option table and the usage lines) read back into the words a shell completes, and the bash
// script that completes them. Reading the help rather than keeping a second list means the
// completion cannot drift from the options a command accepts.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::apps {

struct command_words {
    std::string name;  // "allocation", or a command and its subcommand: "workflows sync-status"
    std::vector<std::string> options;                        // "--json", "-h", "--help", ...
    std::vector<std::string> value_options;                  // those followed by a value
    std::map<std::string, std::vector<std::string>> choices; // "--mode" -> auto, direct, slurm
    std::vector<std::string> subcommands;                    // "list", "sync-status"
};

// The words of command `name` found in its --help text.
command_words read_help(std::string_view name, std::string_view help);

// A bash script defining `_torcrun` and registering it for `torcrun`: commands at the first
// word, a command's subcommands at the second, its options (a subcommand's own after it) after
// `-`, an option's choices after it, file names elsewhere.
std::string bash_completion_script(std::span<command_words const> commands);

}  // namespace torcrun::apps
