// Wait-status classification with the <sys/wait.h> macros (pure bit tests on an int, no
// system call), plus the wording of statuses in messages.
#include "torcrun/common/exit_status.hpp"

#include "torcrun/common/signal_names.hpp"

#include <sys/wait.h>

#include <array>
#include <charconv>

namespace torcrun::core {
namespace {

// "0x057f": at least four hex digits, the width of a wait status.
std::string hex(int raw)
{
    std::array<char, 16> buffer{};
    auto const [end, ec] =
        std::to_chars(buffer.data(), buffer.data() + buffer.size(), static_cast<unsigned>(raw), 16);
    std::string digits(buffer.data(), end);
    if (digits.size() < 4) digits.insert(0, 4 - digits.size(), '0');
    return "0x" + digits;
}

// "SIGKILL (9)", or "signal 40" when the number has no standard name.
std::string signal_label(int signal)
{
    auto name = signal_name(signal);
    if (name.starts_with("SIG")) name += " (" + std::to_string(signal) + ")";
    return name;
}

error not_a_termination(int raw, std::string const& why)
{
    return error{"wait status: " + hex(raw) + " is not a termination (" + why + ")"};
}

}  // namespace

int exit_status::return_code() const { return how == kind::exited ? code : 128 + signal; }

std::string exit_status::describe() const
{
    if (how == kind::exited) return "exited with " + std::to_string(code);
    return "killed by " + signal_label(signal) + (core_dumped ? ", core dumped" : "");
}

result<exit_status> classify_wait_status(int raw)
{
    if (raw < 0 || raw > 0xffff)
        return error{"wait status: " + hex(raw) + " is not a valid wait status"};
    if (WIFEXITED(raw)) return exit_status{exit_status::kind::exited, WEXITSTATUS(raw), 0, false};
    if (WIFSIGNALED(raw))
        return exit_status{exit_status::kind::signaled, 0, WTERMSIG(raw), WCOREDUMP(raw) != 0};
    if (WIFSTOPPED(raw)) return not_a_termination(raw, "stopped by " + signal_label(WSTOPSIG(raw)));
    if (WIFCONTINUED(raw)) return not_a_termination(raw, "continued");
    return error{"wait status: " + hex(raw) + " is not a valid wait status"};
}

}  // namespace torcrun::core
