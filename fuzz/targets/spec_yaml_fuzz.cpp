// Workflow specs in YAML: bytes -> core::spec::read_spec as a `.yaml` file.
#include "spec_reader_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    return torcrun::fuzz::read_spec_bytes(data, size, "spec.yaml");
}
