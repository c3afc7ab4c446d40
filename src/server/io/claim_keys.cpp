// The claim_key table: the job ids of a node's last keyed claim as a JSON array, read back
// through json_each in the order the claim listed them.
#include "claim_keys.hpp"

#include "store_detail.hpp"
#include "torcrun/server/model_json.hpp"

#include <string>

namespace torcrun::io::detail {

api_result<std::optional<std::vector<std::int64_t>>> claimed_under_key(sqlite::connection& db,
                                                                       std::int64_t node,
                                                                       std::string_view key,
                                                                       std::string_view what)
{
    auto stmt = db.cached("SELECT j.value FROM claim_key k, json_each(k.job_ids) j "
                          "WHERE k.compute_node_id = ? AND k.request_key = ? ORDER BY j.key");
    if (!stmt) return to_api_error(stmt.error(), what);
    (*stmt)->bind(1, node).bind(2, key);
    std::optional<std::vector<std::int64_t>> out;
    while (true) {
        auto row = (*stmt)->step();
        if (!row) return to_api_error(row.error(), what);
        if (!*row) break;
        if (!out) out.emplace();
        out->push_back((*stmt)->int64(0));
    }
    return out;
}

api_result<void> remember_claim(sqlite::connection& db, std::int64_t node, std::string_view key,
                                std::span<std::int64_t const> job_ids, std::string_view what)
{
    auto done = scalar(db,
                       "INSERT INTO claim_key (compute_node_id, request_key, job_ids) "
                       "VALUES (?, ?, ?) ON CONFLICT (compute_node_id) DO UPDATE SET "
                       "request_key = excluded.request_key, job_ids = excluded.job_ids",
                       {node, std::string(key), api::json_ids(job_ids)}, what);
    if (!done) return done.error();
    return {};
}

api_result<void> forget_claims(sqlite::connection& db, std::int64_t node, std::string_view what)
{
    auto done = scalar(db, "DELETE FROM claim_key WHERE compute_node_id = ?", {node}, what);
    if (!done) return done.error();
    return {};
}

}  // namespace torcrun::io::detail
