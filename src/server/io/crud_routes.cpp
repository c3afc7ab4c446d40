// The endpoints that create, read, update and delete the workflow's records, over the store's
// generic operations and the api model tables:
// - ping and version;
// - workflows (create with their status row and `default` resource requirements, list, get,
//   update, delete with cascade); workflow actions (create, list) and the failure-handler
//   listing under /workflows/{id};
// - the plain per-workflow resources, one table: for each, POST and GET/DELETE on the collection
//   (workflow_id required, the contract's filters, paging) and GET/PUT/DELETE on `/{id}`. The
//   few endpoints that differ are added after the table and replace the generic route (POST
//   /user_data links jobs; POST /results answers a repeat with the first record);
// - jobs (create, bulk create, list with filters and paging, get, update, delete), the
//   workflow's job ids and its three relationship listings.
//
// Also the pieces the route groups share (server_routes.hpp): replies, the workflow_id
// parameter, list queries.
#include "server/json_parse.hpp"
#include "server_routes.hpp"
#include "store_detail.hpp"
#include "torcrun/server/job_labels.hpp"

#include <limits>

namespace torcrun::io {

using api::param_kind;
using api::path_params;
using api::request;
using detail::filter_spec;

namespace detail {

api::response reply(api_result<api::record> const& row, api::model_spec const& model)
{
    if (!row) return api::error_response(row.error());
    return api::json_response(200, api::encode(model, *row));
}

api::response reply_list(api_result<page_rows> const& page, api::model_spec const& model,
                         api::paging const& paging)
{
    if (!page) return api::error_response(page.error());
    return api::json_response(200, api::encode_list(model, page->items,
                                                    {.offset = paging.offset,
                                                     .max_limit = api::max_page_size,
                                                     .total_count = page->total_count}));
}

api_result<std::int64_t> workflow_param(api::request const& req, std::string_view what)
{
    auto value = api::query_value(req, {"workflow_id", api::param_kind::integer, true}, what);
    if (!value) return value.error();
    return std::get<std::int64_t>(**value);
}

api_result<list_query> build_query(api::request const& req, api::model_spec const& model,
                                   std::span<filter_spec const> filters,
                                   std::optional<std::int64_t> workflow_id, std::string_view what)
{
    list_query query;
    auto paging = api::parse_paging(req, model, what);
    if (!paging) return paging.error();
    query.page = *paging;
    if (workflow_id) query.where.push_back({"workflow_id = ?", *workflow_id});
    for (auto const& f : filters) {
        auto value = api::query_value(req, f.param, what);
        if (!value) return value.error();
        if (*value) query.where.push_back({std::string(f.sql), **value});
    }
    return query;
}

}  // namespace detail

namespace {

constexpr std::string_view workflows = "workflows";

constexpr filter_spec workflow_filters[] = {
    {{"name", param_kind::string}, "name = ?"},
    {{"user", param_kind::string}, "user = ?"},
    {{"description", param_kind::string}, "description = ?"},
    {{"is_archived", param_kind::boolean},
     "id IN (SELECT id FROM workflow_status WHERE is_archived = ?)"},
};

// Access control's narrowing of GET /workflows: owned by the user (?) or shared with a group
// the user is in; one parameter, named once.
constexpr std::string_view visible_workflows =
    "id IN (SELECT w.id FROM workflow w JOIN (SELECT ? AS name) me "
    "WHERE w.user = me.name OR EXISTS (SELECT 1 FROM workflow_access_group wag "
    "JOIN user_group_membership m ON m.group_id = wag.group_id "
    "WHERE wag.workflow_id = w.id AND m.user_name = me.name))";

api::response create_action(store& db, request const& req, std::int64_t workflow_id)
{
    constexpr std::string_view actions = "actions";
    if (auto ok = db.require_workflow(workflow_id, actions); !ok)
        return api::error_response(ok.error());
    auto fields =
        api::decode_body(api::workflow_action_model, req.body, api::decode_mode::create, actions);
    if (!fields) return api::error_response(fields.error());
    if (auto const body_wf = *fields->int64("workflow_id"); body_wf != workflow_id) {
        return api::error_response(api::unprocessable(
            std::string(actions) + ": field \"workflow_id\": " + std::to_string(body_wf) +
            " differs from the workflow in the path, " + std::to_string(workflow_id)));
    }
    return detail::reply(db.insert(api::workflow_action_model, *fields, actions),
                         api::workflow_action_model);
}

api::response list_actions(store& db, std::int64_t workflow_id)
{
    constexpr std::string_view actions = "actions";
    if (auto ok = db.require_workflow(workflow_id, actions); !ok)
        return api::error_response(ok.error());
    list_query query;
    query.where.push_back({"workflow_id = ?", workflow_id});
    query.page.limit = std::numeric_limits<std::int64_t>::max();
    auto rows = db.list(api::workflow_action_model, query, actions);
    if (!rows) return api::error_response(rows.error());
    return api::json_response(200, api::encode_array(api::workflow_action_model, rows->items));
}

api::response list_failure_handlers(store& db, request const& req, std::int64_t workflow_id)
{
    constexpr std::string_view handlers = "failure_handlers";
    if (auto ok = db.require_workflow(workflow_id, handlers); !ok)
        return api::error_response(ok.error());
    auto query = detail::build_query(req, api::failure_handler_model, {}, workflow_id, handlers);
    if (!query) return api::error_response(query.error());
    return detail::reply_list(db.list(api::failure_handler_model, *query, handlers),
                              api::failure_handler_model, query->page);
}

}  // namespace

void add_system_routes(server_api& api)
{
    api.add_route("GET", "/ping", api::access::open(), [](request const&, path_params const&) {
        return api::json_response(200, R"({"status":"ok"})");
    });
    api.add_route(
        "GET", "/version", api::access::open(), [&api](request const&, path_params const&) {
            auto const& given = api.options().version;
            auto const version = given.empty() ? std::string_view(TORCRUN_VERSION) : given;
            return api::json_response(
                200, "{\"version\":" + api::json_quote(version) +
                         ",\"api_version\":" + api::json_quote(api.options().api_version) +
                         ",\"server\":\"torcrun\"}");
        });
}

void add_workflow_routes(server_api& api)
{
    auto& db = api.db();
    auto const& model = api::workflow_model;
    api.add_route(
        "POST", "/workflows", api::access::workflow_creation(),
        [&api, &db, &model](request const& req, path_params const&) {
            auto fields = api::decode_body(model, req.body, api::decode_mode::create, workflows);
            if (!fields) return api::error_response(fields.error());
            if (req.owner) fields->set("user", *req.owner);  // access control: the requester
            auto body = api::detail::parse_json(req.body, workflows);  // decode_body parsed it
            if (!body) return api::error_response(body.error());
            auto groups = api::access_group_names(*body, workflows);
            if (!groups) return api::error_response(groups.error());
            return detail::reply(db.create_workflow(*fields, api.timestamp(), workflows, *groups),
                                 model);
        });
    api.add_route(
        "GET", "/workflows", api::access::workflow_listing(),
        [&db, &model](request const& req, path_params const&) {
            auto query = detail::build_query(req, model, workflow_filters, std::nullopt, workflows);
            if (!query) return api::error_response(query.error());
            if (req.visible_to)
                query->where.push_back({std::string(visible_workflows), *req.visible_to});
            return detail::reply_list(db.list(model, *query, workflows), model, query->page);
        });
    api.add_route("GET", "/workflows/{id}", api::access::workflow_in_path(),
                  [&db, &model](request const&, path_params const& p) {
                      return detail::reply(db.get(model, p.id("id"), workflows), model);
                  });
    api.add_route("PUT", "/workflows/{id}", api::access::workflow_update(),
                  [&db, &model](request const& req, path_params const& p) {
                      auto fields =
                          api::decode_body(model, req.body, api::decode_mode::update, workflows);
                      if (!fields) return api::error_response(fields.error());
                      return detail::reply(db.update(model, p.id("id"), *fields, workflows), model);
                  });
    api.add_route("DELETE", "/workflows/{id}", api::access::workflow_in_path(),
                  [&api, &db, &model](request const&, path_params const& p) {
                      auto removed = db.remove(model, p.id("id"), workflows);
                      if (removed) api.notify(p.id("id"));  // wakes long-poll claims parked on it
                      return detail::reply(removed, model);
                  });
    api.add_route("POST", "/workflows/{id}/actions", api::access::workflow_in_path(),
                  [&db](request const& req, path_params const& p) {
                      return create_action(db, req, p.id("id"));
                  });
    api.add_route(
        "GET", "/workflows/{id}/actions", api::access::workflow_in_path(),
        [&db](request const&, path_params const& p) { return list_actions(db, p.id("id")); });
    api.add_route("GET", "/workflows/{id}/failure_handlers", api::access::workflow_in_path(),
                  [&db](request const& req, path_params const& p) {
                      return list_failure_handlers(db, req, p.id("id"));
                  });
}

namespace {

constexpr filter_spec file_filters[] = {
    {{"produced_by_job_id"}, "id IN (SELECT file_id FROM job_output_file WHERE job_id = ?)"},
    {{"name", param_kind::string}, "name = ?"},
    {{"path", param_kind::string}, "path = ?"},
    // true: produced by some job; false: produced by none (Torc ignores false).
    {{"is_output", param_kind::boolean}, "(id IN (SELECT file_id FROM job_output_file)) = ?"},
};
constexpr filter_spec user_data_filters[] = {
    {{"consumer_job_id"}, "id IN (SELECT user_data_id FROM job_input_user_data WHERE job_id = ?)"},
    {{"producer_job_id"}, "id IN (SELECT user_data_id FROM job_output_user_data WHERE job_id = ?)"},
    {{"name", param_kind::string}, "name = ?"},
    {{"is_ephemeral", param_kind::boolean}, "is_ephemeral = ?"},
};
constexpr filter_spec resource_requirements_filters[] = {
    {{"job_id"}, "id IN (SELECT resource_requirements_id FROM job WHERE id = ?)"},
    {{"name", param_kind::string}, "name = ?"},
    {{"memory", param_kind::string}, "memory = ?"},
    {{"num_cpus"}, "num_cpus = ?"},
    {{"num_gpus"}, "num_gpus = ?"},
    {{"num_nodes"}, "num_nodes = ?"},
    {{"runtime"}, "runtime_s = ?"},  // an integer in the contract: seconds
};
constexpr filter_spec slurm_scheduler_filters[] = {
    {{"name", param_kind::string}, "name = ?"},
    {{"account", param_kind::string}, "account = ?"},
    {{"gres", param_kind::string}, "gres = ?"},
    {{"mem", param_kind::string}, "mem = ?"},
    {{"nodes"}, "nodes = ?"},
    {{"partition", param_kind::string}, "partition = ?"},
    {{"qos", param_kind::string}, "qos = ?"},
    {{"tmp", param_kind::string}, "tmp = ?"},
    {{"walltime", param_kind::string}, "walltime = ?"},
};
constexpr filter_spec local_scheduler_filters[] = {
    {{"memory", param_kind::string}, "memory = ?"},
    {{"num_cpus"}, "num_cpus = ?"},
};
constexpr filter_spec compute_node_filters[] = {
    {{"hostname", param_kind::string}, "hostname = ?"},
    {{"is_active", param_kind::boolean}, "is_active = ?"},
    // The runner sends the scheduled compute node's id as scheduler.scheduler_id.
    {{"scheduled_compute_node_id"}, "json_extract(scheduler, '$.scheduler_id') = ?"},
};
// Strings in the contract; column affinity compares "17" equal to 17.
constexpr filter_spec scheduled_compute_node_filters[] = {
    {{"scheduler_id", param_kind::string}, "scheduler_id = ?"},
    {{"scheduler_config_id", param_kind::string}, "scheduler_config_id = ?"},
    {{"status", param_kind::string}, "status = ?"},
};
constexpr filter_spec result_filters[] = {
    {{"job_id"}, "job_id = ?"},
    {{"run_id"}, "run_id = ?"},
    {{"return_code"}, "return_code = ?"},
    {{"status", param_kind::job_status}, "status = ?"},
    {{"compute_node_id"}, "compute_node_id = ?"},
};
constexpr filter_spec event_filters[] = {
    {{"category", param_kind::string}, "json_extract(data, '$.category') = ?"},
    {{"after_timestamp"}, "timestamp > ?"},
};

struct resource {
    std::string_view path;
    std::string_view what;
    api::model_spec const* model;
    std::span<filter_spec const> filters;
    bool has_collection = true;  // GET and DELETE on `path`
    bool has_update = true;      // PUT on `path/{id}`
};

resource const resources[] = {
    {"/files", "files", &api::file_model, file_filters},
    {"/user_data", "user_data", &api::user_data_model, user_data_filters},
    {"/resource_requirements", "resource_requirements", &api::resource_requirements_model,
     resource_requirements_filters},
    {"/failure_handlers", "failure_handlers", &api::failure_handler_model, {}, false, false},
    {"/slurm_schedulers", "slurm_schedulers", &api::slurm_scheduler_model, slurm_scheduler_filters},
    {"/local_schedulers", "local_schedulers", &api::local_scheduler_model, local_scheduler_filters},
    {"/compute_nodes", "compute_nodes", &api::compute_node_model, compute_node_filters},
    {"/scheduled_compute_nodes", "scheduled_compute_nodes", &api::scheduled_compute_nodes_model,
     scheduled_compute_node_filters},
    {"/results", "results", &api::result_model, result_filters},
    {"/events", "events", &api::event_model, event_filters},
};

void add_resource(server_api& api, resource const& r)
{
    auto& db = api.db();
    auto const item = std::string(r.path) + "/{id}";
    auto const row = api::access::record_in_path(r.model->table);
    api.add_route("POST", r.path, api::access::workflow_in_body(),
                  [&db, r](request const& req, path_params const&) {
                      auto fields =
                          api::decode_body(*r.model, req.body, api::decode_mode::create, r.what);
                      if (!fields) return api::error_response(fields.error());
                      return detail::reply(db.insert(*r.model, *fields, r.what), *r.model);
                  });
    api.add_route("GET", item, row, [&db, r](request const&, path_params const& p) {
        return detail::reply(db.get(*r.model, p.id("id"), r.what), *r.model);
    });
    api.add_route("DELETE", item, row, [&db, r](request const&, path_params const& p) {
        return detail::reply(db.remove(*r.model, p.id("id"), r.what), *r.model);
    });
    if (r.has_update) {
        api.add_route("PUT", item, row, [&db, r](request const& req, path_params const& p) {
            auto fields = api::decode_body(*r.model, req.body, api::decode_mode::update, r.what);
            if (!fields) return api::error_response(fields.error());
            return detail::reply(db.update(*r.model, p.id("id"), *fields, r.what), *r.model);
        });
    }
    if (!r.has_collection) return;
    api.add_route(
        "GET", r.path, api::access::workflow_in_query(),
        [&db, r](request const& req, path_params const&) {
            auto wf = detail::workflow_param(req, r.what);
            if (!wf) return api::error_response(wf.error());
            auto query = detail::build_query(req, *r.model, r.filters, *wf, r.what);
            if (!query) return api::error_response(query.error());
            // Results: only each job's current result unless all_runs=true, as Torc does.
            if (r.model == &api::result_model) {
                auto all = api::query_value(req, {"all_runs", param_kind::boolean}, r.what);
                if (!all) return api::error_response(all.error());
                if (!*all || std::get<std::int64_t>(**all) == 0) {
                    query->where.push_back({"id IN (SELECT result_id FROM workflow_result)", {}});
                }
            }
            return detail::reply_list(db.list(*r.model, *query, r.what), *r.model, query->page);
        });
    api.add_route("DELETE", r.path, api::access::workflow_in_query(),
                  [&db, r](request const& req, path_params const&) {
                      auto wf = detail::workflow_param(req, r.what);
                      if (!wf) return api::error_response(wf.error());
                      auto removed = db.remove_all(*r.model, *wf, r.what);
                      if (!removed) return api::error_response(removed.error());
                      return api::json_response(200,
                                                "{\"count\":" + std::to_string(*removed) + "}");
                  });
}

// POST /user_data?consumer_job_id=&producer_job_id= also links the new row to those jobs.
api::response create_user_data(store& db, request const& req)
{
    constexpr std::string_view what = "user_data";
    auto fields = api::decode_body(api::user_data_model, req.body, api::decode_mode::create, what);
    if (!fields) return api::error_response(fields.error());
    auto row = db.insert(api::user_data_model, *fields, what);
    if (!row) return api::error_response(row.error());
    for (auto [param, produced] :
         {std::pair{"consumer_job_id", false}, std::pair{"producer_job_id", true}}) {
        auto job = api::query_value(req, {param}, what);
        if (!job) return api::error_response(job.error());
        if (!*job) continue;
        auto const context = std::string(what) + ": query parameter \"" + param + "\"";
        auto linked =
            db.link_user_data(*row->int64("id"), std::get<std::int64_t>(**job), produced, context);
        if (!linked) return api::error_response(linked.error());
    }
    return detail::reply(row, api::user_data_model);
}

// POST /results sent again after its reply was lost (the same job, run, attempt and compute
// node) stores no second record: the answer is the record the first one stored.
api::response create_result(store& db, request const& req)
{
    constexpr std::string_view what = "results";
    auto fields = api::decode_body(api::result_model, req.body, api::decode_mode::create, what);
    if (!fields) return api::error_response(fields.error());
    auto first = detail::scalar(db.db(),
                                "SELECT MIN(id) FROM result WHERE job_id = ? AND run_id = ? "
                                "AND attempt_id = ? AND compute_node_id = ?",
                                {*fields->int64("job_id"), *fields->int64("run_id"),
                                 fields->int64("attempt_id").value_or(1),
                                 *fields->int64("compute_node_id")},
                                what);
    if (!first) return api::error_response(first.error());
    if (*first && std::holds_alternative<std::int64_t>(**first)) {
        return detail::reply(db.get(api::result_model, std::get<std::int64_t>(**first), what),
                             api::result_model);
    }
    return detail::reply(db.insert(api::result_model, *fields, what), api::result_model);
}

}  // namespace

void add_resource_routes(server_api& api)
{
    for (auto const& r : resources) add_resource(api, r);
    api.add_route(
        "POST", "/results", api::access::workflow_in_body(),
        [&api](request const& req, path_params const&) { return create_result(api.db(), req); });
    api.add_route(
        "POST", "/user_data", api::access::workflow_in_body(),
        [&api](request const& req, path_params const&) { return create_user_data(api.db(), req); });
}

namespace {

constexpr std::string_view what = "jobs";
auto const& model = api::job_model;

constexpr filter_spec job_filters[] = {
    {{"status", param_kind::job_status}, "status = ?"},
    {{"needs_file_id"}, "id IN (SELECT job_id FROM job_input_file WHERE file_id = ?)"},
    {{"upstream_job_id"}, "id IN (SELECT job_id FROM job_depends_on WHERE depends_on_job_id = ?)"},
    {{"active_compute_node_id"}, "active_compute_node_id = ?"},
    // extension: a labelled worker's ready jobs, and an unlabelled one's (has_label=false)
    {{"label", param_kind::string}, "label = ?"},
    {{"has_label", param_kind::boolean}, "(label IS NOT NULL) = ?"},
    // dynamic jobs: the jobs spawn_jobs added (origin=spawn), and one orchestrator's
    {{"origin", param_kind::string}, "origin = ?"},
    {{"spawned_by_job_id"}, "spawned_by_job_id = ?"},
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

// torcrun extension (streamed creation): POST /workflows/{id}/bulk_jobs?first_id=F, Torc's job
// bodies written at ids F, F + 1, ... of a block reserve_job_ids set aside; answers
// {"first_id": F, "count": N, "created": true}, or "created": false for a batch sent again.
api::response bulk_create_at(store& db, request const& req, std::int64_t wf)
{
    constexpr std::string_view bulk = "bulk_jobs";
    auto first = api::query_value(req, {"first_id", param_kind::integer, true}, bulk);
    if (!first) return api::error_response(first.error());
    auto const first_id = std::get<std::int64_t>(**first);
    auto jobs = api::decode_batch(model, req.body, "jobs", api::decode_mode::create, bulk);
    if (!jobs) return api::error_response(jobs.error());
    auto const count = jobs->size();
    auto created = db.create_jobs_at(wf, first_id, std::move(*jobs), bulk);
    if (!created) return api::error_response(created.error());
    return api::json_response(200, "{\"first_id\":" + std::to_string(first_id) +
                                       ",\"count\":" + std::to_string(count) +
                                       ",\"created\":" + (*created ? "true" : "false") + "}");
}

using relation_query = api_result<page_rows> (store::*)(std::int64_t, api::paging const&);

void add_relation_route(server_api& api, std::string_view name, relation_query query,
                        api::model_spec const& rows)
{
    auto& db = api.db();
    api.add_route("GET", "/workflows/{id}/" + std::string(name), api::access::workflow_in_path(),
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
    api.add_route("POST", "/jobs", api::access::workflow_in_body(),
                  [&db](request const& req, path_params const&) {
                      auto fields =
                          api::decode_body(model, req.body, api::decode_mode::create, what);
                      if (!fields) return api::error_response(fields.error());
                      return detail::reply(db.create_job(std::move(*fields), what), model);
                  });
    api.add_route("POST", "/bulk_jobs", api::access::workflows_in_batch("jobs"),
                  [&db](request const& req, path_params const&) { return bulk_create(db, req); });
    api.add_route("POST", "/workflows/{id}/reserve_job_ids", api::access::workflow_in_path(),
                  [&db](request const& req, path_params const& p) {
                      constexpr std::string_view reserve = "reserve_job_ids";
                      auto count =
                          api::query_value(req, {"count", param_kind::integer, true}, reserve);
                      if (!count) return api::error_response(count.error());
                      auto const n = std::get<std::int64_t>(**count);
                      auto first = db.reserve_job_ids(p.id("id"), n, reserve);
                      if (!first) return api::error_response(first.error());
                      return api::json_response(200, "{\"first_id\":" + std::to_string(*first) +
                                                         ",\"count\":" + std::to_string(n) + "}");
                  });
    api.add_route("POST", "/workflows/{id}/bulk_jobs", api::access::workflow_in_path(),
                  [&db](request const& req, path_params const& p) {
                      return bulk_create_at(db, req, p.id("id"));
                  });
    api.add_route("GET", "/jobs", api::access::workflow_in_query(),
                  [&db](request const& req, path_params const&) { return list_jobs(db, req); });
    api.add_route("DELETE", "/jobs", api::access::workflow_in_query(),
                  [&db](request const& req, path_params const&) {
                      auto wf = detail::workflow_param(req, what);
                      if (!wf) return api::error_response(wf.error());
                      auto removed = db.remove_all(model, *wf, what);
                      if (!removed) return api::error_response(removed.error());
                      return api::json_response(200,
                                                "{\"count\":" + std::to_string(*removed) + "}");
                  });
    api.add_route("GET", "/jobs/{id}", api::access::record_in_path("job"),
                  [&db](request const&, path_params const& p) {
                      return detail::reply(db.get_job(p.id("id"), what), model);
                  });
    api.add_route("PUT", "/jobs/{id}", api::access::record_in_path("job"),
                  [&db](request const& req, path_params const& p) {
                      auto fields =
                          api::decode_body(model, req.body, api::decode_mode::update, what);
                      if (!fields) return api::error_response(fields.error());
                      return detail::reply(db.update_job(p.id("id"), *fields, what), model);
                  });
    api.add_route("DELETE", "/jobs/{id}", api::access::record_in_path("job"),
                  [&db](request const&, path_params const& p) {
                      auto job = db.get_job(p.id("id"), what);
                      if (!job) return api::error_response(job.error());
                      auto removed = db.remove(model, p.id("id"), what);
                      if (!removed) return api::error_response(removed.error());
                      return detail::reply(job, model);
                  });
    api.add_route("GET", "/workflows/{id}/job_ids", api::access::workflow_in_path(),
                  [&db](request const&, path_params const& p) {
                      auto ids = db.job_ids(p.id("id"));
                      if (!ids) return api::error_response(ids.error());
                      return api::json_response(
                          200, "{\"job_ids\":" + api::json_ids(*ids) +
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
