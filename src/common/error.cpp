#include "torcrun/common/error.hpp"

namespace torcrun::core {

void throw_exception_from_error(error const& e, boost::source_location const&)
{
    throw error_exception(e.message);
}

}  // namespace torcrun::core
