// The claim's label and a new workflow's access group names, as a request carries them
// (job_labels.hpp).
#include "torcrun/server/job_labels.hpp"

#include "torcrun/common/json_kind.hpp"

#include <algorithm>

namespace torcrun::api {

api_result<std::optional<std::string>> claim_label(std::optional<std::string> const& query,
                                                   std::string_view what)
{
    if (!query) return std::optional<std::string>{};
    if (query->empty() || query->size() > max_label_bytes)
        return bad_request(std::string(what) + ": query parameter \"label\" must have 1 to " +
                           std::to_string(max_label_bytes) +
                           " bytes (leave it out to claim unlabelled jobs)");
    return std::optional<std::string>{*query};
}

api_result<std::vector<std::string>> access_group_names(boost::json::value const& body,
                                                        std::string_view what)
{
    std::vector<std::string> names;
    auto const* object = body.if_object();
    if (!object) return names;  // the model's decoding refuses a body that is not an object
    auto const it = object->find("access_groups");
    if (it == object->end() || it->value().is_null()) return names;
    auto const prefix = std::string(what) + ": field \"access_groups\"";
    auto const* list = it->value().if_array();
    if (!list)
        return unprocessable(prefix + " must be an array of group names, found " +
                             std::string(detail::describe(it->value())));
    for (std::size_t i = 0; i < list->size(); ++i) {
        auto const* name = (*list)[i].if_string();
        if (!name || name->empty())
            return unprocessable(prefix + ": entry " + std::to_string(i) +
                                 " must be a non-empty group name");
        std::string text(name->c_str(), name->size());
        if (std::find(names.begin(), names.end(), text) != names.end())
            return unprocessable(prefix + ": group " + detail::quoted(text) + " is named twice");
        names.push_back(std::move(text));
    }
    return names;
}

}  // namespace torcrun::api
