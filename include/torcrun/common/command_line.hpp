// An argv shown as one shell line that a person can read and paste back (command.txt, the
// scripts `torcrun slurm-script` writes). Nothing execs through it: the launcher execs the vector.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// POSIX shell quoting for reading and pasting: words of letters, digits and _@%+=:,./- stay
// as they are, anything else goes in single quotes ('it'\''s'); "" becomes ''.
std::string shell_quote(std::string_view word);

// The argv as one shell line, words quoted by shell_quote; a first word holding '=' is quoted
// too, so that a shell would not read it as an assignment.
std::string render_command_line(std::vector<std::string> const& argv);

}  // namespace torcrun::core
