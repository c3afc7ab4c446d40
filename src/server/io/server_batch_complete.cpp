// POST /workflows/{id}/batch_complete_jobs (an extension, as in newer Torc;
// docs/TORC-COMPATIBILITY.md §5): many complete_job calls in one request and one transaction. Each
// entry runs under its own savepoint, so a refused entry is reported in `errors` and rolled back
// alone while the others commit.
#include "lifecycle_detail.hpp"

// GCC 12 reports members left to their default initializers in designated initializer lists (fixed
// in GCC 13); every field_spec member has a default on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace torcrun::io::detail {
namespace {

using api::field_kind;

constexpr std::string_view what = "batch_complete_jobs";

// One element of `completions`, decoded by the same tables as every other body.
constexpr api::field_spec entry_fields[] = {
    {.name = "job_id", .kind = field_kind::integer, .required = true},
    {.name = "status", .kind = field_kind::job_status, .required = true},
    {.name = "run_id", .kind = field_kind::integer, .required = true},
    {.name = "result", .kind = field_kind::json_object, .required = true},
};
api::model_spec const entry_model{"batch_completion", "", entry_fields};

// The entry's job belongs to the workflow in the path; then complete_one.
api_result<void> complete_entry(job_changes& changes, std::int64_t workflow_id,
                                api::record const& entry)
{
    auto const job_id = *entry.int64("job_id");
    auto job = changes.job_state(job_id);
    if (!job) return job.error();
    if (*job && (*job)->workflow_id != workflow_id) {
        return api::unprocessable(std::string(what) + ": job " + std::to_string(job_id) +
                                  " belongs to workflow " + std::to_string((*job)->workflow_id) +
                                  ", not " + std::to_string(workflow_id));
    }
    auto const context = std::string(what) + ": job " + std::to_string(job_id);
    auto result = api::decode_body(api::result_model, *entry.text("result"),
                                   api::decode_mode::create, context);
    if (!result) return result.error();
    auto const status = job_status{static_cast<int>(*entry.int64("status"))};
    return complete_one(changes, job_id, status, *entry.int64("run_id"), *result);
}

api::response batch_complete(server_api& api, api::request const& req, std::int64_t workflow_id)
{
    if (auto ok = api.db().require_workflow(workflow_id, what); !ok)
        return api::error_response(ok.error());
    auto entries =
        api::decode_batch(entry_model, req.body, "completions", api::decode_mode::create, what);
    if (!entries) return api::error_response(entries.error());
    job_changes changes(api, what);
    std::vector<std::int64_t> completed;
    std::string errors;
    for (auto const& entry : *entries) {
        auto sp = savepoint::begin(api.db().db(), what);
        if (!sp) return api::error_response(sp.error());
        auto done = complete_entry(changes, workflow_id, entry);
        if (done) done = sp->commit(what);
        if (done) {
            completed.push_back(*entry.int64("job_id"));
            continue;
        }
        if (done.error().status >= 500) return api::error_response(done.error());
        errors += std::string(errors.empty() ? "" : ",") +
                  "{\"job_id\":" + std::to_string(*entry.int64("job_id")) +
                  ",\"message\":" + api::json_quote(done.error().message) + "}";
    }
    return api::json_response(200, "{\"completed\":" + api::json_ids(completed) + ",\"errors\":[" +
                                       errors + "]}");
}

}  // namespace

void add_batch_complete_route(server_api& api)
{
    api.add_route("POST", "/workflows/{id}/batch_complete_jobs",
                  [&api](api::request const& req, api::path_params const& p) {
                      return batch_complete(api, req, p.id("id"));
                  });
}

}  // namespace torcrun::io::detail
