// What sstat and sacct print about a job step (their -P tables, read by the worker in slurm
// mode): the bytes as a whole table and as a size and a CPU time. What parses is a number a
// usage record can hold: finite, non-negative.
#include "fuzz_check.hpp"

#include "torcrun/slurm/step_stats.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace {

namespace core = torcrun::core;
using torcrun::fuzz::check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    auto const text = torcrun::fuzz::text_of(data, size);

    auto const readings = core::parse_step_readings(text);
    torcrun::fuzz::check_error_text(readings);
    if (readings)
        for (auto const& r : *readings) {
            check(!r.step_id.empty(), "a reading names its step");
            check(!r.cpu_seconds || (std::isfinite(*r.cpu_seconds) && *r.cpu_seconds >= 0),
                  "a reading's CPU time is finite and non-negative");
        }

    torcrun::fuzz::check_error_text(core::parse_slurm_size(text));
    auto const cpu = core::parse_slurm_cpu_time(text);
    torcrun::fuzz::check_error_text(cpu);
    if (cpu) check(std::isfinite(*cpu) && *cpu >= 0, "a CPU time is finite and non-negative");
    return 0;
}
