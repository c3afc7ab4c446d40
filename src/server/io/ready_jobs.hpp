// The store's ready index (core::ready_index) kept in step with the job table.
// Internal to src/server/io.
//
// SQLite stays the truth: the index is built from the job table when the store opens (so after a
// kill -9 it holds exactly what was committed) and follows every change of a job row that
// concerns a ready job. Status changes come from their one writer, job_changes::set_status
// (note_status); the rare others (PUT /jobs changing a ready job's requirements or scheduler,
// priority, label, a deleted job or workflow's cascade, an operator's SQL) through TEMP triggers
// on `job` that call a function of this connection. A status set by hand in SQL is not seen
// until the store is opened again. Each change is applied to the index at once (a claim later in
// the same transaction must see it), and what the job was before goes to an undo log. Each
// change also numbers a row of the TEMP table ready_seq in the same statement (for a status, the
// next one), so any rollback (ROLLBACK, a ROLLBACK TO a savepoint, which SQLite reports to no
// hook, a failed statement) takes the rows of the changes it undid with it: the largest number
// left says how many changes still stand. The next change or read compares it with the undo log
// and undoes the rest in the index; after a COMMIT (commit hook) what still stands was committed
// and leaves the undo log.
// A job whose grouping columns hold what the index cannot represent (a scheduler id that is text)
// turns the index off for this connection: claims then read the job table (job_claims.cpp).
#pragma once

#include "torcrun/server/io/store.hpp"
#include "torcrun/server/job_status.hpp"
#include "torcrun/server/ready_index.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

struct sqlite3_context;
struct sqlite3_value;

namespace torcrun::io::detail {

class ready_jobs {
public:
    // Builds the index from `db`'s job table and installs the triggers and hooks; `db` must
    // outlive the returned object, which removes the hooks when destroyed.
    static core::result<std::unique_ptr<ready_jobs>> attach(sqlite::connection& db);
    ~ready_jobs();
    ready_jobs(ready_jobs const&) = delete;
    ready_jobs& operator=(ready_jobs const&) = delete;

    // The index as the current transaction sees it; nullptr when it is off (see above).
    api_result<core::ready_index const*> current(std::string_view what);
    // Job `job_id`'s status was just set to `to` in this transaction (job_changes::set_status).
    api_result<void> note_status(std::int64_t job_id, core::job_status to, std::string_view what);
    // The store moved: the same SQLite connection now lives in `db`.
    void rebind(sqlite::connection& db) { db_ = &db; }

private:
    explicit ready_jobs(sqlite::connection& db) : db_(&db) {}
    core::result<void> rebuild();
    api_result<void> settle_now(std::string_view what);
    // Undoes the changes numbered past `standing` (the largest number in ready_seq), then drops
    // the undo log of a commit that happened.
    void settle(std::int64_t standing);
    std::int64_t record(std::int64_t id, std::optional<core::ready_job> job);

    static void change_function(sqlite3_context* ctx, int argc, sqlite3_value** argv);
    static int on_commit(void* self);

    struct undo_entry {
        std::int64_t job_id;
        std::optional<core::ready_job> before;
    };

    sqlite::connection* db_;
    core::ready_index index_;
    std::vector<undo_entry> undo_;  // the changes numbered base_ + 1 ... base_ + undo_.size()
    std::int64_t base_ = 0;         // the number of the last change known committed
    std::int64_t pruned_ = 0;       // ready_seq holds no row numbered at most this
    bool committed_ = false;        // a COMMIT ran since the last change
    bool off_ = false;
};

}  // namespace torcrun::io::detail
