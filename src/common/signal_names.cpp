// The one table of signal names. Canonical names come before their aliases so that a number
// maps back to the name `kill -l` prints.
#include "torcrun/common/signal_names.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <csignal>
#include <system_error>

namespace torcrun::core {
namespace {

struct named_signal {
    std::string_view name;  // without the SIG prefix, upper case
    int number;
};

constexpr auto signal_table = std::to_array<named_signal>({
    {"HUP", SIGHUP},
    {"INT", SIGINT},
    {"QUIT", SIGQUIT},
    {"ILL", SIGILL},
    {"TRAP", SIGTRAP},
    {"ABRT", SIGABRT},
    {"BUS", SIGBUS},
    {"FPE", SIGFPE},
    {"KILL", SIGKILL},
    {"USR1", SIGUSR1},
    {"SEGV", SIGSEGV},
    {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE},
    {"ALRM", SIGALRM},
    {"TERM", SIGTERM},
#ifdef SIGSTKFLT
    {"STKFLT", SIGSTKFLT},
#endif
    {"CHLD", SIGCHLD},
    {"CONT", SIGCONT},
    {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU},
    {"URG", SIGURG},
    {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ},
    {"VTALRM", SIGVTALRM},
    {"PROF", SIGPROF},
    {"WINCH", SIGWINCH},
    {"IO", SIGIO},
#ifdef SIGPWR
    {"PWR", SIGPWR},
#endif
    {"SYS", SIGSYS},
    // Aliases: accepted, never printed.
    {"IOT", SIGABRT},
    {"CLD", SIGCHLD},
#ifdef SIGPOLL
    {"POLL", SIGPOLL},
#endif
});

std::string_view trim(std::string_view s)
{
    constexpr std::string_view whitespace = " \t\n\r\f\v";
    auto const first = s.find_first_not_of(whitespace);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(whitespace) - first + 1);
}

std::string upper(std::string_view s)
{
    std::string out(s);
    for (auto& c : out)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return out;
}

}  // namespace

result<int> parse_signal(std::string_view text)
{
    auto const s = trim(text);
    if (!s.empty() &&
        std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        int n = 0;
        auto const [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
        if (ec == std::errc{} && n >= 1 && n < NSIG) return n;
    } else {
        auto const up = upper(s);
        std::string_view name = up;
        if (name.starts_with("SIG")) name.remove_prefix(3);
        for (auto const& entry : signal_table)
            if (entry.name == name) return entry.number;
    }
    return error{"signal: \"" + std::string(text) +
                 "\" is not a signal name or number (examples: SIGTERM, TERM, 15)"};
}

bool is_srun_signal(std::string_view spec)
{
    for (std::string_view const prefix : {"R:", "B:", "RB:", "BR:"}) {
        if (spec.starts_with(prefix)) spec.remove_prefix(prefix.size());
    }
    std::string_view const name = spec.substr(0, spec.find('@'));
    bool ok = !name.empty() && name.find(':') == std::string_view::npos
        && parse_signal(name).has_value();
    if (ok && name.size() < spec.size()) {
        std::string_view const time = spec.substr(name.size() + 1);
        unsigned seconds = 0;
        auto const [end, ec] = std::from_chars(time.data(), time.data() + time.size(), seconds);
        ok = !time.empty() && ec == std::errc{} && end == time.data() + time.size()
            && seconds <= 65535;
    }
    return ok;
}

std::string signal_name(int signal)
{
    for (auto const& entry : signal_table)
        if (entry.number == signal) return "SIG" + std::string(entry.name);
    return "signal " + std::to_string(signal);
}

}  // namespace torcrun::core
