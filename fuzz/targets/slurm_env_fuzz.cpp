// The Slurm environment: the bytes as `NAME=VALUE` lines (an `env` dump) read as an allocation on
// a fixed machine. Whatever it reads, the allocation must be self-consistent.
#include "fuzz_check.hpp"

#include "torcrun/slurm/slurm_env.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

namespace core = torcrun::core;
using torcrun::fuzz::check;

core::env_map env_of(std::string_view text)
{
    core::env_map env;
    while (!text.empty()) {
        auto const end = text.find('\n');
        auto const line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        auto const eq = line.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        env.insert_or_assign(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    }
    return env;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    core::machine_facts const machine{4, 16ull << 30, "vm", {"0", "1"}};
    auto const read = core::read_allocation(env_of(torcrun::fuzz::text_of(data, size)), machine);
    torcrun::fuzz::check_error_text(read);
    if (!read) return 0;
    if (read->local_node) check(*read->local_node < read->nodes.size(), "local_node indexes nodes");
    check(read->in_slurm || read->scope == core::allocation_scope::machine,
          "outside Slurm the scope is the machine");
    [[maybe_unused]] auto const scope = core::to_string(read->scope);
    return 0;
}
