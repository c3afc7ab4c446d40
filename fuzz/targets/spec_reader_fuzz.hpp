// The four spec targets differ only in the file name that picks the reader (JSON, JSON5, YAML,
// KDL), so they share this body: the bytes as a spec file's text through the public reader.
#pragma once

#include "fuzz_check.hpp"

#include "torcrun/spec/spec_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace torcrun::fuzz {

inline int read_spec_bytes(std::uint8_t const* data, std::size_t size, std::string_view file_name)
{
    auto const spec = core::spec::read_spec(text_of(data, size), file_name);
    check_error_text(spec);
    return 0;
}

}  // namespace torcrun::fuzz
