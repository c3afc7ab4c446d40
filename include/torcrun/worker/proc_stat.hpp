// One line of /proc/<pid>/stat as a value, and the per-job sums the sampler and the launcher
// need from a table of them. Pure text parsing: io reads the files, core reads the fields
// (proc(5): the command name may hold spaces and ')', so the fields start after the LAST ')').
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

struct proc_stat {
    int pid = 0;
    std::string comm;  // without the parentheses
    char state = '?';  // R, S, D, Z, T, t, X, I, ...
    int ppid = 0;
    int pgrp = 0;
    int session = 0;
    std::uint64_t utime_ticks = 0;  // clock ticks (sysconf(_SC_CLK_TCK))
    std::uint64_t stime_ticks = 0;
    std::uint64_t cutime_ticks = 0;  // of children it has waited for
    std::uint64_t cstime_ticks = 0;
    std::uint64_t rss_pages = 0;

    // Zombies ('Z') and dead tasks ('X') hold no memory and run no code any more.
    bool alive() const { return state != 'Z' && state != 'X'; }

    bool operator==(proc_stat const&) const = default;
};

// `text` is the file's content (a trailing newline is fine). Errors quote the text, or the field
// and the pid once the pid is known: `proc stat of pid 7: utime (field 14) "x" is not a number`.
result<proc_stat> parse_proc_stat(std::string_view text);

// What one job's process tree (its session) holds at one instant.
struct tree_usage {
    std::uint64_t rss_pages = 0;  // summed over the living processes
    // user + system time of every process, plus the time of the children each one reaped, so
    // the sum does not drop when a process inside the tree reaps another.
    std::uint64_t cpu_ticks = 0;
    std::size_t processes = 0;  // living processes

    bool operator==(tree_usage const&) const = default;
};

// Sums for every session in `sessions` (each job leads its own session); sessions without a
// process in `table` are absent from the result.
std::map<int, tree_usage> usage_by_session(std::span<proc_stat const> table,
                                           std::span<int const> sessions);

// The living processes of `session` other than its leader (pid == session), in table order.
std::vector<int> session_members(std::span<proc_stat const> table, int session);

}  // namespace torcrun::core
