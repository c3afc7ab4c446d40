// The project's error value. Expected failures (bad input, bad configuration) are returned as
// `result<T>`; each carries one human-readable message of the form `what: detail [context]`,
// built at the place that knows the context, and asserted verbatim in tests.
#pragma once

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <string>

namespace torcrun::core {

struct error {
    std::string message;
};

// Found by ADL from result<T, error>::value() when a caller chooses to throw.
[[noreturn]] void throw_exception_from_error(error const& e, boost::source_location const& loc);

template <class T>
using result = boost::system::result<T, error>;

// The exception thrown by result<T>::value() on an error.
struct error_exception : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace torcrun::core
