// The client's failure kinds: names, which are worth a retry, and the exception thrown by
// `http_result<T>::value()` on an error.
#include "torcrun/common/io/http_client.hpp"

#include "torcrun/common/error.hpp"

#include <boost/throw_exception.hpp>

namespace torcrun::io {

std::string_view to_string(http_error_kind kind) noexcept {
    switch (kind) {
        case http_error_kind::connect_refused: return "connect_refused";
        case http_error_kind::dns: return "dns";
        case http_error_kind::timeout: return "timeout";
        case http_error_kind::closed: return "closed";
        case http_error_kind::http_4xx: return "http_4xx";
        case http_error_kind::http_5xx: return "http_5xx";
        case http_error_kind::protocol: return "protocol";
        case http_error_kind::tls: return "tls";
    }
    return "protocol";
}

bool http_error::transient() const noexcept {
    switch (kind) {
        case http_error_kind::connect_refused:
        case http_error_kind::dns:
        case http_error_kind::timeout:
        case http_error_kind::closed: return true;
        case http_error_kind::http_5xx: return status == 502 || status == 503 || status == 504;
        case http_error_kind::http_4xx:
        case http_error_kind::protocol:
        case http_error_kind::tls: return false;  // a certificate does not mend itself
    }
    return false;
}

void throw_exception_from_error(http_error const& e, boost::source_location const& loc) {
    boost::throw_exception(core::error_exception(e.message), loc);
}

}  // namespace torcrun::io
