// What every target asserts beyond "no crash": a property that fails aborts the run with the
// property's text, so libFuzzer keeps the input as a crash like any other.
#pragma once

#include "torcrun/common/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace torcrun::fuzz {

inline void check(bool holds, char const* property)
{
    if (holds) return;
    std::fprintf(stderr, "fuzz property failed: %s\n", property);
    std::abort();
}

// Bad input is answered with a message naming the problem: never an empty one.
template <class T>
void check_error_text(core::result<T> const& r)
{
    if (!r) check(!r.error().message.empty(), "an error value carries a message");
}

inline std::string_view text_of(unsigned char const* data, std::size_t size)
{
    return {reinterpret_cast<char const*>(data), size};
}

}  // namespace torcrun::fuzz
