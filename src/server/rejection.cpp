#include "torcrun/server/rejection.hpp"

#include "torcrun/common/error.hpp"

namespace torcrun::core {

void throw_exception_from_error(rejection const& r, boost::source_location const&)
{
    throw error_exception("HTTP " + std::to_string(r.http_status) + ": " + r.message);
}

}  // namespace torcrun::core
