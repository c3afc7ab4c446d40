// Idempotent claims (an extension, docs/TORC-COMPATIBILITY.md §5): a worker names each claim with
// a key of its choosing (query parameter `request_key`, with `compute_node_id`) and sends the same
// key again when the reply never reached it. The server keeps, per compute node, the key of its
// last claim that handed out jobs and their ids; a claim with that key again is answered with
// those of the jobs the node still holds pending, instead of new ones.
//
// Kept in memory: a server restart forgets the keys (a claim whose reply was lost just before the
// restart then gets new jobs, and the first ones stay pending on that node until it hands them
// back or its lease runs out). One entry per compute node, replaced by its next keyed claim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torcrun::io::detail {

class claim_keys {
public:
    // The jobs the node's last keyed claim handed out, when that claim had `key`.
    std::optional<std::vector<std::int64_t>> repeat(std::int64_t node, std::string_view key) const
    {
        auto const it = last_.find(node);
        if (it == last_.end() || it->second.key != key) return std::nullopt;
        return it->second.job_ids;
    }

    void remember(std::int64_t node, std::string key, std::vector<std::int64_t> job_ids)
    {
        last_.insert_or_assign(node, entry{std::move(key), std::move(job_ids)});
    }

private:
    struct entry {
        std::string key;
        std::vector<std::int64_t> job_ids;
    };
    std::unordered_map<std::int64_t, entry> last_;
};

}  // namespace torcrun::io::detail
