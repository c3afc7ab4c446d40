// Reading the ready jobs a claim can choose. Jobs that share resource_requirements_id and
// scheduler_id look the same to core::select_claim but for their ids, and it prefers the lower id
// among equals, so at most `limit` of each such group (the lowest ids) can be chosen. The groups
// are found by seeking the claim index (workflow_id, status, resource_requirements_id,
// scheduler_id, then the rowid) from one group to the next, and each group is read up to `limit`
// rows in id order from the same index: a claim costs O(groups x limit) instead of O(ready).
#include "claim_candidates.hpp"

#include "torcrun/server/job_status.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace torcrun::io::detail {
namespace {

// Past this many groups one pass over every ready job costs less than seeking each group.
constexpr std::size_t max_group_seeks = 64;

std::string const candidate_sql =
    "SELECT j.id, COALESCE(r.num_cpus, 1), COALESCE(r.num_gpus, 0), COALESCE(r.num_nodes, 1), "
    "COALESCE(r.memory_bytes, 1048576), COALESCE(r.runtime_s, 60), j.scheduler_id "
    "FROM job j LEFT JOIN resource_requirements r ON r.id = j.resource_requirements_id "
    "WHERE j.workflow_id = ?1 AND j.status = ?2";
std::string const group_sql = candidate_sql +
                              " AND j.resource_requirements_id IS ?3 AND j.scheduler_id IS ?4 "
                              "ORDER BY j.id LIMIT ?5";

std::string const key_sql = "SELECT resource_requirements_id, scheduler_id FROM job "
                            "WHERE workflow_id = ?1 AND status = ?2 ";
std::string const first_group_sql =
    key_sql + "ORDER BY resource_requirements_id, scheduler_id LIMIT 1";
std::string const next_scheduler_sql = key_sql +
                                       "AND resource_requirements_id IS ?3 AND scheduler_id > ?4 "
                                       "ORDER BY scheduler_id LIMIT 1";
std::string const next_requirements_sql = key_sql +
                                          "AND resource_requirements_id > ?3 "
                                          "ORDER BY resource_requirements_id, scheduler_id LIMIT 1";

std::int64_t ready() { return core::to_int(core::job_status::ready); }

// A job whose requirements row is gone counts with the model defaults (1 CPU, 1m, 1 min).
sqlite::result<void> append_rows(sqlite::statement& s, std::vector<core::claim_candidate>& out)
{
    while (true) {
        auto row = s.step();
        if (!row) return row.error();
        if (!*row) return {};
        auto const u32 = [&](int c) {
            return static_cast<std::uint32_t>(std::max<std::int64_t>(s.int64(c), 0));
        };
        core::claim_candidate c{s.int64(0),
                                {u32(1), u32(2), u32(3),
                                 static_cast<std::uint64_t>(std::max<std::int64_t>(s.int64(4), 0))},
                                s.int64(5),
                                std::nullopt,
                                0};
        if (!s.is_null(6)) c.scheduler_id = s.int64(6);
        out.push_back(c);
    }
}

struct group_key {
    std::optional<std::int64_t> requirements;
    std::optional<std::int64_t> scheduler;
};

void bind_is(sqlite::statement& s, int index, std::optional<std::int64_t> value)
{
    if (value) s.bind(index, *value);
    else s.bind_null(index);
}

// NULL sorts before every value, so the keys after NULL are those above minus infinity.
void bind_after(sqlite::statement& s, int index, std::optional<std::int64_t> value)
{
    if (value) s.bind(index, *value);
    else s.bind(index, -std::numeric_limits<double>::infinity());
}

enum class seek { found, none, odd };

// Steps a key query (?3 and ?4 bound) once and appends the group it finds. A key that is neither
// NULL nor an integer is `odd`: the walk cannot step past it, so the caller reads everything.
sqlite::result<seek> seek_group(sqlite::statement& s, std::int64_t wf,
                                std::vector<group_key>& groups)
{
    s.bind(1, wf).bind(2, ready());
    auto row = s.step();
    if (!row) return row.error();
    if (!*row) return seek::none;
    group_key key;
    for (int c : {0, 1}) {
        if (s.is_null(c)) continue;
        if (!s.is_integer(c)) return seek::odd;
        (c == 0 ? key.requirements : key.scheduler) = s.int64(c);
    }
    groups.push_back(key);
    return seek::found;
}

// The groups of ready jobs in index order; nullopt when reading every ready job is better.
sqlite::result<std::optional<std::vector<group_key>>> ready_groups(sqlite::connection& db,
                                                                   std::int64_t wf)
{
    std::vector<group_key> groups;
    auto first = db.cached(first_group_sql);
    if (!first) return first.error();
    auto found = seek_group(**first, wf, groups);
    while (found && *found == seek::found) {
        if (groups.size() > max_group_seeks) return std::nullopt;
        auto const last = groups.back();
        auto same = db.cached(next_scheduler_sql);
        if (!same) return same.error();
        bind_is(**same, 3, last.requirements);
        bind_after(**same, 4, last.scheduler);
        found = seek_group(**same, wf, groups);
        if (!found || *found != seek::none) continue;
        auto other = db.cached(next_requirements_sql);
        if (!other) return other.error();
        bind_after(**other, 3, last.requirements);
        found = seek_group(**other, wf, groups);
    }
    if (!found) return found.error();
    if (*found == seek::odd) return std::nullopt;
    return groups;
}

}  // namespace

api_result<std::vector<core::claim_candidate>> all_claim_candidates(store& db, std::int64_t wf,
                                                                    std::string_view what)
{
    auto stmt = db.db().cached(candidate_sql);
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, ready());
    std::vector<core::claim_candidate> out;
    if (auto read = append_rows(**stmt, out); !read) return to_api_error(read.error(), what);
    return out;
}

api_result<std::vector<core::claim_candidate>> claim_candidates(store& db, std::int64_t wf,
                                                                std::int64_t limit,
                                                                std::string_view what)
{
    if (limit <= 0) return std::vector<core::claim_candidate>{};  // select_claim chooses none
    auto groups = ready_groups(db.db(), wf);
    if (!groups) return to_api_error(groups.error(), what);
    if (!*groups) return all_claim_candidates(db, wf, what);
    std::vector<core::claim_candidate> out;
    for (auto const& g : **groups) {
        auto stmt = db.db().cached(group_sql);
        if (!stmt) return to_api_error(stmt.error(), what);
        (*stmt)->bind(1, wf).bind(2, ready());
        bind_is(**stmt, 3, g.requirements);
        bind_is(**stmt, 4, g.scheduler);
        (*stmt)->bind(5, limit);
        if (auto read = append_rows(**stmt, out); !read) return to_api_error(read.error(), what);
    }
    return out;
}

api_result<std::vector<core::next_candidate>> next_candidates(store& db, std::int64_t wf,
                                                              std::int64_t limit,
                                                              std::string_view what)
{
    std::vector<core::next_candidate> out;
    if (limit <= 0) return out;  // SQLite reads a negative LIMIT as none
    auto stmt = db.db().cached(
        "SELECT id FROM job WHERE workflow_id = ? AND status = ? ORDER BY id LIMIT ?");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, wf).bind(2, ready()).bind(3, limit);
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) return out;
        out.push_back({(*stmt)->int64(0), 0});
    }
}

}  // namespace torcrun::io::detail
