// A refused server request as a value: the HTTP status the route sends and the message that goes
// in its JSON body `{"message": ...}`. Decisions return `decision<T>`; the api layer turns a
// rejection into a response without knowing why it happened.
#pragma once

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <string>

namespace torcrun::core {

struct rejection {
    int http_status = 422;  // 404 unknown id, 409 state conflict, 422 unusable input
    std::string message;    // `what: detail`, quoting the offending value

    bool operator==(rejection const&) const = default;
};

template <class T>
using decision = boost::system::result<T, rejection>;

// Found by ADL from decision<T>::value() when a caller chooses to throw; throws
// error_exception with "HTTP <status>: <message>".
[[noreturn]] void throw_exception_from_error(rejection const& r, boost::source_location const& loc);

}  // namespace torcrun::core
