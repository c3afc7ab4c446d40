// A workflow's `ro-crate-metadata.json` (RO-Crate 1.1) from its RO-Crate entity records: the
// metadata descriptor (`ro-crate-metadata.json`, CreativeWork, conformsTo 1.1, about `./`), the
// root Dataset (`./`: name, description, datePublished; hasPart naming every File and Dataset
// entity, mentions every CreateAction), the workflow itself (`#workflow-N`, the CreateActions'
// instrument) unless a record defines it, then each record's metadata with its `@id` and `@type`
// (taken from entity_id / entity_type when the metadata lacks them) and, for a File whose
// content was hashed, `sha256`. A later record with the same `@id` replaces an earlier one.
// Pure: the records, the file hashes and the date come in as values.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torcrun::apps {

struct crate_entity {
    std::string entity_id;
    std::string entity_type;
    boost::json::object metadata;
};

struct crate_input {
    std::int64_t workflow_id = 0;
    std::string name;
    std::optional<std::string> description;
    std::string date_published;  // ISO 8601
    std::vector<crate_entity> entities;
    std::map<std::string, std::string> file_sha256;  // by `@id` (the file's path)
};

boost::json::object ro_crate_document(crate_input const& in);

}  // namespace torcrun::apps
