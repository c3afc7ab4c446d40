// The io layer's name for core's message concatenation (include/torcrun/core/concat.hpp), so the
// io sources keep writing `detail::cat(...)`.
#pragma once

#include "torcrun/core/concat.hpp"

namespace torcrun::io::detail {

using core::detail::cat;

}  // namespace torcrun::io::detail
