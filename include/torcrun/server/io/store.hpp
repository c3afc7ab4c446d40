// The workflow database: Torc's tables in SQLite (schema in store_schema.cpp, versioned in
// `schema_version`), generic create/get/list/update/delete driven by the api model tables, and
// the operations with more than one row behind them (a workflow with its status and `default`
// resource requirements, jobs with their link tables).
//
// Every write that touches several rows runs under a SAVEPOINT, so it is atomic on its own and
// also inside the request transaction server_api opens. Ids that name other rows are checked
// before writing: absent -> 404, other workflow -> 422. Messages start with `what`.
#pragma once

#include "torcrun/server/api_error.hpp"
#include "torcrun/server/model_schema.hpp"
#include "torcrun/server/query_params.hpp"
#include "torcrun/server/record.hpp"
#include "torcrun/common/error.hpp"
#include "torcrun/common/io/sqlite.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::io {

namespace detail {
class ready_jobs;
}

using api::api_result;

// One WHERE term with a single `?` (or none, when `value` is monostate).
struct sql_filter {
    std::string condition;
    api::cell value;
};

struct list_query {
    std::vector<sql_filter> where;
    api::paging page;
};

// The blocks of job ids reserved for one workflow (store::reserve_job_ids): an id inside one is
// the workflow's own, whoever names it.
struct job_id_blocks {
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // first and last id, inclusive
    bool holds(std::int64_t id) const
    {
        for (auto const& [first, last] : ranges)
            if (id >= first && id <= last) return true;
        return false;
    }
};

struct page_rows {
    std::vector<api::record> items;
    std::int64_t total_count = 0;
};

class store {
public:
    // Opens (creating if needed) and migrates the database; ":memory:" for tests.
    static core::result<store> open(std::string const& path);

    sqlite::connection& db() { return db_; }
    // The ready jobs by claim group, kept in step with the job table (src/server/io/ready_jobs.hpp).
    detail::ready_jobs& ready_jobs() { return *ready_; }

    store(store&& other) noexcept;
    store& operator=(store&& other) noexcept;
    ~store();

    // ---- generic, for any model with a table --------------------------------------------
    // Inserts the record's column fields and returns the stored row.
    api_result<api::record> insert(api::model_spec const& model, api::record const& fields,
                                   std::string_view what);
    // The same without reading the row back: its id (a completion's result row, where nothing
    // else of the stored row is needed).
    // `id`, when given, is the row's id (a job at a reserved id) instead of the next one.
    // references_checked: the caller has checked the `references` fields as check_references
    // would (a completion's result), so they are not read again.
    api_result<std::int64_t> insert_row(api::model_spec const& model, api::record const& fields,
                                        std::string_view what,
                                        std::optional<std::int64_t> id = std::nullopt,
                                        bool references_checked = false);
    api_result<api::record> get(api::model_spec const& model, std::int64_t id,
                                std::string_view what);
    api_result<page_rows> list(api::model_spec const& model, list_query const& query,
                               std::string_view what);
    // Writes the fields present; workflow_id may not change. Returns the stored row.
    api_result<api::record> update(api::model_spec const& model, std::int64_t id,
                                   api::record const& fields, std::string_view what);
    // Deletes one row (cascading as the schema says) and returns it as it was.
    api_result<api::record> remove(api::model_spec const& model, std::int64_t id,
                                   std::string_view what);
    api_result<std::int64_t> remove_all(api::model_spec const& model, std::int64_t workflow_id,
                                        std::string_view what);
    // 404 unless the workflow exists.
    api_result<void> require_workflow(std::int64_t id, std::string_view what);
    // The `references` fields of `fields` name rows of `workflow_id`.
    api_result<void> check_references(api::model_spec const& model, api::record const& fields,
                                      std::int64_t workflow_id, std::string_view what);
    // Row `id` of `table` exists (404) and belongs to `workflow_id` (422); `context` starts the
    // message.
    api_result<void> check_owner(std::string_view table, std::int64_t id, std::int64_t workflow_id,
                                 std::string const& context);

    // ---- workflows -------------------------------------------------------------------------
    // The workflow row, its status row (run_id 0) and its `default` resource requirements, shared
    // with each of `access_groups` (0.23); a group that does not exist is 422 and nothing is
    // created.
    api_result<api::record> create_workflow(api::record const& fields, std::string const& timestamp,
                                            std::string_view what,
                                            std::vector<std::string> const& access_groups = {});

    // ---- jobs ------------------------------------------------------------------------------
    // Status uninitialized; resource_requirements_id defaults to the workflow's `default`.
    api_result<api::record> create_job(api::record fields, std::string_view what);
    // All in one savepoint; the jobs must share one workflow_id.
    api_result<std::vector<api::record>> create_jobs(std::vector<api::record> jobs,
                                                     std::string_view what);
    // With the five id lists.
    // torcrun extension (streamed creation, docs/TORC-COMPATIBILITY.md §5): `count` consecutive
    // job ids set aside for the workflow's jobs (AUTOINCREMENT never hands them out again); the
    // first of them. Another call reserves another block; a block never used is only a gap.
    api_result<std::int64_t> reserve_job_ids(std::int64_t workflow_id, std::int64_t count,
                                             std::string_view what);
    // The jobs at ids first_id, first_id + 1, ... of a block reserved for `workflow_id`, with
    // their links, in one savepoint; dependencies on the workflow's reserved ids need no
    // ownership read (the foreign keys still prove the rows exist). True when created; false
    // when the same batch was created before (a retry whose first reply was lost): the same
    // names at the same ids. Nothing is read back.
    api_result<bool> create_jobs_at(std::int64_t workflow_id, std::int64_t first_id,
                                    std::vector<api::record> jobs, std::string_view what);
    api_result<api::record> get_job(std::int64_t id, std::string_view what);
    // The jobs `ids` as get_job reads each, in that order, read a chunk of ids per statement
    // (a claim's answer); a missing id is 404 as in get_job.
    api_result<std::vector<api::record>> get_jobs(std::span<std::int64_t const> ids,
                                                  std::string_view what);
    api_result<page_rows> list_jobs(list_query const& query, bool with_links,
                                    std::string_view what);
    // Torc's rules: after initialization only resource_requirements_id and scheduler_id (and
    // status -> disabled) change; file and user-data links never change; depends_on_job_ids may
    // be replaced while uninitialized, without cycles.
    api_result<api::record> update_job(std::int64_t id, api::record const& fields,
                                       std::string_view what);
    api_result<api::id_list> job_ids(std::int64_t workflow_id);
    // The job consumes (produced=false) or produces the user data; both in one workflow.
    api_result<void> link_user_data(std::int64_t user_data_id, std::int64_t job_id, bool produced,
                                    std::string_view what);

    // ---- relationship listings (paged; offset and limit of `page`) --------------------------
    api_result<page_rows> job_dependencies(std::int64_t workflow_id, api::paging const& page);
    api_result<page_rows> job_file_relationships(std::int64_t workflow_id, api::paging const& page);
    api_result<page_rows> job_user_data_relationships(std::int64_t workflow_id,
                                                      api::paging const& page);

private:
    explicit store(sqlite::connection db);

    // create_job's rows, inside the caller's savepoint.
    // A batch's dependency edges (job, blocker), written together by insert_edges.
    using job_edges = std::vector<std::pair<std::int64_t, std::int64_t>>;
    // `edges`, when given, receives the job's dependencies instead of their being written.
    api_result<api::record> insert_job(api::record fields, std::string_view what,
                                       job_edges* edges = nullptr);
    api_result<void> attach_links(api::record& job);
    api_result<void> insert_links(std::int64_t job_id, api::record const& fields,
                                  std::string_view what, job_edges* edges = nullptr);
    // Many edges to a statement (one statement's cursors, foreign-key checks set up and halt
    // shared by up to 128 rows), in the order given.
    api_result<void> insert_edges(job_edges const& edges, std::string_view what);
    api_result<void> replace_dependencies(std::int64_t job_id, api::id_list const& ids,
                                          std::string_view what);
    api_result<page_rows> query_page(std::string const& select, std::string const& count,
                                     std::int64_t workflow_id, api::paging const& page,
                                     api::model_spec const& model);

    sqlite::connection db_;
    std::unique_ptr<detail::ready_jobs> ready_;  // null only in a moved-from store
    // While create_jobs writes a batch: the rows (table and id) already found to belong to the
    // batch's workflow, so a blocker named by many jobs of the batch is read once. Rows cannot
    // move or vanish inside the batch's savepoint; null outside create_jobs.
    std::set<std::pair<std::string_view, std::int64_t>>* batch_owned_ = nullptr;
    // While create_jobs_at writes a batch: the workflow's reserved job ids; null otherwise.
    job_id_blocks const* reserved_jobs_ = nullptr;
};

}  // namespace torcrun::io
