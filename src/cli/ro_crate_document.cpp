// See ro_crate_document.hpp.
#include "torcrun/cli/ro_crate_document.hpp"

#include <boost/json/array.hpp>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

std::string type_of(json::object const& o)
{
    auto const* t = o.if_contains("@type");
    if (t && t->is_string()) return std::string(t->as_string());
    if (t && t->is_array()) {
        for (auto const& v : t->as_array())
            if (v.is_string()) return std::string(v.as_string());
    }
    return {};
}

}  // namespace

json::object ro_crate_document(crate_input const& in)
{
    std::vector<json::object> entities;
    std::map<std::string, std::size_t, std::less<>> index;
    for (auto const& e : in.entities) {
        auto o = e.metadata;
        if (!o.contains("@id")) o["@id"] = e.entity_id;
        if (!o.contains("@type")) o["@type"] = e.entity_type;
        auto const id =
            o["@id"].is_string() ? std::string(o["@id"].as_string()) : e.entity_id;
        if (type_of(o) == "File") {
            auto const it = in.file_sha256.find(id);
            if (it != in.file_sha256.end() && !o.contains("sha256")) o["sha256"] = it->second;
        }
        if (auto it = index.find(id); it != index.end()) {
            entities[it->second] = std::move(o);
        } else {
            index.emplace(id, entities.size());
            entities.push_back(std::move(o));
        }
    }
    json::array parts, actions;
    for (auto const& o : entities) {
        auto const type = type_of(o);
        if (type == "File" || type == "Dataset")
            parts.push_back(json::object{{"@id", o.at("@id")}});
        if (type == "CreateAction") actions.push_back(json::object{{"@id", o.at("@id")}});
    }
    auto const workflow_id = "#workflow-" + std::to_string(in.workflow_id);
    json::object root{{"@id", "./"},
                      {"@type", "Dataset"},
                      {"name", in.name},
                      {"description", in.description.value_or("Torc workflow " + in.name)},
                      {"datePublished", in.date_published},
                      {"hasPart", std::move(parts)}};
    if (!actions.empty()) root["mentions"] = std::move(actions);
    json::array graph;
    json::object descriptor{{"@id", "ro-crate-metadata.json"}, {"@type", "CreativeWork"}};
    descriptor["conformsTo"] = json::object{{"@id", "https://w3id.org/ro/crate/1.1"}};
    descriptor["about"] = json::object{{"@id", "./"}};
    graph.push_back(std::move(descriptor));
    graph.push_back(std::move(root));
    if (!index.contains(workflow_id)) {
        graph.push_back(json::object{{"@id", workflow_id},
                                     {"@type", "SoftwareApplication"},
                                     {"name", in.name},
                                     {"identifier", std::to_string(in.workflow_id)}});
    }
    for (auto& o : entities) graph.push_back(std::move(o));
    return json::object{{"@context", "https://w3id.org/ro/crate/1.1/context"},
                        {"@graph", std::move(graph)}};
}

}  // namespace torcrun::apps
