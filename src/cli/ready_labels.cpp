// Ready jobs counted by label (ready_labels.hpp).
#include "torcrun/cli/ready_labels.hpp"

#include <boost/json/serialize.hpp>

#include <map>

namespace torcrun::apps {

std::optional<boost::json::object> ready_labels(std::span<boost::json::value const> jobs)
{
    std::map<std::string, std::int64_t> counts;
    bool labelled = false;
    for (auto const& job : jobs) {
        auto const* object = job.if_object();
        auto const* label = object ? object->if_contains("label") : nullptr;
        std::string key;
        if (label && label->is_string()) {
            key = std::string(label->get_string());
            labelled = true;
        }
        ++counts[key];
    }
    if (!labelled) return std::nullopt;
    boost::json::object out;
    for (auto const& [label, n] : counts)
        if (!label.empty()) out[label] = n;
    if (auto const none = counts.find(""); none != counts.end()) out[""] = none->second;
    return out;
}

std::string ready_label_lines(boost::json::object const& counts)
{
    std::string out;
    for (auto const& [label, n] : counts) {
        auto const count = std::to_string(n.is_int64() ? n.get_int64() : 0);
        if (label.empty()) out += "    no label: " + count + "\n";
        else out += "    label " + boost::json::serialize(boost::json::string(label)) + ": " +
                    count + "\n";
    }
    return out;
}

}  // namespace torcrun::apps
