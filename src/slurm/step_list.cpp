#include "torcrun/slurm/step_list.hpp"

namespace torcrun::core {

namespace {

bool is_step_id(std::string_view id)
{
    auto const dot = id.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot + 1 == id.size()) return false;
    for (std::size_t i = 0; i < id.size(); ++i)
        if (i != dot && (id[i] < '0' || id[i] > '9')) return false;
    return true;
}

std::string_view trimmed(std::string_view s)
{
    auto const first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    auto const last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

}  // namespace

std::optional<std::string> step_id_named(std::string_view squeue_lines, std::string_view name)
{
    while (!squeue_lines.empty()) {
        auto const end = squeue_lines.find('\n');
        auto const line = trimmed(squeue_lines.substr(0, end));
        squeue_lines = end == std::string_view::npos ? std::string_view{}
                                                     : squeue_lines.substr(end + 1);
        auto const space = line.find_first_of(" \t");
        if (space == std::string_view::npos) continue;
        auto const id = line.substr(0, space);
        if (is_step_id(id) && trimmed(line.substr(space)) == name) return std::string(id);
    }
    return std::nullopt;
}

}  // namespace torcrun::core
