// Slurm's list notations: the bytes as a hostlist and as a per-node count list. A hostlist of
// plain names must survive compress -> expand unchanged (the contract of compress_hostlist).
#include "fuzz_check.hpp"

#include "torcrun/slurm/hostlist.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace {

namespace core = torcrun::core;
using torcrun::fuzz::check;

bool plain_name(std::string const& name)
{
    return std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.';
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    auto const text = torcrun::fuzz::text_of(data, size);
    auto const hosts = core::expand_hostlist(text);
    torcrun::fuzz::check_error_text(hosts);
    if (hosts) {
        check(hosts->size() <= core::max_list_size, "a hostlist expands to at most max_list_size");
        if (std::all_of(hosts->begin(), hosts->end(), plain_name)) {
            auto const again = core::expand_hostlist(core::compress_hostlist(*hosts));
            check(again && *again == *hosts, "expand(compress(hosts)) == hosts");
        }
    }
    auto const counts = core::expand_counts(text);
    torcrun::fuzz::check_error_text(counts);
    if (counts)
        check(counts->size() <= core::max_list_size, "counts expand to at most max_list_size");
    return 0;
}
