// Workflow specs in JSON5: bytes -> core::spec::read_spec as a `.json5` file.
#include "spec_reader_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    return torcrun::fuzz::read_spec_bytes(data, size, "spec.json5");
}
