// The GPU list and count notations, parsed without looking at any other variable.
#include "torcrun/slurm/slurm_gpus.hpp"

#include <cstdint>

namespace torcrun::core {

namespace {

std::string_view trim(std::string_view s)
{
    auto const first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool all_digits(std::string_view s)
{
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::vector<std::string> parse_device_list(std::string_view value, bool strip_gres_prefix)
{
    std::vector<std::string> ids;
    while (true) {
        auto const comma = value.find(',');
        std::string_view id = trim(value.substr(0, comma));
        if (strip_gres_prefix && (id.starts_with("gpu:") || id.starts_with("GPU:"))) {
            id = trim(id.substr(4));
        }
        if (id == "-1") break;
        if (!id.empty()) ids.emplace_back(id);
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return ids;
}

result<std::uint32_t> parse_gpu_count(std::string_view value, std::string_view what)
{
    auto const bad = [&](std::string_view detail) {
        return error{std::string(what) + ": \"" + std::string(value) + "\" " + std::string(detail)};
    };
    std::uint64_t total = 0;
    std::string_view rest = value;
    while (true) {
        auto const comma = rest.find(',');
        std::string_view const item = rest.substr(0, comma);
        auto const colon = item.rfind(':');
        std::string_view const count =
            colon == std::string_view::npos ? item : item.substr(colon + 1);
        std::string_view const names =
            colon == std::string_view::npos ? "x" : item.substr(0, colon);
        bool const names_ok = !names.empty() && names.front() != ':' && names.back() != ':'
                              && names.find("::") == std::string_view::npos;
        if (!all_digits(count) || !names_ok) {
            return bad("is not a GPU count (N or [gpu:][type:]N, comma-separated)");
        }
        if (count.size() > 10 || (total += std::stoull(std::string(count))) > UINT32_MAX) {
            return bad("is too large");
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return static_cast<std::uint32_t>(total);
}

}  // namespace torcrun::core
