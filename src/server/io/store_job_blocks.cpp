// Streamed creation's store side (torcrun extension, docs/TORC-COMPATIBILITY.md §5 "Streamed
// creation"): blocks of job ids reserved for a workflow, and batches of jobs written at ids of
// such a block. The client knows every job's id before the first batch is answered, so it sends
// batch after batch without waiting; a batch sent again (its reply was lost) finds its jobs and
// is answered as created, never written twice.
//
// The reservation moves the job table's AUTOINCREMENT counter (sqlite_sequence, which SQLite
// lets a program update), so no later insert takes an id of the block; the block is recorded
// (job_id_block) so that a batch's ids are checked against it, across restarts too.
#include "store_detail.hpp"

namespace torcrun::io {

using api::record;
using detail::to_api_error;

namespace {

constexpr std::int64_t uninitialized = 0;
constexpr std::int64_t max_reserved = 10'000'000;  // job ids in one reservation
constexpr std::size_t max_batch = 10000;           // as /bulk_jobs

std::string text_of(std::optional<api::cell> const& value)
{
    if (!value) return {};
    if (auto const* s = std::get_if<std::string>(&*value)) return *s;
    return {};
}

}  // namespace

api_result<std::int64_t> store::reserve_job_ids(std::int64_t workflow_id, std::int64_t count,
                                                 std::string_view what)
{
    if (count < 1 || count > max_reserved) {
        return api::unprocessable(std::string(what) + ": count " + std::to_string(count) +
                                  " is not between 1 and " + std::to_string(max_reserved));
    }
    if (auto ok = require_workflow(workflow_id, what); !ok) return ok.error();
    auto sp = detail::savepoint::begin(db_, what);
    if (!sp) return sp.error();
    // sqlite_sequence has the job table's row once a job was ever inserted; before, the counter
    // starts from the largest id (none: 0), as AUTOINCREMENT itself would.
    if (auto done = db_.exec("INSERT INTO sqlite_sequence (name, seq) SELECT 'job', "
                             "COALESCE(MAX(id), 0) FROM job WHERE NOT EXISTS "
                             "(SELECT 1 FROM sqlite_sequence WHERE name = 'job')");
        !done)
        return to_api_error(done.error(), what);
    auto last = detail::scalar(
        db_, "UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'job' RETURNING seq", {count},
        what);
    if (!last) return last.error();
    if (!*last) return api::unprocessable(std::string(what) + ": the job counter is missing");
    auto const first = std::get<std::int64_t>(**last) - count + 1;
    auto stmt =
        db_.cached("INSERT INTO job_id_block (workflow_id, first_id, count) VALUES (?, ?, ?)");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, workflow_id).bind(2, first).bind(3, count);
    if (auto done = (*stmt)->run(); !done) return to_api_error(done.error(), what);
    if (auto done = sp->commit(what); !done) return done.error();
    return first;
}

api_result<bool> store::create_jobs_at(std::int64_t workflow_id, std::int64_t first_id,
                                       std::vector<record> jobs, std::string_view what)
{
    if (jobs.empty() || jobs.size() > max_batch) {
        return api::unprocessable(std::string(what) + ": " + std::to_string(jobs.size()) +
                                  " jobs in one request; 1 to 10000 are allowed");
    }
    auto const last_id = first_id + static_cast<std::int64_t>(jobs.size()) - 1;
    job_id_blocks blocks;
    {
        auto stmt = db_.cached("SELECT first_id, count FROM job_id_block WHERE workflow_id = ?");
        if (!stmt) return to_api_error(stmt.error(), what);
        (*stmt)->bind(1, workflow_id);
        while (true) {
            auto row = (*stmt)->step();
            if (!row) return to_api_error(row.error(), what);
            if (!*row) break;
            auto const first = (*stmt)->int64(0);
            blocks.ranges.emplace_back(first, first + (*stmt)->int64(1) - 1);
        }
    }
    bool const inside = std::any_of(blocks.ranges.begin(), blocks.ranges.end(), [&](auto const& r) {
        return first_id >= r.first && last_id <= r.second;
    });
    if (!inside) {
        return api::unprocessable(std::string(what) + ": job ids " + std::to_string(first_id) +
                                  " to " + std::to_string(last_id) +
                                  " are not in one block reserved for workflow " +
                                  std::to_string(workflow_id) + " (POST reserve_job_ids first)");
    }
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        auto const wf = jobs[i].int64("workflow_id");
        if (wf && *wf != workflow_id) {
            return api::unprocessable(std::string(what) + ": jobs[" + std::to_string(i) +
                                      "]: field \"workflow_id\": " + std::to_string(*wf) +
                                      " is not the path's workflow " +
                                      std::to_string(workflow_id));
        }
        jobs[i].set("workflow_id", workflow_id);
    }
    // A batch sent again: its first and last jobs are there under the same names (a batch is
    // written whole or not at all). Any other job at those ids is a conflict.
    for (auto const& [id, index] : {std::pair{first_id, std::size_t{0}},
                                   std::pair{last_id, jobs.size() - 1}}) {
        auto name = detail::scalar(db_, "SELECT name FROM job WHERE id = ? AND workflow_id = ?",
                                   {id, workflow_id}, what);
        if (!name) return name.error();
        if (!*name) {
            if (index == 0) break;
            return api::conflict(std::string(what) + ": job " + std::to_string(first_id) +
                                 " exists but job " + std::to_string(last_id) +
                                 " does not: not a batch sent before");
        }
        auto const* sent = jobs[index].text("name");
        if (sent == nullptr || text_of(*name) != *sent) {
            return api::conflict(std::string(what) + ": job " + std::to_string(id) +
                                 " already exists as \"" + text_of(*name) + "\", not \"" +
                                 (sent ? *sent : std::string{}) + "\"");
        }
        if (index == jobs.size() - 1) return false;
    }
    auto sp = detail::savepoint::begin(db_, what);
    if (!sp) return sp.error();
    auto rr = detail::scalar(
        db_, "SELECT id FROM resource_requirements WHERE workflow_id = ? AND name = 'default'",
        {workflow_id}, what);
    if (!rr) return rr.error();
    std::set<std::pair<std::string_view, std::int64_t>> owned;
    struct forget {
        store& s;
        ~forget()
        {
            s.batch_owned_ = nullptr;
            s.reserved_jobs_ = nullptr;
        }
    } const guard{*this};
    batch_owned_ = &owned;
    reserved_jobs_ = &blocks;
    job_edges edges;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        auto& fields = jobs[i];
        auto const context = std::string(what) + ": jobs[" + std::to_string(i) + "]";
        fields.set("status", uninitialized);
        if (*rr && !fields.has_value("resource_requirements_id"))
            fields.set("resource_requirements_id", **rr);
        auto const id = first_id + static_cast<std::int64_t>(i);
        if (auto row = insert_row(api::job_model, fields, context, id); !row) return row.error();
        if (auto linked = insert_links(id, fields, context, &edges); !linked)
            return linked.error();
    }
    if (auto linked = insert_edges(edges, what); !linked) return linked.error();
    if (auto done = sp->commit(what); !done) return done.error();
    return true;
}

}  // namespace torcrun::io
