// See worker_output_dirs.hpp.
#include "worker_output_dirs.hpp"

#include "json_fields.hpp"

#include "torcrun/config/config.hpp"

#include <algorithm>
#include <utility>

namespace torcrun::apps {

std::optional<std::string> named_worker_output_dir(
    boost::program_options::variables_map const& flags)
{
    for (char const* name : {"worker-output-dir", "output-dir"})
        if (flags.count(name)) return flags[name].as<std::string>();
    return std::nullopt;
}

worker_output_dirs::worker_output_dirs(std::optional<std::string> named)
    : named_(std::move(named)), default_(core::worker_config{}.output_dir)
{
}

void worker_output_dirs::add_nodes(std::vector<boost::json::value> const& nodes)
{
    std::vector<std::string> active, inactive;
    for (auto const& n : nodes) {
        auto const* scheduler = field(n, "scheduler");
        auto const* dir = scheduler && scheduler->is_object()
                              ? scheduler->as_object().if_contains("output_dir")
                              : nullptr;
        if (!dir || !dir->is_string() || dir->as_string().empty()) continue;
        std::string path(dir->as_string());
        recorded_[integer_of(n, "id")] = path;
        auto const* is_active = field(n, "is_active");
        (is_active && is_active->is_bool() && is_active->as_bool() ? active : inactive)
            .push_back(std::move(path));
    }
    for (auto* list : {&active, &inactive})
        for (auto& path : *list)
            if (std::find(active_first_.begin(), active_first_.end(), path) ==
                active_first_.end())
                active_first_.push_back(std::move(path));
}

std::optional<std::string> worker_output_dirs::known(std::int64_t node) const
{
    if (named_) return named_;
    if (auto it = recorded_.find(node); it != recorded_.end()) return it->second;
    return std::nullopt;
}

std::string worker_output_dirs::of_node(std::int64_t node) const
{
    return known(node).value_or(default_);
}

std::vector<std::string> worker_output_dirs::candidates() const
{
    if (named_) return {*named_};
    auto out = active_first_;
    if (std::find(out.begin(), out.end(), default_) == out.end()) out.push_back(default_);
    return out;
}

}  // namespace torcrun::apps
