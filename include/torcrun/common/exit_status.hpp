// How a child ended, classified from its raw wait status (waitpid, or Process v2's
// native_exit_code()). Never judge a child by exit_code() alone: it cannot tell "exit 15" from
// "killed by SIGTERM".
#pragma once

#include "torcrun/common/error.hpp"

#include <string>

namespace torcrun::core {

struct exit_status {
    enum class kind { exited, signaled };

    kind how = kind::exited;
    int code = 0;    // the exit code; 0 when signaled
    int signal = 0;  // the terminating signal; 0 when exited
    bool core_dumped = false;

    // exited: the code; signaled: 128 + signal (Torc's newer convention, as shells report it).
    int return_code() const;

    // "exited with 3", "killed by SIGKILL (9)", "killed by SIGSEGV (11), core dumped",
    // "killed by signal 40" (no standard name).
    std::string describe() const;

    bool operator==(exit_status const&) const = default;
};

// Only terminations are exit statuses. A stopped or continued child, a value outside the 16
// bits of a wait status, or a pattern no termination produces is an error such as
// `wait status: 0x057f is not a termination (stopped by SIGTRAP (5))`. Process v2 starts
// native_exit_code() at 0x017f ("still active"), which is rejected as stopped.
result<exit_status> classify_wait_status(int raw);

}  // namespace torcrun::core
