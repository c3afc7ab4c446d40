// 0.23's RO-Crate entities (docs/TORC-COMPATIBILITY.md §5, "RO-Crate"): the endpoints
// (POST /ro_crate_entities; GET, PUT, DELETE /ro_crate_entities/{id}; GET and DELETE
// /workflows/{id}/ro_crate_entities) and the entities recorded automatically for a workflow with
// `enable_ro_crate`, as newer Torc records them: a File entity for each input file on disk at
// initialize_jobs, and for each job that completes a CreateAction and a File entity per output
// file with `wasGeneratedBy`. Torc's job runner records the latter; torcrun's server does, in the
// completion's transaction, from the files' `stat` (the hashes of their contents are added by
// `torcrun ro-crate` when it writes the document). An entity is replaced by one with the same
// `@id` (a rerun records its new attempt).
#include "ro_crate_records.hpp"

#include "server_routes.hpp"
#include "store_detail.hpp"
#include "torcrun/common/date_time.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <sys/stat.h>

#include <filesystem>

namespace torcrun::io {

namespace json = boost::json;

namespace detail {
namespace {

std::string mime_of(std::string const& path)
{
    auto const ext = std::filesystem::path(path).extension().string();
    static constexpr std::pair<std::string_view, std::string_view> types[] = {
        {".csv", "text/csv"},          {".json", "application/json"},
        {".txt", "text/plain"},        {".html", "text/html"},
        {".htm", "text/html"},         {".py", "text/x-python"},
        {".sh", "application/x-sh"},   {".yaml", "application/yaml"},
        {".yml", "application/yaml"},  {".parquet", "application/vnd.apache.parquet"},
        {".h5", "application/x-hdf5"}, {".nc", "application/x-netcdf"},
        {".md", "text/markdown"},      {".xml", "application/xml"},
        {".tar", "application/x-tar"}, {".gz", "application/gzip"},
        {".zip", "application/zip"},   {".png", "image/png"},
        {".jpg", "image/jpeg"},        {".pdf", "application/pdf"}};
    for (auto const& [e, t] : types)
        if (ext == e) return std::string(t);
    return "application/octet-stream";
}

// A File entity's properties from the file's stat (none when it is not on disk).
json::object file_entity(std::string const& name, std::string const& path)
{
    json::object o{{"@id", path},
                   {"@type", "File"},
                   {"name", std::filesystem::path(path).filename().string()},
                   {"encodingFormat", mime_of(path)}};
    if (!name.empty()) o["alternateName"] = name;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        o["contentSize"] = static_cast<std::int64_t>(st.st_size);
        o["dateModified"] = core::format_date_time(static_cast<double>(st.st_mtim.tv_sec));
    }
    return o;
}

api_result<void> put_entity(store& db, std::int64_t wf, std::optional<std::int64_t> file_id,
                            json::object const& metadata, std::string_view what)
{
    auto const id = std::string(metadata.at("@id").as_string());
    auto const type = std::string(metadata.at("@type").as_string());
    auto gone = scalar(db.db(), "DELETE FROM ro_crate_entity WHERE workflow_id = ? AND entity_id = ?",
                       {wf, id}, what);
    if (!gone) return gone.error();
    auto stmt = db.db().cached("INSERT INTO ro_crate_entity (workflow_id, file_id, entity_id, "
                               "entity_type, metadata) VALUES (?, ?, ?, ?, ?)");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->reset();
    (*stmt)->bind(1, wf);
    if (file_id) {
        (*stmt)->bind(2, *file_id);
    } else {
        (*stmt)->bind_null(2);
    }
    auto const text = json::serialize(metadata);
    (*stmt)->bind(3, std::string_view(id)).bind(4, std::string_view(type));
    (*stmt)->bind(5, std::string_view(text));
    if (auto done = (*stmt)->run(); !done) return to_api_error(done.error(), what);
    return {};
}

api_result<bool> enabled(store& db, std::int64_t wf, std::string_view what)
{
    auto on = scalar(db.db(), "SELECT enable_ro_crate FROM workflow WHERE id = ?", {wf}, what);
    if (!on) return on.error();
    return *on && std::holds_alternative<std::int64_t>(**on) && std::get<std::int64_t>(**on) != 0;
}

struct file_row {
    std::int64_t id;
    std::string name;
    std::string path;
};

api_result<std::vector<file_row>> files(store& db, std::string const& sql, std::int64_t key,
                                        std::string_view what)
{
    auto stmt = db.db().cached(sql);
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->reset();
    (*stmt)->bind(1, key);
    std::vector<file_row> out;
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) break;
        out.push_back({(*stmt)->int64(0), (*stmt)->text(1), (*stmt)->text(2)});
    }
    (*stmt)->reset();
    return out;
}

}  // namespace

api_result<void> record_input_files(store& db, std::int64_t wf, std::string_view what)
{
    auto on = enabled(db, wf, what);
    if (!on) return on.error();
    if (!*on) return {};
    auto inputs = files(db,
                        "SELECT id, name, path FROM file f WHERE workflow_id = ? AND NOT EXISTS "
                        "(SELECT 1 FROM job_output_file o WHERE o.file_id = f.id) ORDER BY id",
                        wf, what);
    if (!inputs) return inputs.error();
    for (auto const& f : *inputs) {
        if (!std::filesystem::is_regular_file(f.path)) continue;
        if (auto ok = put_entity(db, wf, f.id, file_entity(f.name, f.path), what); !ok) return ok;
    }
    return {};
}

api_result<void> record_completed_jobs(store& db, std::int64_t wf,
                                       std::span<std::int64_t const> ids, std::string_view what)
{
    if (ids.empty()) return {};
    auto on = enabled(db, wf, what);
    if (!on) return on.error();
    if (!*on) return {};
    for (auto id : ids) {
        auto stmt = db.db().cached("SELECT name, attempt_id, status FROM job WHERE id = ?");
        if (!stmt) return to_api_error(stmt.error(), what);
        (*stmt)->reset();
        (*stmt)->bind(1, id);
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) continue;
        auto const name = (*stmt)->text(0);
        auto const attempt = (*stmt)->int64(1);
        auto const status = (*stmt)->int64(2);
        (*stmt)->reset();
        if (status != 5) continue;  // a CreateAction per successful job only
        auto const action_id =
            "#job-" + std::to_string(id) + "-attempt-" + std::to_string(attempt);
        auto outputs = files(db,
                             "SELECT f.id, f.name, f.path FROM file f JOIN job_output_file o ON "
                             "o.file_id = f.id WHERE o.job_id = ? ORDER BY f.id",
                             id, what);
        if (!outputs) return outputs.error();
        json::array results;
        for (auto const& f : *outputs) {
            auto entity = file_entity(f.name, f.path);
            entity["wasGeneratedBy"] = json::object{{"@id", action_id}};
            if (auto ok = put_entity(db, wf, f.id, entity, what); !ok) return ok;
            results.push_back(json::object{{"@id", f.path}});
        }
        json::object action{{"@id", action_id},
                            {"@type", "CreateAction"},
                            {"name", name},
                            {"instrument", json::object{{"@id", "#workflow-" + std::to_string(wf)}}},
                            {"result", std::move(results)}};
        if (auto ok = put_entity(db, wf, std::nullopt, action, what); !ok) return ok;
    }
    return {};
}

}  // namespace detail

namespace {

api::response list(server_api& api, api::request const& req, std::int64_t wf)
{
    constexpr std::string_view what = "ro_crate_entities";
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto query = detail::build_query(req, api::ro_crate_entity_model, {}, wf, what);
    if (!query) return api::error_response(query.error());
    return detail::reply_list(api.db().list(api::ro_crate_entity_model, *query, what),
                              api::ro_crate_entity_model, query->page);
}

api::response remove_all(server_api& api, std::int64_t wf)
{
    constexpr std::string_view what = "ro_crate_entities";
    if (auto ok = api.db().require_workflow(wf, what); !ok) return api::error_response(ok.error());
    auto removed = api.db().remove_all(api::ro_crate_entity_model, wf, what);
    if (!removed) return api::error_response(removed.error());
    return api::json_response(200, "{\"message\":\"deleted " + std::to_string(*removed) +
                                       " RO-Crate entities\",\"deleted_count\":" +
                                       std::to_string(*removed) + "}");
}

}  // namespace

void add_ro_crate_routes(server_api& api)
{
    auto const& model = api::ro_crate_entity_model;
    constexpr std::string_view what = "ro_crate_entities";
    auto& db = api.db();
    api.add_route("POST", "/ro_crate_entities", api::access::workflow_in_body(),
                  [&db, &model, what](api::request const& req, api::path_params const&) {
                      auto fields =
                          api::decode_body(model, req.body, api::decode_mode::create, what);
                      if (!fields) return api::error_response(fields.error());
                      return detail::reply(db.insert(model, *fields, what), model);
                  });
    auto const row = api::access::record_in_path("ro_crate_entity");
    api.add_route("GET", "/ro_crate_entities/{id}", row,
                  [&db, &model, what](api::request const&, api::path_params const& p) {
                      return detail::reply(db.get(model, p.id("id"), what), model);
                  });
    api.add_route("PUT", "/ro_crate_entities/{id}", row,
                  [&db, &model, what](api::request const& req, api::path_params const& p) {
                      auto fields =
                          api::decode_body(model, req.body, api::decode_mode::update, what);
                      if (!fields) return api::error_response(fields.error());
                      return detail::reply(db.update(model, p.id("id"), *fields, what), model);
                  });
    api.add_route("DELETE", "/ro_crate_entities/{id}", row,
                  [&db, &model, what](api::request const&, api::path_params const& p) {
                      return detail::reply(db.remove(model, p.id("id"), what), model);
                  });
    api.add_route("GET", "/workflows/{id}/ro_crate_entities", api::access::workflow_in_path(),
                  [&api](api::request const& req, api::path_params const& p) {
                      return list(api, req, p.id("id"));
                  });
    api.add_route("DELETE", "/workflows/{id}/ro_crate_entities", api::access::workflow_in_path(),
                  [&api](api::request const&, api::path_params const& p) {
                      return remove_all(api, p.id("id"));
                  });
}

}  // namespace torcrun::io
