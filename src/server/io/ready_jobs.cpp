// The ready index kept in step with the job table (ready_jobs.hpp says how and why).
#include "ready_jobs.hpp"

#include "store_detail.hpp"
#include "torcrun/server/job_status.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <string>

namespace torcrun::io::detail {
namespace {

constexpr char const* function_name = "torcrun_ready_change";
// Once this many committed rows sit in ready_seq, the next read deletes them.
constexpr std::int64_t prune_every = 8192;

std::string ready() { return std::to_string(core::to_int(core::job_status::ready)); }

// The call a trigger makes: the largest change number still standing, then the row's columns
// (a deleted row's status as NULL: not ready).
std::string call(char const* row, bool deleted = false)
{
    std::string const r(row);
    return "INSERT INTO ready_seq (seq) SELECT " + std::string(function_name) +
           "((SELECT max(seq) FROM ready_seq), " + r + ".id, " + r + ".workflow_id, " +
           (deleted ? std::string("NULL") : r + ".status") + ", " + r + ".priority, " + r +
           ".resource_requirements_id, " + r + ".scheduler_id, " + r + ".label); ";
}

// No trigger on INSERT (jobs are created uninitialized or blocked) nor on a status change
// (note_status, called by the one writer of statuses, job_changes::set_status): a trigger makes
// every statement it fires on keep a statement journal, which inside the request's savepoint
// cost more than the claim indexes it replaces.
std::string schema()
{
    return "CREATE TEMP TABLE IF NOT EXISTS ready_seq (seq INTEGER PRIMARY KEY);"
           "CREATE TEMP TRIGGER IF NOT EXISTS ready_job_update AFTER UPDATE OF priority, "
           "resource_requirements_id, scheduler_id, label, workflow_id ON job WHEN NEW.status = " +
           ready() + " OR OLD.status = " + ready() + " BEGIN " + call("NEW") + "END;"
           "CREATE TEMP TRIGGER IF NOT EXISTS ready_job_delete AFTER DELETE ON job WHEN OLD.status "
           "= " + ready() + " BEGIN " + call("OLD", true) + "END;";
}

bool null_or_integer(sqlite3_value* v)
{
    auto const t = sqlite3_value_type(v);
    return t == SQLITE_NULL || t == SQLITE_INTEGER;
}

std::optional<std::int64_t> optional_integer(sqlite3_value* v)
{
    if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
    return sqlite3_value_int64(v);
}

}  // namespace

core::result<std::unique_ptr<ready_jobs>> ready_jobs::attach(sqlite::connection& db)
{
    std::unique_ptr<ready_jobs> self(new ready_jobs(db));
    auto* native = db.native();
    if (sqlite3_create_function(native, function_name, 8, SQLITE_UTF8, self.get(),
                                &ready_jobs::change_function, nullptr, nullptr) != SQLITE_OK)
        return core::error{std::string("store: ready index: ") + sqlite3_errmsg(native)};
    if (auto done = db.exec(schema()); !done)
        return core::error{"store: ready index: " + done.error().message};
    if (auto built = self->rebuild(); !built) return built.error();
    sqlite3_commit_hook(native, &ready_jobs::on_commit, self.get());
    return self;
}

ready_jobs::~ready_jobs()
{
    auto* native = db_->native();
    if (native == nullptr) return;
    sqlite3_commit_hook(native, nullptr, nullptr);
    // The triggers stay on the connection; without the function they would fail every change.
    (void)db_->exec("DROP TRIGGER IF EXISTS temp.ready_job_update; "
                   "DROP TRIGGER IF EXISTS temp.ready_job_delete");
    sqlite3_create_function(native, function_name, 8, SQLITE_UTF8, nullptr, nullptr, nullptr,
                            nullptr);
}

core::result<void> ready_jobs::rebuild()
{
    index_.clear();
    undo_.clear();
    off_ = false;
    auto stmt = db_->prepare("SELECT id, workflow_id, priority, resource_requirements_id, "
                            "scheduler_id, label FROM job WHERE status = " + ready());
    if (!stmt) return core::error{"store: ready index: " + stmt.error().message};
    while (true) {
        auto row = stmt->step();
        if (!row) return core::error{"store: ready index: " + row.error().message};
        if (!*row) break;
        auto const integer_or_null = [&](int c) { return stmt->is_null(c) || stmt->is_integer(c); };
        if (!stmt->is_integer(1) || !stmt->is_integer(2) || !integer_or_null(3) ||
            !integer_or_null(4)) {
            off_ = true;
            continue;
        }
        core::ready_job job{stmt->int64(1), stmt->int64(2), std::nullopt, std::nullopt,
                            std::nullopt};
        if (!stmt->is_null(3)) job.requirements_id = stmt->int64(3);
        if (!stmt->is_null(4)) job.scheduler_id = stmt->int64(4);
        if (!stmt->is_null(5)) job.label = stmt->text(5);
        index_.put(stmt->int64(0), std::move(job));
    }
    return {};
}

void ready_jobs::settle(std::int64_t standing)
{
    // Numbers up to base_ are committed even when their rows were pruned.
    auto const keep =
        static_cast<std::size_t>(std::max<std::int64_t>(std::max(standing, base_) - base_, 0));
    while (undo_.size() > keep) {
        auto& last = undo_.back();
        index_.put(last.job_id, std::move(last.before));
        undo_.pop_back();
    }
    // What still stands after a COMMIT was committed by it (a COMMIT that failed rolled back, and
    // its changes did not stand).
    if (committed_) {
        base_ += static_cast<std::int64_t>(undo_.size());
        undo_.clear();
        committed_ = false;
    }
}

std::int64_t ready_jobs::record(std::int64_t id, std::optional<core::ready_job> job)
{
    undo_.push_back({id, index_.put(id, std::move(job))});
    return base_ + static_cast<std::int64_t>(undo_.size());
}

void ready_jobs::change_function(sqlite3_context* ctx, int argc, sqlite3_value** argv)
{
    auto* self = static_cast<ready_jobs*>(sqlite3_user_data(ctx));
    if (self == nullptr || argc != 8) {
        sqlite3_result_error(ctx, "torcrun_ready_change: the ready index is gone", -1);
        return;
    }
    self->settle(sqlite3_value_type(argv[0]) == SQLITE_NULL ? 0 : sqlite3_value_int64(argv[0]));
    auto const id = sqlite3_value_int64(argv[1]);
    std::optional<core::ready_job> job;
    auto const status = sqlite3_value_type(argv[3]) == SQLITE_INTEGER
                            ? sqlite3_value_int64(argv[3])
                            : std::int64_t{-1};
    if (status == core::to_int(core::job_status::ready)) {
        if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER ||
            sqlite3_value_type(argv[4]) != SQLITE_INTEGER || !null_or_integer(argv[5]) ||
            !null_or_integer(argv[6])) {
            self->off_ = true;  // not representable: claims read the job table from now on
        } else {
            job = core::ready_job{sqlite3_value_int64(argv[2]), sqlite3_value_int64(argv[4]),
                                  optional_integer(argv[5]), optional_integer(argv[6]),
                                  std::nullopt};
            if (sqlite3_value_type(argv[7]) != SQLITE_NULL) {
                auto const* text = sqlite3_value_text(argv[7]);
                job->label = std::string(reinterpret_cast<char const*>(text),
                                         static_cast<std::size_t>(sqlite3_value_bytes(argv[7])));
            }
        }
    }
    sqlite3_result_int64(ctx, self->record(id, std::move(job)));
}

int ready_jobs::on_commit(void* self)
{
    static_cast<ready_jobs*>(self)->committed_ = true;
    return 0;  // never turns the commit into a rollback
}

api_result<void> ready_jobs::settle_now(std::string_view what)
{
    auto stmt = db_->cached("SELECT max(seq) FROM ready_seq");
    if (!stmt) return to_api_error(stmt.error(), what);
    auto row = (*stmt)->step();
    if (!row) return to_api_error(row.error(), what);
    auto const standing = (*row && !(*stmt)->is_null(0)) ? (*stmt)->int64(0) : 0;
    (*stmt)->reset();
    settle(standing);
    return {};
}

api_result<void> ready_jobs::note_status(std::int64_t job_id, core::job_status to,
                                         std::string_view what)
{
    bool const becomes_ready = to == core::job_status::ready;
    if (!becomes_ready && !index_.contains(job_id)) return {};  // nothing ready changes
    if (auto settled = settle_now(what); !settled) return settled;
    std::optional<core::ready_job> job;
    if (becomes_ready) {
        auto stmt = db_->cached("SELECT workflow_id, priority, resource_requirements_id, "
                                "scheduler_id, label FROM job WHERE id = ?");
        if (!stmt) return to_api_error(stmt.error(), what);
        (*stmt)->bind(1, job_id);
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        auto& s = **stmt;
        auto const integer_or_null = [&](int c) { return s.is_null(c) || s.is_integer(c); };
        if (*row && s.is_integer(0) && s.is_integer(1) && integer_or_null(2) &&
            integer_or_null(3)) {
            job = core::ready_job{s.int64(0), s.int64(1), std::nullopt, std::nullopt,
                                  std::nullopt};
            if (!s.is_null(2)) job->requirements_id = s.int64(2);
            if (!s.is_null(3)) job->scheduler_id = s.int64(3);
            if (!s.is_null(4)) job->label = s.text(4);
        } else if (*row) {
            off_ = true;
        }
        s.reset();
    }
    auto const number = record(job_id, std::move(job));
    auto mark = db_->cached("INSERT INTO ready_seq (seq) VALUES (?)");
    if (!mark) return to_api_error(mark.error(), what);
    (*mark)->bind(1, number);
    if (auto done = (*mark)->run(); !done) return to_api_error(done.error(), what);
    return {};
}

api_result<core::ready_index const*> ready_jobs::current(std::string_view what)
{
    if (auto settled = settle_now(what); !settled) return settled.error();
    if (base_ - pruned_ >= prune_every) {
        auto prune = db_->cached("DELETE FROM ready_seq WHERE seq <= ?");
        if (!prune) return to_api_error(prune.error(), what);
        (*prune)->bind(1, base_);
        if (auto done = (*prune)->run(); !done) return to_api_error(done.error(), what);
        pruned_ = base_;
    }
    if (off_) return nullptr;
    return &index_;
}

}  // namespace torcrun::io::detail
