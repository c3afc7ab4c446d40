// The worker and server configuration readers: the bytes up to the first NUL are a configuration
// file's text, read as both configurations; what follows the NUL is one command-line override
// `key=text`, applied over the file as `--set` does.
#include "fuzz_check.hpp"

#include "torcrun/config/config.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

namespace core = torcrun::core;
using torcrun::fuzz::check;
using torcrun::fuzz::check_error_text;

template <class Config>
void read_config(Config const& parsed)
{
    check_error_text(parsed);
    if (!parsed) return;
    // A configuration that reads passes its own rules and renders as a file would say it.
    check(core::check_config(*parsed).has_value(),
          "a configuration that reads passes check_config");
    [[maybe_unused]] auto const rendered = core::to_json(*parsed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    auto const text = torcrun::fuzz::text_of(data, size);
    auto const nul = text.find('\0');
    auto const file = text.substr(0, nul);
    std::vector<core::config_override> overrides;
    if (nul != std::string_view::npos) {
        auto const setting = text.substr(nul + 1);
        auto const eq = setting.find('=');
        overrides.push_back({std::string(setting.substr(0, eq)),
                             eq == std::string_view::npos ? std::string()
                                                          : std::string(setting.substr(eq + 1)),
                             "--set"});
    }
    read_config(core::parse_worker_config(file, "worker.json", overrides));
    read_config(core::parse_server_config(file, "server.json", overrides));
    return 0;
}
