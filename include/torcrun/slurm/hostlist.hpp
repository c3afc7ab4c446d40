// Slurm's compact list notations: hostlists ("gpu[001-004],login1") and per-node counts
// ("36(x2),24"), as found in SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE and friends.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::core {

// Upper bound on what one list may expand to, so a typo such as "n[0-99999999999]" is an
// error value instead of an out-of-memory crash. Far above any real allocation (the largest
// machines have some 10,000 nodes), and low enough that a 15-byte list cannot cost a second and
// 50 MB ("[000-802802]" once named 802,803 hosts: found by fuzzing).
inline constexpr std::size_t max_list_size = 100'000;

// "n[1-3,7],gpu[001-002],rack[1-2]-n[01-02]-ib" -> the host names in Slurm's order: groups left
// to right; within a group the first bracket varies slowest; a range keeps the width of its low
// bound ("001-010" -> "001".."010", "8-10" -> "8","9","10"). Whitespace, unbalanced or nested
// brackets, empty names or ranges, descending or non-numeric ranges and lists longer than
// max_list_size are errors; the message starts with `what` and quotes the whole input.
result<std::vector<std::string>> expand_hostlist(std::string_view text,
                                                 std::string_view what = "hostlist");

// The inverse for simple lists: runs of names that differ only in a trailing number become one
// bracket ("n1,n2,n3,n7" -> "n[1-3,7]"), keeping zero padding and the order given (nothing is
// sorted or deduplicated), so expand_hostlist(compress_hostlist(v)) == v for names made of
// letters, digits, '-', '_' and '.'. An empty vector gives "".
std::string compress_hostlist(std::vector<std::string> const& hosts);

// "36(x2),24" -> 36, 36, 24 (SLURM_JOB_CPUS_PER_NODE, SLURM_TASKS_PER_NODE). Empty input, empty
// items, anything but N or N(xR), a zero repeat, values above UINT32_MAX and lists longer than
// max_list_size are errors; the message starts with `what` and quotes the whole input.
result<std::vector<std::uint32_t>> expand_counts(std::string_view text,
                                                 std::string_view what = "counts");

}  // namespace torcrun::core
