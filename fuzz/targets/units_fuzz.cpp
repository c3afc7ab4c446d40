// Torc's value formats: the bytes as a memory string and as an ISO-8601 duration. What parses
// must survive the round trip through the form torcrun writes.
#include "fuzz_check.hpp"

#include "torcrun/common/units.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace {

namespace core = torcrun::core;
using torcrun::fuzz::check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    auto const text = torcrun::fuzz::text_of(data, size);

    auto const bytes = core::parse_memory(text);
    torcrun::fuzz::check_error_text(bytes);
    if (bytes) {
        auto const again = core::parse_memory(core::format_memory(*bytes));
        check(again && *again == *bytes, "parse_memory(format_memory(b)) == b");
        check(!core::format_size(*bytes).empty(), "format_size writes something");
        check(core::memory_megabytes(*bytes) == *bytes / (1024 * 1024), "whole megabytes");
    }

    auto const seconds = core::parse_duration(text);
    torcrun::fuzz::check_error_text(seconds);
    if (seconds) {
        check(std::isfinite(*seconds) && *seconds >= 0 && *seconds <= 9007199254740992.0,
              "a duration is finite, non-negative and at most 2^53 s");
        // Torc's form keeps whole minutes: reading it back gives the floor to the minute.
        auto const minutes = core::parse_duration(core::format_duration(*seconds));
        check(minutes && *minutes == std::floor(*seconds / 60) * 60,
              "parse_duration(format_duration(s)) == s to the minute");
    }
    return 0;
}
