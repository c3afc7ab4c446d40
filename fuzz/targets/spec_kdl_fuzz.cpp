// Workflow specs in KDL: bytes -> core::spec::read_spec as a `.kdl` file (the KDL 2.0 reader and
// Torc's node-to-field mapping).
#include "spec_reader_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    return torcrun::fuzz::read_spec_bytes(data, size, "spec.kdl");
}
