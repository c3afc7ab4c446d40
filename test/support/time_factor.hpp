// How much longer timing checks may take: TORCRUN_TEST_TIME_FACTOR, a number from 1 to 100 (1
// when unset). test/support/sanitized_test.sh sets it for sanitized builds, where every child a
// test starts is itself sanitized (tens of milliseconds to map its shadow memory, a leak scan at
// exit), so fifty at once on a loaded 2-core machine take seconds. Only the bounds stretch: what
// a test checks stays the same.
#pragma once

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace torcrun::test {

inline double time_factor()
{
    static double const factor = [] {
        char const* text = std::getenv("TORCRUN_TEST_TIME_FACTOR");
        if (text == nullptr || *text == '\0') return 1.0;
        char* end = nullptr;
        double const value = std::strtod(text, &end);
        if (*end != '\0' || !(value >= 1 && value <= 100))
            throw std::invalid_argument(std::string("TORCRUN_TEST_TIME_FACTOR: \"") + text +
                                        "\" is not a number from 1 to 100");
        return value;
    }();
    return factor;
}

// `bound` times the factor.
template <typename Rep, typename Period>
std::chrono::milliseconds scaled(std::chrono::duration<Rep, Period> bound)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<double, std::milli>(bound) * time_factor());
}

}  // namespace torcrun::test
