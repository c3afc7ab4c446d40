// Jobs (create, bulk create, list with filters and paging, get, update, delete), the workflow's
// job ids and its three relationship listings.
#include "server_routes.hpp"

namespace torcrun::io {
namespace {

using api::param_kind;
using api::path_params;
using api::request;
using detail::filter_spec;

constexpr std::string_view what = "jobs";
auto const& model = api::job_model;

constexpr filter_spec job_filters[] = {
    {{"status", param_kind::job_status}, "status = ?"},
    {{"needs_file_id"}, "id IN (SELECT job_id FROM job_input_file WHERE file_id = ?)"},
    {{"upstream_job_id"}, "id IN (SELECT job_id FROM job_depends_on WHERE depends_on_job_id = ?)"},
    {{"active_compute_node_id"}, "active_compute_node_id = ?"},
};

api::response list_jobs(store& db, request const& req)
{
    auto wf = detail::workflow_param(req, what);
    if (!wf) return api::error_response(wf.error());
    auto query = detail::build_query(req, model, job_filters, *wf, what);
    if (!query) return api::error_response(query.error());
    auto links = api::query_value(req, {"include_relationships", param_kind::boolean}, what);
    if (!links) return api::error_response(links.error());
    bool const with_links = *links && std::get<std::int64_t>(**links) != 0;
    return detail::reply_list(db.list_jobs(*query, with_links, what), model, query->page);
}

api::response bulk_create(store& db, request const& req)
{
    constexpr std::string_view bulk = "bulk_jobs";
    auto jobs = api::decode_batch(model, req.body, "jobs", api::decode_mode::create, bulk);
    if (!jobs) return api::error_response(jobs.error());
    auto created = db.create_jobs(std::move(*jobs), bulk);
    if (!created) return api::error_response(created.error());
    return api::json_response(200, api::encode_wrapped(model, *created, "jobs"));
}

using relation_query = api_result<page_rows> (store::*)(std::int64_t, api::paging const&);

void add_relation_route(server_api& api, std::string_view name, relation_query query,
                        api::model_spec const& rows)
{
    auto& db = api.db();
    api.add_route("GET", "/workflows/{id}/" + std::string(name),
                  [&db, name, query, &rows](request const& req, path_params const& p) {
                      auto const wf = p.id("id");
                      if (auto ok = db.require_workflow(wf, name); !ok)
                          return api::error_response(ok.error());
                      auto page = api::parse_paging(req, rows, name);
                      if (!page) return api::error_response(page.error());
                      return detail::reply_list((db.*query)(wf, *page), rows, *page);
                  });
}

}  // namespace

void add_job_routes(server_api& api)
{
    auto& db = api.db();
    api.add_route("POST", "/jobs", [&db](request const& req, path_params const&) {
        auto fields = api::decode_body(model, req.body, api::decode_mode::create, what);
        if (!fields) return api::error_response(fields.error());
        return detail::reply(db.create_job(std::move(*fields), what), model);
    });
    api.add_route("POST", "/bulk_jobs",
                  [&db](request const& req, path_params const&) { return bulk_create(db, req); });
    api.add_route("GET", "/jobs",
                  [&db](request const& req, path_params const&) { return list_jobs(db, req); });
    api.add_route("DELETE", "/jobs", [&db](request const& req, path_params const&) {
        auto wf = detail::workflow_param(req, what);
        if (!wf) return api::error_response(wf.error());
        auto removed = db.remove_all(model, *wf, what);
        if (!removed) return api::error_response(removed.error());
        return api::json_response(200, "{\"count\":" + std::to_string(*removed) + "}");
    });
    api.add_route("GET", "/jobs/{id}", [&db](request const&, path_params const& p) {
        return detail::reply(db.get_job(p.id("id"), what), model);
    });
    api.add_route("PUT", "/jobs/{id}", [&db](request const& req, path_params const& p) {
        auto fields = api::decode_body(model, req.body, api::decode_mode::update, what);
        if (!fields) return api::error_response(fields.error());
        return detail::reply(db.update_job(p.id("id"), *fields, what), model);
    });
    api.add_route("DELETE", "/jobs/{id}", [&db](request const&, path_params const& p) {
        auto job = db.get_job(p.id("id"), what);
        if (!job) return api::error_response(job.error());
        auto removed = db.remove(model, p.id("id"), what);
        if (!removed) return api::error_response(removed.error());
        return detail::reply(job, model);
    });
    api.add_route("GET", "/workflows/{id}/job_ids", [&db](request const&, path_params const& p) {
        auto ids = db.job_ids(p.id("id"));
        if (!ids) return api::error_response(ids.error());
        return api::json_response(200, "{\"job_ids\":" + api::json_ids(*ids) +
                                           ",\"count\":" + std::to_string(ids->size()) + "}");
    });
    add_relation_route(api, "job_dependencies", &store::job_dependencies,
                       api::job_dependency_model);
    add_relation_route(api, "job_file_relationships", &store::job_file_relationships,
                       api::job_file_relationship_model);
    add_relation_route(api, "job_user_data_relationships", &store::job_user_data_relationships,
                       api::job_user_data_relationship_model);
}

}  // namespace torcrun::io
