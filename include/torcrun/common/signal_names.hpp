// Signal names and numbers, both ways, for the command line (`--signal TERM`) and for messages
// ("killed by SIGKILL (9)"). Linux numbering, as <csignal> defines it on the build host.
#pragma once

#include "torcrun/common/error.hpp"

#include <string>
#include <string_view>

namespace torcrun::core {

// "SIGTERM", "TERM", "term", "SigTerm" or "15" -> 15. Names are matched case-insensitively with
// or without the SIG prefix (aliases IOT, CLD and POLL included); numbers may be any signal
// number from 1 to NSIG - 1, real-time ones included. Surrounding whitespace is ignored.
result<int> parse_signal(std::string_view text);

// srun's --signal value: [R:|B:]SIGNAL[@SECONDS], SIGNAL as parse_signal reads it, SECONDS at
// most 65535 (Slurm's limit), e.g. "TERM@120", "B:USR1@60".
bool is_srun_signal(std::string_view text);

// 15 -> "SIGTERM"; a number without a standard name (0, real-time signals, 99) -> "signal 99".
std::string signal_name(int signal);

}  // namespace torcrun::core
